/**
 * An approved job's write-back into its dataset: imputed values into the same fields (or new ones), or
 * a flag per row for a detection. The values a write replaces are in the job's result pages already
 * (`original`), so nothing is lost; a cell that changed since the job ran is left alone and counted.
 * Every write is idempotent (a cell is written only while it still holds what the job found, or the very
 * value it gets), so a write-back cut short by a dead process can simply be run again: `runWriteBack`
 * holds it with a heartbeat, and an approval that finds the heartbeat a lease old resumes it.
 */
import type { Store } from "../../store/store.ts";
import type { Approval, JobQueue, JobRecord } from "./job_queue.ts";
import { ConflictError } from "../../core/errors.ts";
import { allResults } from "./job_results.ts";
import { approvalEntry } from "./decision_entries.ts";
import { targetField, type WriteBackPlan, writtenFields } from "./writeback_plan.ts";
import { own, setOwn } from "../../core/data_keys.ts";
import {
  type ColumnInfo,
  findDataset,
  recordedTarget,
  registryRef,
  touchDataset,
} from "../datasets/registry.ts";

const BATCH = 1000;

/** Current values of `fields` for every document of the job's dataset (one streamed pass). */
async function currentValues(
  store: Store,
  job: JobRecord,
  fields: string[],
): Promise<Map<string, Record<string, unknown>>> {
  const out = new Map<string, Record<string, unknown>>();
  for await (
    const batch of store.stream({ db: job.database, collection: job.collection }, { projection: fields })
  ) {
    for (const doc of batch) out.set(doc._id, doc);
  }
  return out;
}

/**
 * Whether a cell holds the value the job found: exactly, absent or null as `original_absent` says (an
 * entry made before it was recorded takes either), so that an undo puts back exactly what was there.
 */
export function holdsOriginal(held: unknown, e: Record<string, unknown>): boolean {
  if (e.original_absent === true) return held === undefined;
  if (e.original_absent === false) return held === null;
  return JSON.stringify(held ?? null) === JSON.stringify(e.original ?? null);
}

/** Writes an approved job's results into its dataset; returns what it did, for the job record. */
export async function writeBack(store: Store, tesseraDb: string, job: JobRecord, plan: WriteBackPlan) {
  const ref = { db: job.database, collection: job.collection };
  const current = job.task === "impute" && plan.target === "same_fields"
    ? await currentValues(store, job, job.columns)
    : null;
  const report = {
    matched: 0,
    modified: 0,
    missing: 0,
    cells_written: 0,
    already_written: 0,
    skipped_changed: 0,
  };
  let pending = new Map<string, Record<string, unknown>>();
  const flush = async () => {
    const r = await store.updateFields(ref, [...pending].map(([id, set]) => ({ id, set })));
    report.matched += r.matched;
    report.modified += r.modified;
    report.missing += r.missing.length;
    pending = new Map();
  };
  for await (const items of allResults(store, tesseraDb, job)) {
    for (const e of items) {
      const id = e._id as string;
      const set = pending.get(id) ?? {};
      if (job.task === "impute") {
        const column = e.column as string;
        const doc = current?.get(id);
        const held = doc ? own(doc, column) : undefined;
        if (current && !holdsOriginal(held, e)) {
          if (JSON.stringify(held ?? null) === JSON.stringify(e.value ?? null)) report.already_written++; // an interrupted run wrote it
          else report.skipped_changed++;
          continue;
        }
        setOwn(set, targetField(plan, column), e.value);
      } else {
        setOwn(set, plan.flagField, e.label === 1);
        if (plan.scoreField) setOwn(set, plan.scoreField, e.score);
      }
      report.cells_written++;
      pending.set(id, set);
    }
    if (pending.size >= BATCH) await flush();
  }
  if (pending.size) await flush();
  const fields = await recordNewFields(store, tesseraDb, job, plan);
  return { state: "done", fields, ...report };
}

