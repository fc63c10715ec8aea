/**
 * A collection's document ids by position, as a list or packed: a million ids as a million strings on the
 * event loop's heap cost every collection that marks or moves them (a scavenge while they are made, and
 * every full collection, walks them all), so a read in a worker packs them into one
 * array of characters and where each id ends, and an id is cut out of its piece when a line needs it.
 * Packed ids are typed arrays: in shared memory they cross to the event loop and to other workers without a
 * copy (read back as long strings, a million of them still held the loop), and a piece
 * becomes a string only when a line first reads an id in it.
 */
import { type Alloc, localAlloc } from "../memory.ts";

/**
 * Ids packed `per` to a piece: every id's characters in order in `units`, piece k from starts[k] to
 * starts[k + 1]; id i is in piece i / per and ends at ends[i] within it (its start: the end before, 0 for
 * the first of a piece). Units are ASCII bytes, or UTF-16 code units where an id has any other character.
 */
export interface PackedIds {
  readonly per: number;
  readonly units: Uint8Array | Uint16Array;
  readonly starts: Float64Array;
  readonly ends: Int32Array;
}

/** Document ids by position: as read (a list), or packed (`packIds`). */
export type DocIds = readonly string[] | PackedIds;

/** Ids a piece holds: ~200 KB pieces for ids of ~24 characters. */
const PER_PIECE = 8192;

const isPacked = (ids: DocIds): ids is PackedIds => !Array.isArray(ids);

/** `ids` packed (see the module comment), their arrays from `alloc` (shared ones to post to workers). */
export function packIds(ids: readonly string[], per = PER_PIECE, alloc: Alloc = localAlloc): PackedIds {
  let total = 0, ascii = true;
  for (const id of ids) {
    total += id.length;
    for (let k = 0; ascii && k < id.length; k++) ascii = id.charCodeAt(k) < 0x80;
  }
  const units = ascii ? new Uint8Array(alloc(total)) : new Uint16Array(alloc(2 * total));
  const ends = new Int32Array(alloc(4 * ids.length));
  const starts = new Float64Array(alloc(8 * (Math.ceil(ids.length / per) + 1)));
  let at = 0;
  for (let i = 0; i < ids.length; i++) {
    if (i % per === 0) starts[i / per] = at;
    const id = ids[i];
    for (let k = 0; k < id.length; k++) units[at++] = id.charCodeAt(k);
    ends[i] = at - starts[Math.floor(i / per)];
  }
  starts[starts.length - 1] = at;
  return { per, units, starts, ends };
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
  return pieceOf(ids, Math.floor(i / ids.per));
}

/** Pieces made strings so far, per packed ids (this thread's: a string cannot be shared). */
const madePieces = new WeakMap<PackedIds, string[]>();

/** Piece `k` of `ids` as a string, made on first use. */
function pieceOf(ids: PackedIds, k: number): string {
  let made = madePieces.get(ids);
  if (!made) madePieces.set(ids, made = []);
  return made[k] ??= unitsText(ids.units.subarray(ids.starts[k], ids.starts[k + 1]));
}

const ascii = new TextDecoder();

/** The text of `units`: ASCII bytes decoded at once, UTF-16 code units (lone surrogates kept) in runs. */
function unitsText(units: Uint8Array | Uint16Array): string {
  if (units instanceof Uint8Array) return ascii.decode(units);
  const runs: string[] = [];
  for (let k = 0; k < units.length; k += 4096) {
    runs.push(String.fromCharCode(...units.subarray(k, Math.min(units.length, k + 4096))));
  }
  return runs.join("");
}

/**
 * Bytes the ids take in memory, about: listed, 40 a string beyond its characters; packed, their arrays, and
 * the pieces' strings once read (a byte a character for ASCII, two else: as much again as `units`).
 */
export function docIdsBytes(ids: DocIds): number {
  if (!isPacked(ids)) return ids.reduce((sum, id) => sum + 40 + id.length, 0);
  return 2 * ids.units.byteLength + ids.ends.byteLength + ids.starts.byteLength;
}
