/**
 * A spatial write-back as a journaled step: its record is held by a lease while it writes; before each
 * batch of values goes into the collection, the values they replace go into its pages (write-ahead). A
 * write-back that fails is rolled back at once; one whose process died is rolled back by whoever meets
 * its lease run out (writeback_recovery.ts). It ends by a compare-and-set that marks it done and queues
 * its decision log entry in the same write, so the log holds a write-back exactly when it happened.
 */
import type { CollectionRef, Store } from "../../store/store.ts";
import type { Decider } from "../decisions/entry.ts";
import { decideOn } from "../decisions/outbox.ts";
import {
  dropPages,
  keepLease,
  leaseFromNow,
  pagesOf,
  writebackEntry,
  writebackPagesRef,
  type WritebackRecord,
  writebacksRef,
} from "./writeback_log.ts";
import { restorePages } from "./writeback_restore.ts";
import { newId } from "../../store/ids.ts";
import { ConflictError } from "../../core/errors.ts";

const BATCH = 1000;

/** One prediction to write: a document's id and its value. */
export interface Line {
  doc_id: string;
  y_pred: number;
}

/** What one write-back did: documents matched and changed, ids not found. */
export interface WritebackTotals {
  matched: number;
  modified: number;
  not_found: string[];
}

/** What a journaled write-back is about. */
export interface WritebackSubject {
  task: string;
  target: CollectionRef;
  field: string;
  runId: string | null;
  who: Decider;
  facts: Record<string, unknown>;
}

/** The field's value in each document before the write-back: its value, or null when absent. */
export type Before = Map<string, { value: unknown } | null>;

export class WritebackJournal {
  private pages = 0;
  private constructor(
    readonly store: Store,
    readonly tesseraDb: string,
    readonly rec: WritebackRecord,
    private lease: { stop(): void; readonly lost: boolean },
  ) {}

  /** Records a write-back as writing, held by this process. */
  static async begin(store: Store, tesseraDb: string, s: WritebackSubject, leaseMs: number) {
    const holder = crypto.randomUUID();
    const rec: WritebackRecord = {
      _id: newId(),
      task: s.task,
      database: s.target.db,
      collection: s.target.collection,
      field: s.field,
      run_id: s.runId,
      by: s.who,
      started_at: new Date().toISOString(),
      state: "writing",
      holder,
      lease_until: leaseFromNow(leaseMs),
      pages: 0,
      undo: null,
      undo_state: null,
      undo_holder: null,
      facts: s.facts,
    };
    await store.insertMany(writebacksRef(tesseraDb), [{ ...rec }], { fresh: new Set([rec._id]) });
    const lease = keepLease(store, writebacksRef(tesseraDb), rec._id, "holder", holder, leaseMs);
    return new WritebackJournal(store, tesseraDb, rec, lease);
  }

  /** Writes the lines in batches, each after the values it replaces are in the pages. */
  async write(parts: AsyncIterable<Line[]>, before: Before): Promise<WritebackTotals> {
    const { store, rec } = this;
    const target = { db: rec.database, collection: rec.collection };
    const total: WritebackTotals = { matched: 0, modified: 0, not_found: [] };
    for await (const lines of parts) {
      for (let i = 0; i < lines.length; i += BATCH) {
        const part = lines.slice(i, i + BATCH);
        if (this.lease.lost) throw this.lostError();
        await this.log(part, before);
        const r = await store.updateFields(
          target,
          part.map((p) => ({ id: p.doc_id, set: { [rec.field]: p.y_pred } })),
        );
        total.matched += r.matched;
        total.modified += r.modified;
        total.not_found.push(...r.missing);
      }
    }
    return total;
  }

  /** Logs a batch's previous values (documents not found have none: nothing to restore there). */
  private async log(part: Line[], before: Before) {
    const lines = part.filter((p) => before.has(p.doc_id))
      .map((p) => ({ id: p.doc_id, written: p.y_pred, previous: before.get(p.doc_id)! }));
    const pages = [...pagesOf(this.rec._id, this.pages, lines)];
    if (!pages.length) return;
    // the count first: a crash between the two leaves a page counted but absent, which reads as none
    const count = this.pages + pages.length;
    const ref = writebacksRef(this.tesseraDb);
    if (!await this.store.compareAndSet(ref, this.rec._id, { holder: this.rec.holder }, { pages: count })) {
      throw this.lostError();
    }
    await this.store.insertMany(writebackPagesRef(this.tesseraDb), pages.map((p) => ({ ...p })));
    this.pages = count;
  }

  /** Marks the write-back done and logs it, in one write; the record as it ends. */
  async commit(total: WritebackTotals, entryFacts: Record<string, unknown>): Promise<WritebackRecord> {
    this.lease.stop();
    const { rec } = this;
    const written_at = new Date().toISOString();
    const done = await decideOn(this.store, this.tesseraDb, writebacksRef(this.tesseraDb), rec._id, {
      holder: rec.holder,
    }, () => ({
      set: {
        state: "done",
        holder: null,
        lease_until: null,
        matched: total.matched,
        modified: total.modified,
        not_found: total.not_found.length,
        written_at,
      },
      entry: writebackEntry("writeback", rec.by, rec, {
        matched: total.matched,
        modified: total.modified,
        not_found: total.not_found.length,
      }, { ...rec.facts, ...entryFacts }),
    }));
    if (!done) throw this.lostError();
    return done as unknown as WritebackRecord;
  }

  /** Undoes what was written (a failure, not a crash): the collection is as it was; then forgets it. */
  async rollBack(): Promise<void> {
    this.lease.stop();
    const rec = { ...this.rec, pages: this.pages };
    await restorePages(this.store, this.tesseraDb, rec);
    await this.store.compareAndSet(writebacksRef(this.tesseraDb), rec._id, { holder: rec.holder }, {
      state: "rolled_back",
      holder: null,
      lease_until: null,
    });
    await dropPages(this.store, this.tesseraDb, rec);
  }

  /** Stops renewing the lease without ending anything: what a process that dies leaves (tests). */
  crash(): void {
    this.lease.stop();
  }

  private lostError() {
    return new ConflictError(
      `write-back '${this.rec._id}' stalled past its lease and was rolled back by another process; send it again`,
    );
  }
}
