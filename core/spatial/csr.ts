/**
 * Compressed lists (one buffer, list k at `start[k] .. start[k + 1]`) made by several workers at once:
 * each counts the items it will write to each list over its part of the input, the buffer is laid out from
 * every part's counts, and each writes its items from its own next places. A list holds part 0's items,
 * then part 1's..., so parts cut in input order write every list in the order one pass would.
 */
import type { Alloc } from "../memory.ts";

/** The layout of lists of `sizes[k][l]` items from part k in list l: the buffer, starts, next places. */
export function csrLayout(sizes: Int32Array[], alloc: Alloc) {
  const L = sizes[0].length, next = sizes.map(() => new Int32Array(L));
  const start = new Int32Array(L + 1);
  let at = 0;
  for (let l = 0; l < L; l++) {
    start[l] = at;
    for (let k = 0; k < sizes.length; k++) (next[k][l] = at, at += sizes[k][l]);
  }
  start[L] = at;
  return { all: new Int32Array(alloc(4 * at)), start, next };
}

/** Where to cut items of these weights into `parts` consecutive runs of about the same total weight. */
export function balancedCuts(weights: ArrayLike<number>, parts: number): number[] {
  let total = 0;
  for (let j = 0; j < weights.length; j++) total += weights[j];
  const cuts = [0];
  for (let j = 0, seen = 0; j < weights.length && cuts.length < parts; j++) {
    seen += weights[j];
    if (seen >= (total * cuts.length) / parts) cuts.push(j + 1);
  }
  while (cuts.length < parts) cuts.push(weights.length);
  cuts.push(weights.length);
  return cuts;
}
