/**
 * The import journal: what makes an import crash-safe. An import holds its dataset's name by a head
 * document (`imports`, id = the dataset name, so one import per name at a time) leased like a cleaning
 * job: the importer renews the lease while it works, and a process that dies stops renewing. Before each
 * batch of rows is written, the ids it will write are logged (`import_chunks`, write-ahead, as runs of
 * consecutive ids, so a batch of 1,000 new rows costs one small document); a replacing import first logs
 * the ids of the rows it replaces.
 *
 * An import that dies is finished (import_recovery.ts) by whoever meets its expired lease first: the next import of the name,
 * the start of a Tessera instance (`recoverImports`, which waits out a lease still running) or an instance's
 * periodic sweep (`startImportRecovery`). While its head says `writing`, it is rolled back: every logged id
 * is deleted, a first import's reservation of the name is released, an existing dataset gets a new
 * generation (a run may have read the rows meanwhile). Once its head says `committing` (every row is in;
 * the registry record to write is in the head), it is completed instead: the replaced rows are deleted and
 * the record is written. Both are idempotent, so a recovery that dies is simply done again. The move to
 * `committing` queues the import's decision-log entry in the head (a delete's move to `deleting` queues
 * its own): a rolled-back import is never logged, a completed one always is.
 */
import { type CollectionRef, DuplicateIdError, type Store } from "../../store/store.ts";
import { ConflictError } from "../../core/errors.ts";
import { type DatasetRecord, findDataset } from "./registry.ts";
import {
  encodeIds,
  type IdChunk,
  importChunksRef,
  type ImportHead,
  type ImportMode,
  importsRef,
  iso,
  processName,
} from "./import_log.ts";
import { logRecovered, recoverHead, removeJournal } from "./import_recovery.ts";
import type { DecisionEntry } from "../decisions/entry.ts";
import { decideOn } from "../decisions/outbox.ts";

/** Ids logged per chunk: well under the embedded store's 64 KiB even when none form a run. */
const CHUNK_IDS = 1000;
/**
 * The journal of one import (or of the recovery of one): holds the name's head, renews its lease on a
 * timer, logs ids before they are written. `lost` turns true once another process took the lease over
 * (this one stalled past it): the holder must stop writing.
 */
export class ImportJournal {
  lost = false;
  private timer: ReturnType<typeof setInterval> | null = null;
  private seq = { new: 0, old: 0 };

  private constructor(
    readonly store: Store,
    readonly tesseraDb: string,
    public head: ImportHead,
    readonly leaseMs: number,
  ) {}

  /**
   * Takes the name `target.collection` for an import: a head is inserted, or, when one exists and its lease
   * has expired, that dead import is recovered first. A live import of the name is a 409.
   */
  static async begin(
    store: Store,
    tesseraDb: string,
    target: CollectionRef,
    mode: ImportMode,
    leaseMs: number,
  ): Promise<ImportJournal> {
    const token = crypto.randomUUID();
    for (;;) {
      const now = Date.now();
      const head: ImportHead = {
        _id: target.collection,
        token,
        holder: token,
        owner: processName(),
        database: target.db,
        collection: target.collection,
        mode,
        state: "writing",
        started_at: iso(now),
        lease_expires_at: iso(now + leaseMs),
        record: null,
      };
      try {
        await store.insertMany(importsRef(tesseraDb), [head]);
        const journal = new ImportJournal(store, tesseraDb, head, leaseMs);
        journal.keepAlive();
        return journal;
      } catch (e) {
        if (!(e instanceof DuplicateIdError)) throw e;
      }
      const other = (await store.get(importsRef(tesseraDb), target.collection)) as ImportHead | null;
      if (!other) continue; // it finished meanwhile
      if (Date.parse(other.lease_expires_at) > Date.now()) {
        const rec = await findDataset(store, tesseraDb, target.collection);
        throw runningConflict(other, rec?.importing === true); // a reservation made under that head
      }
      const done = await recoverHead(store, tesseraDb, other, leaseMs);
      if (done) logRecovered(done);
    }
  }

