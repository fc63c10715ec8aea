/**
 * What a task document keeps of its write-backs: the fields they created (claimed before writing, so a
 * retry may write into them) and a history of the last HISTORY (`last_writeback`, `writebacks`), marked
 * when one is undone. Kept by a compare-and-set on a revision token, so concurrent write-backs never lose
 * each other's field or entry.
 */
import { NotFoundError } from "../../core/errors.ts";
import { writebackFields } from "../../core/spatial/mitigate/writeback_policy.ts";
import type { CollectionRef, Doc, Store } from "../../store/store.ts";

/** Write-backs kept in a task's `writebacks` history. */
const HISTORY = 50;

/** Records `field` as created by the task's write-backs; done before writing, so a retry may resume. */
export function claimWritebackField(store: Store, tasks: CollectionRef, name: string, field: string) {
  return updateTask(store, tasks, name, (task) => ({
    writeback_fields: [...new Set([...writebackFields(task), field])],
  }));
}

/** Notes a finished write-back on the task: `last_writeback` and the last HISTORY in `writebacks`. */
export function recordWriteback(
  store: Store,
  tasks: CollectionRef,
  name: string,
  record: Record<string, unknown>,
) {
  return updateTask(store, tasks, name, (task) => ({
    last_writeback: record,
    writebacks: [...(Array.isArray(task.writebacks) ? task.writebacks : []), record].slice(-HISTORY),
  }));
}

/**
 * Sets what `change` makes of the task document's current state, by a compare-and-set on a revision
 * token retried on a race. A task without a token gets a fresh one first; tokens are never reused, so
 * a change computed from a state that has changed since can never match.
 */
async function updateTask(
  store: Store,
  tasks: CollectionRef,
  name: string,
  change: (task: Doc) => Record<string, unknown>,
): Promise<void> {
  for (;;) {
    const task = await store.get(tasks, name);
    if (!task) throw new NotFoundError(`no task document for collection '${name}'`);
    const rev = task.writeback_rev;
    if (typeof rev !== "string") {
      await store.compareAndSet(tasks, name, {}, { writeback_rev: crypto.randomUUID() });
      continue;
    }
    const set = { ...change(task), writeback_rev: crypto.randomUUID() };
    if (await store.compareAndSet(tasks, name, { writeback_rev: rev }, set)) return;
  }
}

/** Marks the history's entry of write-back `writebackId` undone (when it is still in the last HISTORY). */
export function markUndone(
  store: Store,
  tasks: CollectionRef,
  name: string,
  writebackId: string,
  at: string,
) {
  const mark = (w: unknown) =>
    typeof w === "object" && w !== null && (w as Record<string, unknown>).writeback_id === writebackId
      ? { ...w, undone_at: at }
      : w;
  return updateTask(store, tasks, name, (task) => ({
    ...(Array.isArray(task.writebacks) && { writebacks: task.writebacks.map(mark) }),
    ...(task.last_writeback !== undefined && { last_writeback: mark(task.last_writeback) }),
  }));
}
