/** The batches an import writes, and the ids it has written (kept as runs until the import ends). */
import { type CollectionRef, type Doc, type Store } from "../../store/store.ts";
import { type EncodedIds, encodeIds, expandIds } from "./import_log.ts";
import type { ImportJournal } from "./import_journal.ts";

/** The batch being written: its documents, the ids made here and logged, and where each record came from. */
export interface Pending {
  docs: Doc[];
  fresh: Set<string>;
  /** The ids logged in the journal: those made here and the records' own ids that did not exist yet. */
  logged: string[];
  places: string[];
}

export const emptyBatch = (): Pending => ({ docs: [], fresh: new Set(), logged: [], places: [] });

/** A batch the store failed on, and its failure. */
export interface Failed {
  batch: Pending;
  error: unknown;
}

/**
 * The ids an import has written, batch by batch, kept as runs (`encodeIds`: a batch of ids made here is
 * one string), so a million rows' ids are not a million strings on the heap until the import ends.
 */
export class WrittenIds {
  private batches: EncodedIds[] = [];
  length = 0;

  add(ids: string[]): void {
    this.batches.push(encodeIds(ids));
    this.length += ids.length;
  }

  /** The ids, a batch at a time. */
  *chunks(): Generator<string[]> {
    for (const b of this.batches) yield expandIds(b);
  }
}

/**
 * The ids of a batch to log before writing it: every id made here, and the records' own ids. A record's
 * own id that exists already is left out (the store refuses it, and a recovery must not delete the
 * document that has it); that is looked up only when the collection held documents at the start.
 */
export async function loggable(store: Store, target: CollectionRef, batch: Pending, occupied: boolean) {
  const ids = batch.docs.map((d) => d._id);
  if (!occupied || batch.fresh.size === ids.length) return ids;
  const own = ids.filter((id) => !batch.fresh.has(id));
  const taken = new Set<string>();
  for (let i = 0; i < own.length; i += 32) {
    const part = own.slice(i, i + 32);
    const found = await Promise.all(part.map((id) => store.get(target, id)));
    found.forEach((d, j) => d && taken.add(part[j]));
  }
  return ids.filter((id) => !taken.has(id));
}

/**
 * Batches being written at once, while the next is read and parsed. Two, but their rows go into the
 * store one batch after the other: a batch logs its ids in the journal (a renewal of the lease and a
 * chunk: three round trips to the store) while the one before is inserted, and inserts its rows once
 * that one has ended. With one, those round trips came between every two batches' rows (slower:
 * bench/import_bench.ts). The rows never overlap: the embedded store extends its pack (store/kv_pack.ts)
 * only while no other write to the collection lands between a batch's commits, and two inserts at once
 * left the collection unpacked (the first audit after read documents, not pages, several times slower;
 * tests/services/datasets/import_pack_test.ts).
 */
const WRITES_IN_FLIGHT = 2;

/**
 * An import's writes: each batch write-ahead (its ids into the journal before its rows into the store), its
 * rows after those of the batch before, at most WRITES_IN_FLIGHT batches at once. After a batch that
 * failed, none writes its rows: that failure is the import's, and the undo deletes what was written.
 */
export class BatchWriter {
  /** The ids written so far. */
  readonly inserted = new WrittenIds();
  /** The batches the store failed on (some of their rows may be in), with their failures, for the undo. */
  readonly failed: Failed[] = [];
  /** The batches being written while the next one is read, oldest first (WRITES_IN_FLIGHT at most). */
  private writing: Promise<boolean>[] = [];
  /** Whether the batch started last wrote its rows, once it ended (true before the first). */
  private rowsBefore: Promise<boolean> = Promise.resolve(true);

  constructor(
    private store: Store,
    private target: CollectionRef,
    private journal: ImportJournal,
    private occupied: boolean,
  ) {}

  /** Writes a batch once the one before has written its rows; false when one before failed. */
  private write(batch: Pending): Promise<boolean> {
    const before = this.rowsBefore;
    const written = (async () => {
      batch.logged = await loggable(this.store, this.target, batch, this.occupied);
      await this.journal.log("new", batch.logged);
      if (!await before) return false;
      try {
        await this.store.insertMany(this.target, batch.docs, { fresh: batch.fresh });
      } catch (error) {
        this.failed.push({ batch, error });
        throw error;
      }
      this.inserted.add(batch.docs.map((d) => d._id));
      return true;
    })();
    this.rowsBefore = written.catch(() => false);
    return written;
  }

  /** Waits until at most `left` batches are being written; the oldest one's failure is thrown. */
  async settle(left: number): Promise<void> {
    while (this.writing.length > left) {
      await this.writing[0]; // a failure stays in `writing`, for the undo to wait for the others
      this.writing.shift();
    }
  }

  /**
   * Starts writing a batch, once fewer than WRITES_IN_FLIGHT are being written: the store commits it
   * while the next one is read and parsed. A batch of records bringing their own ids waits for every
   * earlier one, so a repeated id is refused at its second row, as when the batches are written one by
   * one.
   */
  async start(batch: Pending): Promise<void> {
    await this.settle(batch.fresh.size === batch.docs.length ? WRITES_IN_FLIGHT - 1 : 0);
    const w = this.write(batch);
    w.catch(() => {}); // its failure is taken by settle(), not left unhandled meanwhile
    this.writing.push(w);
  }

  /**
   * The import's failure once every batch still being written has ended (their rows are undone too): the
   * first of their failures (their rows precede any read since), else `e`.
   */
  async failure(e: unknown): Promise<unknown> {
    const outcomes = await Promise.allSettled(this.writing.splice(0));
    const first = outcomes.find((o) => o.status === "rejected");
    return first ? first.reason : e;
  }
}
