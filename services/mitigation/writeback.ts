/**
 * Spatial write-back (spec 2 `mitigate/writeback`): mitigated predictions into a new field of each
 * listed document, or of every document a kept run judged (by `run_id`, services/spatial/runs.ts).
 * Which fields may be written is core/spatial/mitigate/writeback_policy.ts; here are the use case and who
 * already holds a field. The write itself is journaled (writeback_journal.ts: undoable, rolled back when
 * cut off, logged as a decision); the task document keeps a history of them, by a compare-and-set.
 */
import type { Config } from "../../config.ts";
import { DataMismatchError, InvalidInputError } from "../../core/errors.ts";
import { MAPPING_KEYS } from "../../core/spatial/mapping.ts";
import { createdByTask, writebackRefusal } from "../../core/spatial/mitigate/writeback_policy.ts";
import type { CollectionRef, Store } from "../../store/store.ts";
export type { WritebackTotals };
import { touchDataset } from "../datasets/registry.ts";
import { runForWriteback, type WritableRun } from "../spatial/run_writeback.ts";
import { getRun, runPredictions } from "../spatial/runs.ts";
import type { RunDeps } from "../spatial/run_documents.ts";
import type { Decider } from "../decisions/entry.ts";
import { type Before, type Line, WritebackJournal, type WritebackTotals } from "./writeback_journal.ts";
import { writebackLeaseMs } from "./writeback_log.ts";
import { recoverWritebacks } from "./writeback_recovery.ts";
import { claimWritebackField, recordWriteback } from "./writeback_task.ts";
import { type TaskCollection, taskCollection } from "../spatial/task_collection.ts";
import { taskDocumentsRef } from "../tasks/task_documents.ts";

const BATCH = 1000;

/**
 * One prediction to write, as the request lists it (kept in its wire shape: a write-back may list a
 * million, and each is written as it is).
 */
export type Prediction = Line;

/**
 * What a write-back asks: the task, the new field, who asks, and what to write: the listed predictions,
 * or the final predictions of a kept run (exactly one of the two, checked at the edge).
 */
export type WritebackInput =
  & { collectionName: string; newField: string; who: Decider }
  & ({ preds: Prediction[]; runId?: undefined } | { runId: string; preds?: undefined });

/** The answer of `mitigate/writeback`. */
export interface WritebackAnswer extends WritebackTotals {
  /** What names it to undo it (`.../mitigate/writeback/{writeback_id}/undo`). */
  writeback_id: string;
  new_field: string;
  written_at: string;
  /** The run whose predictions were written, when the request named one. */
  run_id?: string;
}

/** What a write-back writes: predictions in parts, and every document id among them. */
interface Source {
  parts: () => AsyncIterable<Prediction[]>;
  ids: Set<string>;
}

/**
 * The listed predictions, in order, a doc_id listed again taking its last line's y_pred: the lines are
 * applied in order, as one update per line would. /openapi.json cannot refuse a repeated doc_id (JSON
 * Schema's uniqueItems compares whole lines), so the server gives it this meaning instead of a 422.
 */
function listedSource(preds: Prediction[]): Source {
  const last = new Map<string, Prediction>();
  for (const p of preds) last.set(p.doc_id, p);
  const lines = last.size === preds.length ? preds : [...last.values()];
  return {
    ids: new Set(last.keys()),
    async *parts() {
      for (let i = 0; i < lines.length; i += BATCH) yield lines.slice(i, i + BATCH);
    },
  };
}

/** A kept run's final predictions, read chunk by chunk (its ids gathered first, for the holder check). */
async function runSource(deps: { store: Store; config: Config }, run: WritableRun): Promise<Source> {
  const ids = new Set<string>();
  for await (const part of runPredictions(deps, run.header)) for (const p of part) ids.add(p.doc_id);
  return {
    ids,
    async *parts() {
      for await (const part of runPredictions(deps, run.header)) {
        yield part.map((p) => ({ doc_id: p.doc_id, y_pred: p.y_pred }));
      }
    },
  };
}

/**
 * Writes a reviewer's mitigated predictions into a new field, refusing any field data may live in (422
 * on `new_field`), so a write-back never overwrites what it did not create.
 */
