import assert from "node:assert/strict";
import { binFeatures, BOOST_BINS, coarsen, treeBins } from "../../../core/learn/binning.ts";
import { TreeScratch } from "../../../core/learn/tree.ts";
import { FOUND } from "../../../core/learn/tree_split_search.ts";

/**
 * The best split by definition, for any number of classes: each boundary between distinct bins, its
 * left class counts summed anew, scored Σ_c left² / nLeft + Σ_c right² / nRight (integers: exact);
 * the first of the highest wins. [score, prev, next].
 */
function bestByDefinition(bins: number[], ys: number[], classes: number): number[] {
  const total = new Array(classes).fill(0);
  ys.forEach((y) => total[y]++);
  const distinct = [...new Set(bins)].sort((x, z) => x - z);
  let best = [-Infinity, -1, -1];
  for (let j = 0; j + 1 < distinct.length; j++) {
    const left = new Array(classes).fill(0);
    bins.forEach((bin, k) => bin <= distinct[j] && left[ys[k]]++);
    const nLeft = left.reduce((s, c) => s + c, 0);
    let l = 0, r = 0;
    for (let c = 0; c < classes; c++) {
      l += left[c] * left[c];
      r += (total[c] - left[c]) ** 2;
    }
    const sc = l / nLeft + r / (bins.length - nLeft);
    if (sc > best[0]) best = [sc, distinct[j], distinct[j + 1]];
  }
  return best;
}

Deno.test("split search, three classes: sorted, histogram and coarse-bin nodes find the definition's best split", () => {
  // N distinct values (one fine bin each), classes from a scrambled index; a node of m rows spread over
  // them: few rows over many bins (sorted), many rows (histogram), past 1,024 rows over many more bins
  // (the 255 coarse bins).
  for (const [N, m, coarse] of [[1000, 20, false], [1000, 500, false], [6000, 1100, true]] as const) {
    const x = Float64Array.from({ length: N }, (_, i) => i);
    const y = Int32Array.from({ length: N }, (_, i) => ((i * 7919) % 1013) % 3);
    const train = Uint32Array.from({ length: N }, (_, i) => i);
    const data = binFeatures<Uint16Array>([x], train, treeBins(3));
    const set = { data, coarse: coarsen(data, train, BOOST_BINS), y, classes: 3 };
    const s = new TreeScratch(set, train, new Uint32Array(0));
    const sample = Uint32Array.from({ length: m }, (_, k) => Math.floor((k * N) / m) + (k % 3));
    s.arena.fillRows(sample, new Float64Array(m).fill(1));
    const { search, arena } = s;
    sample.forEach((r, k) => (arena.ys[k] = y[r]));
    search.idx = arena.idx;
    search.ws = arena.ws;
    search.total.fill(0);
    sample.forEach((r) => search.total[y[r]]++);
    search.n = m;
    assert.equal(search.exact(0, 0, m), FOUND);
    assert.equal(search.inCoarse, coarse);
    const bins = Array.from(sample, (r) => (coarse ? set.coarse.bins[r] : data.bins[r]));
    const [score, prev, next] = bestByDefinition(bins, Array.from(sample, (r) => y[r]), 3);
    assert.deepEqual([search.score, search.prev, search.next], [score, prev, next], `${m} rows`);
  }
});
