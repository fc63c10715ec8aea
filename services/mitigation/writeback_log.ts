/**
 * The record of each spatial write-back (`writebacks`, id = `writeback_id`) and its pages of previous
 * values (`writeback_pages`, written before the values they protect): what makes a write-back undoable
 * and one cut off by a crash roll back. A record and its undo are held by a lease while they run, so a
 * process that dies stops renewing it and the next one finishes the work (writeback_recovery.ts).
 */
import type { CollectionRef, Store } from "../../store/store.ts";
import { type Decider, type DecisionEntry, type DecisionKind, newEntry } from "../decisions/entry.ts";

/** Where write-backs are recorded. */
export const writebacksRef = (tesseraDb: string): CollectionRef => ({
  db: tesseraDb,
  collection: "writebacks",
});

/** Where their previous values are kept. */
export const writebackPagesRef = (tesseraDb: string): CollectionRef => ({
  db: tesseraDb,
  collection: "writeback_pages",
});

/** Skipped document ids an undo's answer lists (the count is always whole): a record stays small. */
export const SKIPPED_LISTED = 1000;

/** What an undo did. */
export interface UndoTotals {
  /** Documents holding the value before the write-back again (restored now, or already). */
  restored: number;
  /** Documents someone changed since the write-back: left as they are (the first SKIPPED_LISTED). */
  skipped: string[];
  skipped_count: number;
  /** Documents deleted since. */
  missing: number;
}

/** An undo as recorded on its write-back. */
export interface UndoRecord extends Partial<UndoTotals> {
  state: "running" | "done";
  by: Decider;
  started_at: string;
  undone_at?: string;
}

/** One write-back as recorded. */
export interface WritebackRecord {
  _id: string;
  task: string;
  database: string;
  collection: string;
  field: string;
  run_id: string | null;
  by: Decider;
  started_at: string;
  /** writing: under way (or cut off: rolled back once its lease ran out); done; rolled_back. */
  state: "writing" | "done" | "rolled_back";
  holder: string | null;
  lease_until: string | null;
  pages: number;
  matched?: number;
  modified?: number;
  not_found?: number;
  written_at?: string;
  undo: UndoRecord | null;
  /** The undo's state at the top level, for listing the running ones. */
  undo_state: "running" | "done" | null;
  /** Who runs the undo (a fencing token), while one runs. */
  undo_holder: string | null;
  /** What the write-back was asked, for the log. */
  facts: Record<string, unknown>;
}

/** One page of a write-back: document ids, the value written, the value before (or absent). */
export interface WritebackPage {
  _id: string;
  writeback_id: string;
  ids: string[];
  written: unknown[];
  previous: unknown[];
  /** Indexes (into `ids`) whose document lacked the field before. */
  absent: number[];
}

/** Entries per page at most, and the characters of ids and values a page may hold (KV: 64 KiB a value). */
const PAGE_ENTRIES = 1000;
const PAGE_CHARS = 24_000;

/** Splits a batch of (id, written, previous) into pages a store keeps, in order. */
export function* pagesOf(
  writebackId: string,
  first: number,
  lines: { id: string; written: unknown; previous: { value: unknown } | null }[],
): Generator<WritebackPage> {
  let page: WritebackPage | null = null;
  let chars = 0;
  let seq = first;
  for (const l of lines) {
    const size = l.id.length + JSON.stringify(l.written).length +
      JSON.stringify(l.previous?.value ?? null).length + 8;
    if (page && (page.ids.length >= PAGE_ENTRIES || chars + size > PAGE_CHARS)) {
      yield page;
      page = null;
    }
    if (!page) {
      page = {
        _id: pageId(writebackId, seq++),
        writeback_id: writebackId,
        ids: [],
        written: [],
        previous: [],
        absent: [],
      };
      chars = 0;
    }
    if (l.previous === null) page.absent.push(page.ids.length);
    page.ids.push(l.id);
    page.written.push(l.written);
    page.previous.push(l.previous?.value ?? null);
    chars += size;
  }
  if (page) yield page;
}

/** A page's id: the write-back's, then its place (ordered). */
const pageId = (writebackId: string, seq: number) => `${writebackId}-${String(seq).padStart(7, "0")}`;

/** The pages of a write-back, in order, one at a time. */
export async function* readPages(
  store: Store,
  tesseraDb: string,
  rec: WritebackRecord,
): AsyncIterable<WritebackPage> {
  const ref = writebackPagesRef(tesseraDb);
  for (let seq = 0; seq < rec.pages; seq++) {
    const page = await store.get(ref, pageId(rec._id, seq));
    if (page) yield page as unknown as WritebackPage;
  }
}

/** Deletes a write-back's pages (after a roll-back: nothing is left to undo). */
export async function dropPages(store: Store, tesseraDb: string, rec: WritebackRecord): Promise<void> {
  const ids = Array.from({ length: rec.pages }, (_, seq) => pageId(rec._id, seq));
  await store.discard(writebackPagesRef(tesseraDb), ids);
}

/**
 * Renews the lease of a record held by `holder` (in `holderField`) every third of `leaseMs`; `lost`
 * turns true once someone else took it over (this process stalled past it).
 */
export function keepLease(
  store: Store,
  ref: CollectionRef,
  id: string,
  holderField: string,
  holder: string,
  leaseMs: number,
): { stop(): void; readonly lost: boolean } {
  let lost = false;
  const timer = setInterval(() => {
    const lease_until = new Date(Date.now() + leaseMs).toISOString();
    store.compareAndSet(ref, id, { [holderField]: holder }, { lease_until }).then(
      (doc) => void (lost ||= doc === null),
      () => {}, // the store is down: the next beat tries again
    );
  }, Math.max(50, leaseMs / 3));
  return {
    stop: () => clearInterval(timer),
    get lost() {
      return lost;
    },
  };
}

/** The lease's end, `leaseMs` from now. */
export const leaseFromNow = (leaseMs: number) => new Date(Date.now() + leaseMs).toISOString();

/** How long a write-back's or an undo's hold lasts unrenewed: the lease imports have (IMPORT_LEASE_SECONDS). */
export const writebackLeaseMs = (config: { IMPORT_LEASE_SECONDS: number }) =>
  config.IMPORT_LEASE_SECONDS * 1000;

/** The log entry of a decision on write-back `rec` (itself, or its undo). */
export function writebackEntry(
  kind: DecisionKind,
  by: Decider,
  rec: WritebackRecord,
  counts: Record<string, number>,
  facts: Record<string, unknown>,
): DecisionEntry {
  const { task, collection: dataset, database, run_id, _id: writeback_id, field } = rec;
  return newEntry(kind, by, { task, dataset, database, run_id, writeback_id, field, counts, facts });
}
