import assert from "node:assert/strict";
import fc from "fast-check";
import { SplitArena } from "../../wasm/split_loader.ts";
import { evaluateTrees } from "../../core/learn/forest.ts";
import { growTree, TreeScratch } from "../../core/learn/tree.ts";
import { Rng } from "../../core/random.ts";

const OPTS = { maxFeatures: 1, randomThresholds: true };
import { binFeatures, BOOST_BINS, coarsen, treeBins } from "../../core/learn/binning.ts";

Deno.test("split count in WebAssembly: rows with bin ≤ l and the ones among them, as counted one by one", () => {
  const n = 600;
  const arena = new SplitArena(n, 2);
  const into = new Float64Array(2);
  fc.assert(
    fc.property(
      // Bins over the whole u16 range (above 32,767 a signed compare would put them left), any start
      // and length (unaligned starts, SIMD body, scalar tail), thresholds at and past the ends.
      fc.array(fc.tuple(fc.integer({ min: 0, max: 65535 }), fc.integer({ min: 0, max: 1 })), {
        minLength: 1,
        maxLength: n,
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

Deno.test("split arena: the memory is the latest arena's, and a tree refuses to grow on an older one", () => {
  const older = new SplitArena(10, 1);
  const x = Float64Array.from([0, 1, 2, 3, 4, 5, 6, 7]);
  const y = Int32Array.from([0, 0, 0, 0, 1, 1, 1, 1]);
  const train = Uint32Array.from(y.keys());
  const data = binFeatures<Uint16Array>([x], train, treeBins(2));
  const set = { data, coarse: coarsen(data, train, BOOST_BINS), y, classes: 2 };
  const scratch = new TreeScratch(set, train);
  assert.equal(older.current, false);
  assert.equal(scratch.arena.current, true);
  // A fit makes its own scratch: the one above is no longer current and growing on it throws.
  const { proba } = evaluateTrees(set, "extra_trees", train, train, 1);
  assert.equal(proba[1], 0); // row 0 (x = 0) is class 0 in every fully grown tree
  assert.equal(scratch.arena.current, false);
  const sample = { idx: train.slice(), w: new Float64Array(8).fill(1), weighted: false };
  const order = Uint32Array.from(train);
  assert.throws(
    () =>
      growTree(
        set,
        sample,
        train,
        order,
        new Float64Array(16),
        new Float64Array(1),
        OPTS,
        new Rng(1),
        scratch,
      ),
    /newer one took the WebAssembly memory/,
  );
});
