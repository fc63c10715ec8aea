/**
 * A collection's document ids by position, as a list or packed: a million ids as a million strings on the
 * event loop's heap cost every collection that marks or moves them (a scavenge while they were made held
 * the loop 45-70 ms; a full collection marks them all, 35-70 ms), so a read in a worker packs them into a
 * few long strings and where each id ends, and an id is cut out of its piece when a line needs it.
 * Packed ids are plain data: they cross to a worker as they are, and `docIdAt` reads either form.
 */

/** Ids packed `per` to a piece: id i is in pieces[i / per], ending at ends[i] (its start: the end before). */
export interface PackedIds {
  readonly per: number;
  readonly pieces: readonly string[];
  readonly ends: Int32Array;
}

/** Document ids by position: as read (a list), or packed (`packIds`). */
export type DocIds = readonly string[] | PackedIds;

/** Ids a piece holds: ~200 KB pieces for ids of ~24 characters. */
const PER_PIECE = 8192;

const isPacked = (ids: DocIds): ids is PackedIds => !Array.isArray(ids);

/** `ids` packed (see the module comment). */
export function packIds(ids: readonly string[], per = PER_PIECE): PackedIds {
  const ends = new Int32Array(ids.length), pieces: string[] = [];
  for (let from = 0; from < ids.length; from += per) {
    const to = Math.min(ids.length, from + per);
    let at = 0;
    for (let i = from; i < to; i++) ends[i] = at += ids[i].length;
    pieces.push(ids.slice(from, to).join(""));
  }
  return { per, pieces, ends };
}

/** How many ids there are. */
export function docIdCount(ids: DocIds): number {
  return isPacked(ids) ? ids.ends.length : ids.length;
}

/** The id at position `i`, or undefined beyond the last. */
export function docIdAt(ids: DocIds, i: number): string | undefined {
  if (!isPacked(ids)) return ids[i];
  if (!(i >= 0 && i < ids.ends.length)) return undefined;
  return docIdIn(ids, i, span).slice(span[0], span[1]);
}

/** Where docIdAt finds an id in its piece. */
const span = new Int32Array(2);

/**
 * The string that holds the id at position `i` (0 <= i < count), with where in it the id starts and ends
 * written to `span`: what a writer copies the id from without cutting it out (docIdAt).
 */
export function docIdIn(ids: DocIds, i: number, span: Int32Array): string {
  if (!isPacked(ids)) {
    span[0] = 0;
    span[1] = ids[i].length;
    return ids[i];
  }
  span[0] = i % ids.per === 0 ? 0 : ids.ends[i - 1];
  span[1] = ids.ends[i];
  return ids.pieces[Math.floor(i / ids.per)];
}

/** Bytes the ids take in memory, about: 40 a string beyond its characters listed, 4 an id packed. */
export function docIdsBytes(ids: DocIds): number {
  if (!isPacked(ids)) return ids.reduce((sum, id) => sum + 40 + id.length, 0);
  return ids.ends.byteLength + ids.pieces.reduce((sum, piece) => sum + 2 * piece.length + 40, 0);
}
