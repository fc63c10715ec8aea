/**
 * The decision log's entries (issue 37): one per decision that changed data or review state, written
 * once, never changed or deleted through any route. An entry is made when its decision is taken and
 * travels in the decision's own document write (outbox.ts) until it is drained into the log.
 */
import type { CollectionRef } from "../../store/store.ts";
import { newId } from "../../store/ids.ts";

/** What was decided. */
export const DECISION_KINDS = [
  "writeback",
  "writeback_undo",
  "cleaning_approval",
  "cleaning_approval_undo",
  "cleaning_rejection",
  "task_status",
  "dataset_import",
  "dataset_replace",
  "dataset_delete",
] as const;
export type DecisionKind = typeof DECISION_KINDS[number];

/** Who decided: the token's `sub` and `preferred_username`, or the console session's user. */
export interface Decider {
  sub: string;
  username: string | null;
}

/** One entry of the log, as stored (`_id` is `entry_id`: ids sort by time) and as answered. */
export interface DecisionEntry {
  _id: string;
  at: string;
  kind: DecisionKind;
  user: Decider;
  /** The task (its `data_collection_name`) the decision belongs to, when it belongs to one. */
  task: string | null;
  /** The dataset (collection) it changed or concerns, and its database. */
  dataset: string | null;
  database: string | null;
  run_id: string | null;
  job_id: string | null;
  writeback_id: string | null;
  field: string | null;
  /** What it did, counted: documents written, restored, skipped, rows imported... */
  counts: Record<string, number>;
  /** What makes it reproducible: request parameters, seed, solver status, objective, bound, gap. */
  facts: Record<string, unknown>;
}

/** Where the log lives: Tessera's own database. */
export const decisionsRef = (tesseraDb: string): CollectionRef => ({
  db: tesseraDb,
  collection: "decisions",
});

/** A new entry of `kind` by `user`, taken now; fields not given are null (counts and facts empty). */
export function newEntry(
  kind: DecisionKind,
  user: Decider,
  fields: Partial<Omit<DecisionEntry, "_id" | "at" | "kind" | "user">>,
): DecisionEntry {
  return {
    _id: newId(),
    at: new Date().toISOString(),
    kind,
    user: { sub: user.sub, username: user.username ?? null },
    task: null,
    dataset: null,
    database: null,
    run_id: null,
    job_id: null,
    writeback_id: null,
    field: null,
    counts: {},
    facts: {},
    ...fields,
  };
}