  /** Renews the lease every third of it; a renewal refused means the lease was taken over. */
  private keepAlive(): void {
    this.timer = setInterval(() => this.renew().catch(() => {}), Math.max(20, this.leaseMs / 3));
  }

  /** Extends the lease while this journal holds it (false, and `lost`, once it does not). */
  async renew(set: Partial<ImportHead> = {}): Promise<boolean> {
    if (this.lost) return false;
    const next = { ...set, lease_expires_at: iso(Date.now() + this.leaseMs) };
    const ok = await this.store.compareAndSet(importsRef(this.tesseraDb), this.head._id, {
      holder: this.head.holder,
    }, next);
    if (!ok) this.lost = true;
    else this.head = ok as ImportHead;
    return !!ok;
  }

  /** Throws when the lease was lost: the import stalled so long that another process rolled it back. */
  checkHeld(): void {
    if (this.lost) {
      throw new ConflictError(
        `the import into '${this.head.collection}' stalled for longer than its lease ` +
          `(${this.leaseMs / 1000} s, IMPORT_LEASE_SECONDS) and was rolled back by another process`,
      );
    }
  }

  /**
   * Logs ids before they are written: `new` rows of this import, or `old` rows a replace deletes. The
   * lease is renewed first, so an importer that lost it writes no further batch.
   */
  async log(kind: "new" | "old", ids: readonly string[]): Promise<void> {
    if (!await this.renew()) this.checkHeld();
    for (let i = 0; i < ids.length; i += CHUNK_IDS) {
      const seq = this.seq[kind]++;
      const chunk: IdChunk = {
        _id: `${this.head.token}.${kind}.${seq}`,
        token: this.head.token,
        kind,
        seq,
        ids: encodeIds(ids.slice(i, i + CHUNK_IDS)),
      };
      await this.store.put(importChunksRef(this.tesseraDb), chunk);
    }
  }

  /**
   * Every row is in: from here the import is completed, never rolled back. The head takes the record to
   * write (a record too large for the store fails here, while the import can still be rolled back), the
   * rows it will hold when the importer knows them (else they are counted then: on the embedded store,
   * a count reads every document), and the import's log entry, in the same compare-and-set: an import
   * is logged exactly when it is kept.
   */
  async commit(record: DatasetRecord, rows: number | undefined, entry: DecisionEntry): Promise<void> {
    this.checkHeld();
    const known = rows === undefined ? {} : { rows };
    await this.decide({ state: "committing", record, ...known }, entry);
  }

  /**
   * A delete of the dataset is decided: the head says `deleting` and queues the delete's log entry, in
   * one compare-and-set; from here a dead delete is finished by a recovery, never undone.
   */
  async decideDelete(entry: DecisionEntry): Promise<void> {
    this.checkHeld();
    await this.decide({ state: "deleting" }, entry);
  }

  /** Moves the head on while this journal holds it, queuing `entry` in the same write (outbox.ts). */
  private async decide(set: Partial<ImportHead>, entry: DecisionEntry): Promise<void> {
    const ref = importsRef(this.tesseraDb);
    const lease = () => ({ lease_expires_at: iso(Date.now() + this.leaseMs) });
    const done = await decideOn(this.store, this.tesseraDb, ref, this.head._id, {
      holder: this.head.holder,
    }, () => ({ set: { ...set, ...lease() }, entry }));
    if (!done) this.lost = true;
    this.checkHeld();
    this.head = done as ImportHead;
  }

  /** Stops renewing the lease (the import ended, or failed and leaves its rollback to a recovery). */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Removes the journal of an import that ended (committed, or rolled back here). */
  async remove(): Promise<void> {
    this.close();
    if (this.lost) return;
    await removeJournal(this.store, this.tesseraDb, this.head);
  }
}

/** The 409 for a name whose import is running (`first`: the dataset's first import). */
function runningConflict(head: ImportHead, first: boolean): ConflictError {
  const what = head.state === "deleting"
    ? "a delete"
    : first
    ? "the first import"
    : `an import (mode ${head.mode})`;
  return new ConflictError(
    `${what} of '${head.collection}' into '${head.database}' is still running (since ${head.started_at}); ` +
      "try again when it has finished",
  );
}
