/**
 * Units whose region sets differ in few regions. Moving one flip from such a unit to its neighbour
 * changes only the regions of the difference, which is how the local search (exact_local.ts) mends one
 * region's rounding residue without disturbing the hundred others a unit of a scan design sits in.
 */
import type { MitigationProblem } from "./problem.ts";

/** Bits set in a 32-bit word. */
function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Each unit's regions as a bitset (W words a unit) with the span of words it uses. */
function unitBits(pr: MitigationProblem, W: number) {
  const U = pr.unitSign.length, bits = new Int32Array(U * W);
  const lo = new Int32Array(U).fill(W), hi = new Int32Array(U);
  for (let u = 0; u < U; u++) {
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) {
      const i = pr.unitRegions[r], w = i >>> 5;
      bits[u * W + w] |= 1 << (i & 31);
      (lo[u] = Math.min(lo[u], w), hi[u] = Math.max(hi[u], w));
    }
  }
  return { bits, lo, hi };
}

/**
 * Up to K neighbours per unit, nearest first, among the units that share its least crowded region (any
 * near unit shares most of its regions, so that one), within `maxDiff` regions of difference. Units in
 * no region get none.
 */
export function unitNeighbours(pr: MitigationProblem, K: number, maxDiff: number): Int32Array[] {
  const U = pr.unitSign.length, R = pr.n.length, W = (R + 31) >>> 5;
  const { bits, lo, hi } = unitBits(pr, W);
  const crowd = new Int32Array(R + 1);
  for (let r = 0; r < pr.unitRegions.length; r++) crowd[pr.unitRegions[r] + 1]++;
  const cut = crowd.slice();
  for (let i = 0; i < R; i++) cut[i + 1] += cut[i];
  const inRegion = new Int32Array(cut[R]), fill = cut.slice(0, R);
  for (let u = 0; u < U; u++) {
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) inRegion[fill[pr.unitRegions[r]]++] = u;
  }
  const out: Int32Array[] = [], bd = new Int32Array(K), bv = new Int32Array(K);
  for (let u = 0; u < U; u++) {
    const s = pr.unitRegStart[u], e = pr.unitRegStart[u + 1];
    let least = -1;
    for (let r = s; r < e; r++) {
      const i = pr.unitRegions[r];
      if (least < 0 || crowd[i + 1] < crowd[least + 1]) least = i;
    }
    (bd.fill(maxDiff + 1), bv.fill(-1));
    for (let c = least < 0 ? 0 : cut[least]; least >= 0 && c < cut[least + 1]; c++) {
      const v = inRegion[c], cap = bd[K - 1] - 1;
      if (v === u || Math.abs(e - s - (pr.unitRegStart[v + 1] - pr.unitRegStart[v])) > cap) continue;
      let d = 0;
      for (let w = Math.min(lo[u], lo[v]), b = Math.max(hi[u], hi[v]); w <= b && d <= cap; w++) {
        d += popcount(bits[u * W + w] ^ bits[v * W + w]);
      }
      if (d === 0 || d > cap) continue; // d = 0: the unit of the other label, no region changes
      let j = K - 1; // insert (d, v) into the sorted K best
      for (; j > 0 && bd[j - 1] > d; j--) (bd[j] = bd[j - 1], bv[j] = bv[j - 1]);
      (bd[j] = d, bv[j] = v);
    }
    let m = 0;
    while (m < K && bv[m] >= 0) m++;
    out.push(bv.slice(0, m));
  }
  return out;
}