export async function writeBack(
  deps: { store: Store; config: Config },
  input: WritebackInput,
): Promise<WritebackAnswer> {
  const { store, config } = deps, { collectionName, newField } = input;
  const db = config.TESSERA_DB, leaseMs = writebackLeaseMs(config);
  const ref = await taskCollection(deps, collectionName);
  const run = input.runId === undefined
    ? null
    : await runForWriteback(deps, ref, collectionName, input.runId);
  const refuse = refuser(ref, run, newField);
  refuse(null);
  // a write-back of this task cut off by a dead process is rolled back before this one reads the field
  await recoverWritebacks(store, db, { leaseMs, task: collectionName });
  const source = run ? await runSource(deps, run) : listedSource(input.preds!);
  const { before, holder } = await fieldBefore(store, ref, newField, source.ids);
  const tasks = taskDocumentsRef(db);
  if (!createdByTask(ref.task, newField)) {
    refuse(holder);
    await claimWritebackField(store, tasks, collectionName, newField);
  }
  const facts = run ? await runFacts(deps, collectionName, run) : { lines: source.ids.size };
  const subject = {
    task: collectionName,
    target: ref,
    field: newField,
    runId: input.runId ?? null,
    who: input.who,
  };
  const journal = await WritebackJournal.begin(store, db, { ...subject, facts }, leaseMs);
  let total: WritebackTotals;
  try {
    total = await journal.write(source.parts(), before);
  } catch (e) {
    await journal.rollBack().catch(() => {}); // what stays is rolled back by recovery once its lease ends
    throw e;
  } finally {
    await touchDataset(store, db, ref);
  }
  const rec = await journal.commit(total, {});
  await recordWriteback(store, tasks, collectionName, {
    writeback_id: rec._id,
    field: newField,
    at: rec.written_at,
    by: input.who.sub,
    run_id: input.runId ?? null,
    ...total,
    not_found: total.not_found.length,
  });
  const answer = { writeback_id: rec._id, new_field: newField, ...total, written_at: rec.written_at! };
  return { ...answer, ...(run && { run_id: input.runId }) };
}

/** The run's request and solver figures, which make a write-back of it reproducible. */
async function runFacts(deps: RunDeps, task: string, run: WritableRun): Promise<Record<string, unknown>> {
  const stored = await getRun(deps, task, run.header._id, false, false);
  const a = stored.answer as Record<string, unknown>;
  const solver = Object.fromEntries(
    ["solver_status_code", "solver_status_message", "objective", "bound", "gap", "n_flips"]
      .filter((k) => a[k] !== undefined).map((k) => [k, a[k]]),
  );
  return {
    run_kind: stored.run.kind,
    run_created_at: stored.run.created_at,
    request: stored.run.request,
    solver,
  };
}

/**
 * Refuses a field data may live in, naming `new_field`: `_id` or a mapping key's name is a 422 (the
 * document says so), the rest a 409 (the task's mapping and documents decide); `holder` as
 * writebackRefusal takes it.
 */
function refuser(ref: TaskCollection, run: WritableRun | null, newField: string) {
  // the run's own mapping counts as one recorded on the task: its fields are data, never written
  const task = run ? { ...ref.task, writeback_run: { mapping: run.header.mapping } } : ref.task;
  return (holder: string | null) => {
    const why = writebackRefusal(task, newField, holder);
    if (!why) return;
    const reserved = newField === "_id" || (MAPPING_KEYS as readonly string[]).includes(newField);
    throw new (reserved ? InvalidInputError : DataMismatchError)(`new_field '${newField}' ${why}`, [
      "body",
      "new_field",
    ]);
  };
}

/** What a write-back of a kept run would write, for a reviewer to confirm first. */
export interface WritebackPlan {
  /** Documents that get the field: one per line of the run's final predictions. */
  records: number;
  /** Of them, those whose prediction the run changed (`flipped`). */
  changed: number;
  /** An earlier write-back of this task created the field: its values are replaced. */
  replaces: boolean;
}

/**
 * What `writeBack` by `runId` would do, refused as it would be by the run (404, 409) and by the field's
 * name (422); which documents hold the field already is looked at only when it runs. The review
 * console's confirmation step.
 */
export async function planWriteback(
  deps: { store: Store; config: Config },
  input: { collectionName: string; newField: string; runId: string },
): Promise<WritebackPlan> {
  const ref = await taskCollection(deps, input.collectionName);
  const run = await runForWriteback(deps, ref, input.collectionName, input.runId);
  refuser(ref, run, input.newField)(null);
  let changed = 0;
  for await (const part of runPredictions(deps, run.header)) for (const p of part) if (p.flipped) changed++;
  return { records: run.count, changed, replaces: createdByTask(ref.task, input.newField) };
}

/**
 * Each of the documents `ids`' value of `field` before the write-back (null: it lacks it), and the first
 * that holds it (null: none does). One pass over the collection carrying only that field.
 */
async function fieldBefore(store: Store, ref: CollectionRef, field: string, ids: Set<string>) {
  const before: Before = new Map();
  let holder: string | null = null;
  for await (const batch of store.stream(ref, { projection: [field], batchSize: BATCH })) {
    for (const d of batch) {
      if (!ids.has(d._id)) continue;
      const has = Object.hasOwn(d, field);
      before.set(d._id, has ? { value: d[field] } : null);
      if (has) holder ??= d._id;
    }
  }
  return { before, holder };
}
