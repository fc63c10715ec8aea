import assert from "node:assert/strict";
import { LimitError } from "../../core/errors.ts";
import fc from "fast-check";
import { SplitArena } from "../../core/learn/tree_split_wasm.ts";
import { evaluateTrees } from "../../core/learn/forest.ts";
import { growTree, TreeScratch } from "../../core/learn/tree.ts";
import { Rng } from "../../core/random.ts";

const OPTS = { maxFeatures: 1, randomThresholds: true };
import { binFeatures, BOOST_BINS, coarsen, treeBins } from "../../core/learn/binning.ts";

Deno.test("split count in WebAssembly: rows with bin ≤ l and the ones among them, as counted one by one", () => {
  const n = 600;
  const arena = new SplitArena(n, 0, 1, 2);
  const into = new Float64Array(2);
  fc.assert(
    fc.property(
      // Bins over the whole u16 range (above 32,767 a signed compare would put them left), any start
      // and length (unaligned starts, SIMD body, scalar tail), thresholds at and past the ends.
      fc.array(fc.tuple(fc.integer({ min: 0, max: 65535 }), fc.integer({ min: 0, max: 1 })), {
        minLength: 1,
        maxLength: n,
        size: "max", // lengths up to n, not the few rows of fast-check's default size
      }),
      fc.nat(),
      fc.nat(),
      fc.oneof(fc.integer({ min: 0, max: 65535 }), fc.constantFrom(0, 32767, 32768, 65534, 65535)),
      fc.integer({ min: 0, max: 1 }),
      (rows, s, e, l, slot) => {
        const g = arena.bins[slot];
        rows.forEach(([bin, y], k) => {
          g[k] = bin;
          arena.ys[k] = y;
        });
        const a = s % rows.length, b = a + (e % (rows.length - a + 1));
        let left = 0, ones = 0;
        for (let k = a; k < b; k++) {
          if (g[k] <= l) {
            left++;
            ones += arena.ys[k];
          }
        }
        arena.countLeft(g, a, b, l, into);
        return into[0] === left - ones && into[1] === ones;
      },
    ),
    { numRuns: 400 },
  );
});

Deno.test("node rows in WebAssembly: gathers and the stable partition match the plain definitions", () => {
  fc.assert(
    fc.property(
      // p from 1 to 20 (rows padded to whole SIMD words), a sample of distinct positions or repeats.
      fc.integer({ min: 1, max: 20 }),
      fc.array(fc.integer({ min: 0, max: 65535 }), { minLength: 20, maxLength: 20 * 60, size: "max" }),
      fc.array(fc.nat(), { minLength: 1, maxLength: 80, size: "max" }),
      fc.nat(),
      fc.nat(),
      fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 0, max: 65535 }),
      (p, values, picks, s, e, fsRaw, count, t) => {
        const n = Math.floor(values.length / p);
        if (n === 0) return true;
        // The rows to predict: the same values read backwards.
        const arena = new SplitArena(n, n, p, 5);
        arena.fine.set(values.slice(0, n * p));
        arena.evalFine.set(values.slice(0, n * p).reverse());
        const m = Math.min(picks.length, n);
        const sample = picks.slice(0, m).map((v) => v % n);
        arena.fillRows(Uint32Array.from(sample), Float64Array.from(sample, (r) => 1 + (r % 5)));
        sample.forEach((r, k) => (arena.ys[k] = r % 2));
        assert.deepEqual(Array.from(arena.evalIdx), Array.from({ length: n }, (_, e) => e));
        const a = s % m, b = a + (e % (m - a + 1));
        const bin = (k: number, f: number) => arena.fine[arena.idx[k] * p + f];
        const fs = Int32Array.from(fsRaw, (f) => f % p);
        // gather and gatherFour: the bins of each row in the node, and their least and greatest.
        const range = Array.from(arena.gather(fs[0], a, b, arena.bins[4]).subarray(0, 2));
        for (let k = a; k < b; k++) assert.equal(arena.bins[4][k], bin(k, fs[0]));
        if (b > a) {
          const node = Array.from({ length: b - a }, (_, i) => bin(a + i, fs[0]));
          assert.deepEqual(range, [Math.min(...node), Math.max(...node)]);
        }
        const four = Array.from(arena.gatherFour(fs, 0, count, a, b, arena.bins.slice(0, 4)));
        for (let j = 0; j < 4; j++) {
          const f = fs[Math.min(j, count - 1)];
          for (let k = a; k < b; k++) assert.equal(arena.bins[j][k], bin(k, f));
          if (b > a) {
            const node = Array.from({ length: b - a }, (_, i) => bin(a + i, f));
            assert.deepEqual(four.slice(2 * j, 2 * j + 2), [Math.min(...node), Math.max(...node)]);
          }
        }
        // The partition by feature fs[0]'s bins: left rows in order, then right rows in order; the
        // node-ordered bins follow (a gather afterwards reads the moved rows).
        const stable = (before: number[], left: (r: number) => boolean) => [
          ...before.filter(left),
          ...before.filter((r) => !left(r)),
        ];
        const f0 = fs[0];
        const want = stable(Array.from(arena.idx.subarray(a, b)), (r) => arena.fine[r * p + f0] <= t);
        const i = arena.partition(f0, t, a, b, false, true);
        assert.equal(i, a + want.filter((r) => arena.fine[r * p + f0] <= t).length);
        assert.deepEqual(Array.from(arena.idx.subarray(a, b)), want);
        assert.deepEqual(Array.from(arena.ys.subarray(a, b)), want.map((r) => r % 2));
        assert.deepEqual(Array.from(arena.ws.subarray(a, b)), want.map((r) => 1 + (r % 5)));
        for (let f = 0; f < p; f++) {
          arena.gather(f, a, b, arena.bins[0]);
          for (let k = a; k < b; k++) assert.equal(arena.bins[0][k], bin(k, f));
        }
        // The rows to predict, the same way (their own bins).
        const wantEval = stable(
          Array.from(arena.evalIdx.subarray(a, b)),
          (e) => arena.evalFine[e * p + f0] <= t,
        );
        const ei = arena.partition(f0, t, a, b, true, false);
        assert.deepEqual(Array.from(arena.evalIdx.subarray(a, b)), wantEval);
        assert.equal(ei, a + wantEval.filter((e) => arena.evalFine[e * p + f0] <= t).length);
        return true;
      },
    ),
    { numRuns: 300 },
  );
});

