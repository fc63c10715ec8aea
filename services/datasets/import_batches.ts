/** The batches an import writes, and the ids it has written (kept as runs until the import ends). */
import { type CollectionRef, type Doc, type Store } from "../../store/store.ts";
import { type EncodedIds, encodeIds, expandIds } from "./import_log.ts";

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
