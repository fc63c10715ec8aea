/**
 * How a decision and its log entry are written in one step (a transactional outbox): the entry goes
 * into the decision's own document (`decision_outbox`) by the same compare-and-set that records the
 * decision, so a crash can never keep one without the other; it is then drained into the log by entry
 * id, which makes draining idempotent (an entry drained twice is one entry). Whatever a crash leaves in
 * an outbox is drained by the next start (`sweepDecisions`) and before the log is read.
 *
 * Every write that queues an entry sets a new `decision_rev` and expects the one it read, so two
 * decisions never lose each other's entry; the drain expects the revision it read and keeps it, so it
 * never makes a decision's compare-and-set fail (an entry it drained may be queued again by a decision
 * that read the outbox before: drained again, it is still one entry).
 */
import {
  type CollectionRef,
  type Doc,
  DuplicateIdError,
  type Filter,
  matches,
  type Store,
} from "../../store/store.ts";
import { type DecisionEntry, decisionsRef } from "./entry.ts";

const OUTBOX = "decision_outbox";
const REV = "decision_rev";
const PENDING = "decision_pending";

/** The collections of Tessera's database whose documents carry outboxes (tests check each area's name). */
export const OUTBOX_HOMES = ["tasks", "cleaning_jobs", "imports", "writebacks"] as const;

const outboxOf = (doc: Doc): DecisionEntry[] =>
  Array.isArray(doc[OUTBOX]) ? doc[OUTBOX] as DecisionEntry[] : [];

/** Gives the document a revision when it has none (a no-op race: every racer only sets a fresh one). */
async function withRev(store: Store, ref: CollectionRef, doc: Doc): Promise<Doc | null> {
  if (typeof doc[REV] === "string") return doc;
  return await store.compareAndSet(ref, doc._id, {}, { [REV]: crypto.randomUUID() });
}

/** What a decision's change of one document is, seen from the document as it is now. */
export interface Decision {
  /** The fields the decision sets; throw to refuse it. */
  set: Record<string, unknown>;
  /** Its log entry; none when this write records no decision (a step of one under way). */
  entry: DecisionEntry | null;
}

/**
 * Applies `decide(doc)` to document `id` while it matches `guard`, queuing its entry in the same
 * compare-and-set, then drains it into the log; retried while only the revision moved. Null when the
 * document is missing or no longer matches `guard`.
 */
export async function decideOn(
  store: Store,
  tesseraDb: string,
  ref: CollectionRef,
  id: string,
  guard: Filter,
  decide: (doc: Doc) => Decision,
): Promise<Doc | null> {
  for (;;) {
    const read = await store.get(ref, id);
    if (!read || !matches(read, guard)) return null;
    const doc = await withRev(store, ref, read);
    if (!doc || !matches(doc, guard)) return null;
    const { set, entry } = decide(doc);
    const queued = entry ? { [OUTBOX]: [...outboxOf(doc), entry], [PENDING]: true } : {};
    const done = await store.compareAndSet(ref, id, { ...guard, [REV]: doc[REV] as string }, {
      ...set,
      ...queued,
      [REV]: crypto.randomUUID(),
    });
    if (!done) continue;
    if (entry) await drainOne(store, tesseraDb, ref, id).catch(() => {}); // the sweep retries
    return done;
  }
}

/** Copies the document's queued entries into the log and empties its outbox; idempotent. */
export async function drainOne(
  store: Store,
  tesseraDb: string,
  ref: CollectionRef,
  id: string,
): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const doc = await store.get(ref, id);
    if (!doc || !doc[PENDING]) return;
    for (const entry of outboxOf(doc)) {
      try {
        await store.insertMany(decisionsRef(tesseraDb), [{ ...entry }]);
      } catch (e) {
        if (!(e instanceof DuplicateIdError)) throw e;
      }
    }
    const rev = doc[REV];
    const guard: Filter = typeof rev === "string" ? { [REV]: rev } : {};
    if (await store.compareAndSet(ref, id, guard, { [OUTBOX]: [], [PENDING]: false })) return;
  }
}

/** The fields of a new document whose creation is itself a decision (its entry queued in it). */
export function queuedIn(entry: DecisionEntry): Record<string, unknown> {
  return { [OUTBOX]: [entry], [PENDING]: true, [REV]: crypto.randomUUID() };
}

/** Drains every outbox a crash may have left full: at a start, and before the log is read. */
export async function sweepDecisions(store: Store, tesseraDb: string): Promise<number> {
  let drained = 0;
  for (const collection of OUTBOX_HOMES) {
    const ref = { db: tesseraDb, collection };
    for (const doc of await store.list(ref, { [PENDING]: true })) {
      await drainOne(store, tesseraDb, ref, doc._id);
      drained++;
    }
  }
  return drained;
}