/**
 * The exact split by definition: each boundary between distinct bins, its left weights summed anew
 * (integers here: exact), scored Σ left² / nLeft + Σ right² / nRight; the first of the highest wins.
 * [score, left0, left1, prev, next], or null when all bins are one.
 */
function bestByDefinition(bins: number[], ys: number[], ws: number[]): number[] | null {
  let t0 = 0, t1 = 0;
  bins.forEach((_, k) => ys[k] ? (t1 += ws[k]) : (t0 += ws[k]));
  const distinct = [...new Set(bins)].sort((x, z) => x - z);
  let best: number[] | null = null;
  for (let j = 0; j + 1 < distinct.length; j++) {
    let l0 = 0, l1 = 0;
    bins.forEach((bin, k) => {
      if (bin <= distinct[j]) ys[k] ? (l1 += ws[k]) : (l0 += ws[k]);
    });
    const r0 = t0 - l0, r1 = t1 - l1, nLeft = l0 + l1;
    const sc = (l0 * l0 + l1 * l1) / nLeft + (r0 * r0 + r1 * r1) / (t0 + t1 - nLeft);
    if (!best || sc > best[0]) best = [sc, l0, l1, distinct[j], distinct[j + 1]];
  }
  return best;
}

Deno.test("exact splits in WebAssembly (sorted, from a histogram, over coarse bins): the first best boundary, as by definition", () => {
  const arena = new SplitArena(1024, 0, 1, 1, 65536);
  const g = arena.bins[0];
  const found = () => [...arena.split, ...arena.splitBins];
  fc.assert(
    fc.property(
      // Rows of (bin, class, bootstrap count): bins of any value, few distinct ones (ties within a bin,
      // one high byte) or ones sharing their low byte (the radix sort skips a shared byte), nodes on
      // both sides of the insertion sort's 64 rows, at any offset.
      fc.array(
        fc.tuple(
          fc.integer({ min: 0, max: 65535 }),
          fc.integer({ min: 0, max: 1 }),
          fc.integer({ min: 1, max: 4 }),
        ),
        { minLength: 2, maxLength: 300, size: "max" }, // past 64 rows: the radix sort
      ),
      fc.integer({ min: 0, max: 700 }),
      fc.constantFrom("any", "few", "low byte shared", "all but one share the low byte"),
      (rows, a, kind) => {
        const b = a + rows.length;
        // The last of "all but one": low byte 0 under row 0's high byte, the others' low byte 1, so
        // it sorts first among the rows of that high byte though it comes last.
        const bins = rows.map(([bin], k) =>
          kind === "few"
            ? bin % 7
            : kind === "any"
            ? bin
            : kind === "low byte shared"
            ? bin & 0xff00
            : k < rows.length - 1
            ? (bin & 0xff00) | 1
            : rows[0][0] & 0xff00
        );
        const ys = rows.map(([, y]) => y);
        const ws = rows.map(([, , w]) => w);
        // The node is rows [a, b) of the arena: positions 0..1023 in order, coarse bins the fine
        // ones' low byte.
        arena.fillRows(Uint32Array.from({ length: 1024 }, (_, k) => k), new Float64Array(1024).fill(1));
        rows.forEach((_, k) => {
          g[a + k] = bins[k];
          arena.ys[a + k] = ys[k];
          arena.ws[a + k] = ws[k];
          arena.coarse[a + k] = bins[k] & 255;
        });
        let t0 = 0, t1 = 0;
        rows.forEach(([, y, w]) => y ? (t1 += w) : (t0 += w));
        const best = bestByDefinition(bins, ys, ws);
        arena.node(t0, t1, t0 + t1);
        assert.equal(arena.sortedSplit(g, a, b), best !== null);
        if (best) assert.deepEqual(found(), best);
        const lo = Math.min(...bins), hi = Math.max(...bins);
        if (lo < hi) {
          assert.equal(arena.histogramSplit(g, a, b, lo, hi), best !== null);
          if (best) assert.deepEqual(found(), best);
        }
        const low = bins.map((bin) => bin & 255), coarseBest = bestByDefinition(low, ys, ws);
        assert.equal(arena.coarseSplit(0, a, b), coarseBest ? 1 : 2);
        if (coarseBest) assert.deepEqual(found(), coarseBest);
        return true;
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("split arena: the memory is the latest arena's, and a tree refuses to grow on an older one", () => {
  const older = new SplitArena(10, 10, 1, 1);
  const x = Float64Array.from([0, 1, 2, 3, 4, 5, 6, 7]);
  const y = Int32Array.from([0, 0, 0, 0, 1, 1, 1, 1]);
  const train = Uint32Array.from(y.keys());
  const data = binFeatures<Uint16Array>([x], train, treeBins(2));
  const set = { data, coarse: coarsen(data, train, BOOST_BINS), y, classes: 2 };
  const scratch = new TreeScratch(set, train, train);
  assert.equal(older.current, false);
  assert.equal(scratch.arena.current, true);
  // A fit makes its own scratch: the one above is no longer current and growing on it throws.
  const { proba } = evaluateTrees(set, "extra_trees", train, train, 1);
  assert.equal(proba[1], 0); // row 0 (x = 0) is class 0 in every fully grown tree
  assert.equal(scratch.arena.current, false);
  const sample = { idx: train.slice(), w: new Float64Array(8).fill(1), weighted: false };
  assert.throws(
    () =>
      growTree(
        set,
        sample,
        new Float64Array(16),
        new Float64Array(1),
        OPTS,
        new Rng(1),
        scratch,
      ),
    /newer one took the WebAssembly memory/,
  );
});

Deno.test("split arena: a training split too big for WebAssembly memory is a LimitError naming the need", () => {
  // 20 million rows of 100 features: far past the 4 GB a module can address.
  assert.throws(() => new SplitArena(20_000_000, 0, 100, 5), (e: Error) => {
    assert.ok(e instanceof LimitError);
    assert.match(e.message, /20000000 rows of 100 features needs \d+ MB of WebAssembly memory/);
    return true;
  });
  // The module still works afterwards.
  const arena = new SplitArena(16, 0, 1, 1);
  arena.bins[0].set([1, 2, 3]);
  arena.ys.set([1, 0, 1]);
  const into = new Float64Array(2);
  arena.countLeft(arena.bins[0], 0, 3, 2, into);
  assert.deepEqual(Array.from(into), [1, 1]);
});
