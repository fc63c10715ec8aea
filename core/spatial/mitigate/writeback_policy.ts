/**
 * Which fields a write-back (spec 2, `mitigate/writeback`) may write: the policy alone, no I/O, so the
 * route loads the task record and what the documents hold, and this decides.
 */
import { MAPPING_KEYS } from "../mapping.ts";

/** The task document as the store returns it (only the fields read here matter). */
export type TaskRecord = Record<string, unknown>;

/** Field names a mapping object names (its values), or none. */
const mappedNames = (m: unknown): string[] =>
  m && typeof m === "object" ? Object.values(m as Record<string, unknown>).map(String) : [];

/**
 * Every field a mapping recorded on the task names: the task's own `mapping`, and the `mapping` of any
 * record on it (`last_mitigation` keeps the whole mapping a mitigation read, omitted keys resolved).
 */
export function recordedMappingFields(task: TaskRecord): Set<string> {
  const records = Object.values(task).map((v) => (v as { mapping?: unknown } | null)?.mapping);
  return new Set([task.mapping, ...records].flatMap(mappedNames));
}

/** Fields earlier write-backs of this task created: writing into them again overwrites only our own. */
export function writebackFields(task: TaskRecord): string[] {
  return Array.isArray(task.writeback_fields) ? task.writeback_fields.map(String) : [];
}

/** Whether an earlier write-back of this task created `field` (then no document need be checked). */
export function createdByTask(task: TaskRecord, field: string): boolean {
  return writebackFields(task).includes(field);
}

/**
 * Why `field` may not be written, or null when it may: never `_id`, a mapping key's default name or a
 * field a recorded mapping names; and never a field `holder`, a document about to be written, already
 * holds, unless this task created it. `holder` is null when no such document exists, or when it was not
 * looked for (call first with null to refuse by name alone, before reading any document).
 */
export function writebackRefusal(task: TaskRecord, field: string, holder: string | null): string | null {
  if (field === "_id" || (MAPPING_KEYS as readonly string[]).includes(field)) {
    return "is _id or a mapping key's default name";
  }
  if (recordedMappingFields(task).has(field)) return "is a field a mapping of the task uses";
  if (holder !== null && !createdByTask(task, field)) {
    return `is held already by document '${holder}' and no write-back of this task created it`;
  }
  return null;
}
