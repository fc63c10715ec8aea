/**
 * Which individuals a distribution map draws. Sampling picks positions only: the statistics are computed
 * on every individual before any map is drawn, so nothing here can change an audit's numbers.
 */
import { Rng } from "../../random.ts";

/** Default cap on drawn individuals (notes: "at most 10,000 sampled unless full_distribution"). */
export const MAX_DRAWN = 10_000;

/**
 * Ascending distinct positions in [0, n), min(n, max) of them, chosen uniformly with a seed, so a map is
 * readable and small and the same request draws the same dots. Floyd's algorithm, its choices marked in a
 * byte per position and read back in order: no hashing and no sort (a Set and a sort held the event loop
 * right after a mitigation's solver; this does not).
 */
export function samplePoints(n: number, max: number = MAX_DRAWN, seed = 42): Int32Array {
  const count = Math.max(0, Math.min(Math.floor(n), Math.floor(max)));
  if (count >= n) return Int32Array.from({ length: Math.max(0, Math.floor(n)) }, (_, i) => i);
  const rng = new Rng(seed);
  const chosen = new Uint8Array(n);
  for (let j = n - count; j < n; j++) {
    const t = rng.int(j + 1);
    chosen[chosen[t] ? j : t] = 1;
  }
  const out = new Int32Array(count);
  for (let i = 0, k = 0; k < count; i++) if (chosen[i]) out[k++] = i;
  return out;
}
