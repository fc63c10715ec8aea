/**
 * Nested regions as differences (approx_chains.ts): pred by hand and against brute force over member
 * sets, and the transform against the dense products L·A, L·b and Lᵀ·y computed here row by row.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { approxRows } from "../../../../core/spatial/mitigate/approx_bound.ts";
import {
  chainColumns,
  chainsOf,
  chainVector,
  unchainDuals,
} from "../../../../core/spatial/mitigate/approx_chains.ts";
import { slackColumns, unitColumns } from "../../../../core/spatial/mitigate/approx_model.ts";
import { buildProblem } from "../../../../core/spatial/mitigate/problem.ts";
import { regionsOf } from "./fixtures.ts";

const LABELS = Uint8Array.from([1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1]);

Deno.test("chains by hand: each region's largest region inside it, none when nothing fits", () => {
  // 0 ⊂ 1 ⊂ 2 (nested squares), 3 overlaps 1 and 2 without nesting, 4 ⊂ 3 and 4 ⊂ 2, 5 ⊂ 2 only
  const members = [[0, 1], [0, 1, 2, 3], [0, 1, 2, 3, 4, 5, 6, 7], [3, 4, 5, 8, 9], [4, 5], [6, 7, 2]];
  const pr = buildProblem(LABELS, regionsOf(members), { budget: 0.5, prTol: 0.2 });
  const rows = approxRows(pr);
  assert.deepEqual([...rows.rowOf], [0, 1, 2, 3, 4, 5]);
  // 2 holds 1 (4 members), 5 (3) and 0, 4 (2): 1 is the largest; 3 holds only 4; 1 holds 0
  assert.deepEqual([...chainsOf(rows).pred], [-1, 0, 1, 4, -1, -1]);
});

/** Random regions over 12 individuals: member lists drawn as bit masks (repeats and nesting happen). */
const masks = fc.array(fc.integer({ min: 1, max: (1 << 12) - 2 }), { minLength: 1, maxLength: 9 });

/** Regions from masks, plus some made nested (a region with a mask's bits added to another's). */
function instance(ms: number[]) {
  const all = ms.concat(ms.map((m, k) => m | ms[(k + 1) % ms.length]));
  const members = all.map((m) => [...Array(12).keys()].filter((j) => (m >> j) & 1));
  const pr = buildProblem(LABELS, regionsOf(members), { budget: 0.5, prTol: 0.2 });
  return { pr, rows: approxRows(pr) };
}

/** Each row's member set as a bit mask, from the units' rows (a unit is the members of one signature). */
function rowMasks(
  pr: ReturnType<typeof instance>["pr"],
  rows: ReturnType<typeof instance>["rows"],
): number[] {
  const T = rows.kappa.length, out = new Array<number>(T).fill(0);
  for (let u = 0; u < pr.unitSign.length; u++) {
    for (let k = rows.unitRowStart[u]; k < rows.unitRowStart[u + 1]; k++) out[rows.unitRows[k]] |= 1 << u;
  }
  return out;
}

Deno.test("chains: pred is a strict subset of its row and no larger subset exists (brute force)", () => {
  let chained = 0;
  fc.assert(
    fc.property(masks, (ms) => {
      const { pr, rows } = instance(ms), T = rows.kappa.length, set = rowMasks(pr, rows);
      const size = (i: number) => rows.alpha[i];
      const { pred } = chainsOf(rows);
      for (let i = 0; i < T; i++) {
        const subsets = [...Array(T).keys()].filter((j) => j !== i && (set[j] & ~set[i]) === 0);
        if (!subsets.length) assert.equal(pred[i], -1);
        else {
          assert.ok(subsets.includes(pred[i]), `row ${i}: pred ${pred[i]} not inside it`);
          assert.equal(size(pred[i]), Math.max(...subsets.map(size)));
          chained++;
        }
      }
    }),
    { numRuns: 300 },
  );
  assert.ok(chained > 300, `${chained} rows had a pred`);
});

Deno.test("chains: the columns (also built directly), right-hand sides and multipliers are L·A, L·b and Lᵀ·y", () => {
  fc.assert(
    fc.property(
      masks,
      fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: 24, maxLength: 24 }),
      (
        ms,
        ys,
      ) => {
        const { pr, rows } = instance(ms), T = rows.kappa.length, ch = chainsOf(rows);
        const units = Int32Array.from(pr.unitSign, (_, u) => u);
        const nRows = T + 2 + rows.capRow.length;
        for (const c of [unitColumns(pr, rows, units), slackColumns(pr, rows, 1e30)]) {
          const t = chainColumns(c, ch, T);
          for (let col = 0; col < c.cost.length; col++) {
            const a = new Float64Array(nRows), b = new Float64Array(nRows);
            for (let k = c.start[col]; k < c.start[col + 1]; k++) a[c.index[k]] = c.value[k];
            for (let k = t.start[col]; k < t.start[col + 1]; k++) b[t.index[k]] = t.value[k];
            for (let k = t.start[col] + 1; k < t.start[col + 1]; k++) assert.ok(t.index[k] > t.index[k - 1]);
            for (let i = 0; i < nRows; i++) {
              const want = i < T && ch.pred[i] >= 0 ? a[i] - a[ch.pred[i]] : a[i];
              assert.equal(b[i], want);
            }
          }
        }
        // the unit columns built as differences straight away are the transformed ones, entry for entry
        const direct = unitColumns(pr, rows, units, ch.pred),
          via = chainColumns(unitColumns(pr, rows, units), ch, T);
        for (const key of ["start", "index", "value", "lower", "upper"] as const) {
          assert.deepEqual([...direct[key]], [...via[key]]);
        }
        const rhs = Float64Array.from({ length: nRows }, (_, i) => ys[i % 24] * 3);
        const Lb = chainVector(rhs, ch, T);
        for (let i = 0; i < nRows; i++) {
          assert.equal(Lb[i], i < T && ch.pred[i] >= 0 ? rhs[i] - rhs[ch.pred[i]] : rhs[i]);
        }
        // Lᵀ y: y·(L a) = (Lᵀ y)·a for every a, checked on the unit vectors
        const yp = Float64Array.from({ length: T }, (_, i) => ys[i % 24]), y = unchainDuals(yp, ch, T);
        for (let j = 0; j < T; j++) {
          let want = yp[j];
          for (let i = 0; i < T; i++) if (ch.pred[i] === j) want -= yp[i];
          assert.ok(Math.abs(y[j] - want) <= 1e-12);
        }
      },
    ),
    { numRuns: 200 },
  );
});