/**
 * Runs an approval's write-back while `owner` holds it: a heartbeat every third of `leaseMs` shows the
 * writer alive; the report replaces the running state at the end, or a failure clears the approval so it
 * can be given again. Both only while `owner` still holds it: a writer that was taken over writes nothing
 * into the job record (its dataset writes were the same as its successor's) and answers 409.
 */
export async function runWriteBack(
  queue: JobQueue,
  job: JobRecord,
  plan: WriteBackPlan,
  owner: string,
  approval: Approval,
  leaseMs: number,
): Promise<Approval> {
  const fieldsBefore: unknown[] = Array.isArray(approval.write_back.fields_before)
    ? approval.write_back.fields_before
    : await writtenFieldsHeld(queue.store, queue.tesseraDb, job, plan);
  const running: Record<string, unknown> = { ...approval.write_back, fields_before: fieldsBefore };
  // recorded before anything is written, so a resumed write-back sees the dataset's fields as they were
  if (!await queue.setWriteBack(job._id, owner, { ...approval, write_back: running }, false)) {
    throw new ConflictError(`the write-back of job '${job.job_id}' was taken over by a later approval`);
  }
  const beat = () =>
    queue.setWriteBack(job._id, owner, {
      ...approval,
      write_back: { ...running, heartbeat_at: new Date().toISOString() },
    }, false);
  const heartbeat = setInterval(() => beat().catch(() => {}), Math.max(50, leaseMs / 3));
  let report: Record<string, unknown>;
  try {
    report = await writeBack(queue.store, queue.tesseraDb, job, plan)
      .finally(() =>
        touchDataset(queue.store, queue.tesseraDb, { db: job.database, collection: job.collection })
      );
  } catch (e) {
    clearInterval(heartbeat);
    await queue.setWriteBack(job._id, owner, null, true); // nothing half-recorded: approve again to retry
    throw e;
  }
  clearInterval(heartbeat);
  const { state: _, heartbeat_at: _h, ...kept } = running;
  const done = { ...approval, write_back: { ...kept, ...report } };
  if (!await queue.finishWriteBack(job._id, owner, done, approvalEntry(job, done, plan))) {
    throw new ConflictError(
      `the write-back of job '${job.job_id}' was taken over by a later approval while it ran`,
    );
  }
  return done;
}

/**
 * The fields a plan writes that the dataset's registry lists already (before the write-back adds its
 * own): their earlier values are not kept, so an undo leaves them as written and says so.
 */
async function writtenFieldsHeld(
  store: Store,
  tesseraDb: string,
  job: JobRecord,
  plan: WriteBackPlan,
): Promise<string[]> {
  if (job.task === "impute" && plan.target === "same_fields") return []; // the originals are kept
  const rec = await findDataset(store, tesseraDb, job.data);
  const known = new Set((rec?.columns ?? []).map((c) => c.name));
  return writtenFields(job, plan).filter((f) => known.has(f));
}

/** The fields the write-back created or filled, added to the dataset's registry record when new. */
async function recordNewFields(
  store: Store,
  tesseraDb: string,
  job: JobRecord,
  plan: WriteBackPlan,
): Promise<string[]> {
  const rec = await findDataset(store, tesseraDb, job.data);
  const typeOf = new Map((rec?.columns ?? []).map((c) => [c.name, c.type]));
  const written: ColumnInfo[] = job.task === "impute"
    ? job.columns.map((c) => ({ name: targetField(plan, c), type: typeOf.get(c) ?? "number" }))
    : [
      { name: plan.flagField, type: "boolean" },
      ...(plan.scoreField ? [{ name: plan.scoreField, type: "number" as const }] : []),
    ];
  const added = written.filter((c) => !typeOf.has(c.name));
  if (rec && added.length) {
    // the dataset's target stays what it was: a record made before targets were recorded gets its own now
    const target = recordedTarget(rec);
    await store.patch(registryRef(tesseraDb), rec._id, {
      columns: [...rec.columns, ...added],
      ...(target === undefined ? {} : { target_column: target }),
    });
  }
  return written.map((c) => c.name);
}
