import assert from "node:assert/strict";
import {
  imputeConstant,
  imputeKnn,
  imputeMean,
  imputeMedian,
  imputeMostFrequent,
  type TableColumn,
} from "../../../core/cleaning/impute_tabular.ts";
import { imputeIterative, symmetricEigen } from "../../../core/cleaning/iterative.ts";
import type { Imputation } from "../../../core/cleaning/stats.ts";
import { factorTable, removeCells, rmse } from "./fixtures.ts";
import { Rng } from "../../../core/random.ts";

const col = (name: string, xs: (number | null)[]): TableColumn => ({
  name,
  values: Float64Array.from(xs, (v) => v ?? NaN),
});

/** The damaged columns with the imputation's values written in. */
function apply(cols: Float64Array[], imp: Imputation): Float64Array[] {
  const out = cols.map((c) => c.slice());
  for (const f of imp.filled) {
    const j = Number(f.column.slice(1));
    f.rows.forEach((r, k) => (out[j][r] = f.values[k] as number));
  }
  return out;
}

const named = (cols: Float64Array[]) => cols.map((values, j) => ({ name: `c${j}`, values }));

/** sklearn's documentation example for KNNImputer, and a wider matrix checked against scikit-learn 1.9.1. */
const M = [[1, 2, null], [3, 4, 3], [null, 6, 5], [8, 8, 7], [2, null, 1.5], [5, 5, 4.5], [7, 9, null]];
const byColumn = (rows: (number | null)[][]) => rows[0].map((_, j) => col(`c${j}`, rows.map((r) => r[j])));

Deno.test("mean, median: one value per column, computed on the present cells (hand calculation)", () => {
  const cols = [col("a", [1, null, 3, 10]), col("b", [2, 2, null, null])];
  assert.deepEqual(imputeMean(cols).filled.map((f) => [f.column, [...f.rows], f.values]), [
    ["a", [1], [14 / 3]],
    ["b", [2, 3], [2, 2]],
  ]);
  assert.deepEqual(imputeMedian(cols).filled[0].values, [3]);
  assert.deepEqual(imputeMean([col("z", [null, null])]), { filled: [], unfilled: { z: 2 } });
});

Deno.test("most_frequent: ties go to the smallest value, as sklearn; categories are filled too", () => {
  const out = imputeMostFrequent([
    col("n", [3, 1, 3, 1, null]),
    { name: "plan", values: ["basic", null, "premium", "premium", "basic", "premium"] },
  ]);
  assert.deepEqual(out.filled.map((f) => [f.column, [...f.rows], f.values]), [
    ["n", [4], [1]],
    ["plan", [1], ["premium"]],
  ]);
});

Deno.test("constant: fill_value, else sklearn's defaults 0 and 'missing_value'", () => {
  const cols = [col("n", [null, 1]), { name: "s", values: ["x", null] }];
  assert.deepEqual(imputeConstant(cols).filled.map((f) => f.values), [[0], ["missing_value"]]);
  assert.deepEqual(imputeConstant([cols[0]], -1).filled[0].values, [-1]);
  assert.throws(() => imputeConstant([cols[0]], "text"), /must be a number/);
});

Deno.test("knn: sklearn KNNImputer's results on its documentation-style example (n_neighbors=2, unscaled)", () => {
  const out = imputeKnn(byColumn(M), 2, false);
  const got = out.filled.map((f) => [f.column, [...f.rows], f.values]);
  // scikit-learn 1.9.1: KNNImputer(n_neighbors=2).fit_transform(M)
  assert.deepEqual(got, [["c0", [2], [4]], ["c1", [4], [3]], ["c2", [0, 6], [2.25, 6]]]);
});

Deno.test("iterative: scikit-learn 1.9.1 IterativeImputer(max_iter=10) values to 1e-9", () => {
  const out = imputeIterative(byColumn(M), 10);
  const want: Record<string, [number, number][]> = {
    c0: [[2, 5.446256993694339]],
    c1: [[4, 1.014972500665371]],
    c2: [[0, 1.2894436985285713], [6, 6.807236944046545]],
  };
  for (const f of out.filled) {
    f.rows.forEach((r, k) => {
      const [row, v] = want[f.column][k];
      assert.equal(r, row);
      assert.ok(Math.abs((f.values[k] as number) - v) < 1e-9, `${f.column}[${r}] = ${f.values[k]} ≠ ${v}`);
    });
  }
});

Deno.test("symmetricEigen: A·v = λ·v for every pair of a random symmetric matrix", () => {
  const p = 6;
  const a = new Float64Array(p * p);
  for (let i = 0; i < p; i++) {
    for (let j = i; j < p; j++) a[i * p + j] = a[j * p + i] = Math.sin(i * 7 + j * 3);
  }
  const { values, vectors } = symmetricEigen(a, p);
  for (let k = 0; k < p; k++) {
    for (let i = 0; i < p; i++) {
      let av = 0;
      for (let j = 0; j < p; j++) av += a[i * p + j] * vectors[j * p + k];
      assert.ok(Math.abs(av - values[k] * vectors[i * p + k]) < 1e-10);
    }
  }
});

/**
 * The smallest error any imputer can reach on a Gaussian factor table when one cell of a row is missing:
 * the conditional sd of a column given the others, 1 / (Σ⁻¹)_jj with Σ = L·Lᵀ + σ²·I, averaged over columns.
 */
function bestPossibleRmse(load: number[][], noise: number): number {
  const d = load.length;
  const sigma = new Float64Array(d * d);
  for (let a = 0; a < d; a++) {
    for (let b = 0; b < d; b++) {
      sigma[a * d + b] = load[a].reduce((s, v, k) => s + v * load[b][k], 0) + (a === b ? noise ** 2 : 0);
    }
  }
  const { values, vectors } = symmetricEigen(sigma, d);
  let mse = 0;
  for (let j = 0; j < d; j++) {
    let inv = 0; // (Σ⁻¹)_jj = Σ_k v_jk² / λ_k
    for (let k = 0; k < d; k++) inv += vectors[j * d + k] ** 2 / values[k];
    mse += 1 / inv / d;
  }
  return Math.sqrt(mse);
}

// MICE with a linear model is the right model here: it must come within 25 % of the best possible error
// (the slack: about a quarter of the removed cells share their row with another gap, plus the finite sample). kNN (5 neighbours among 2,000 rows
// in a 3-d latent space) must at least cut mean imputation's error by 60 %.
Deno.test("removed cells: iterative within 25 % of the best possible, knn at 40 % of mean imputation's error", () => {
  const { cols: truth, load, noise } = factorTable(2000, 6, 21, 0.2);
  const { damaged, removed } = removeCells(truth, 0.05, 22);
  assert.ok(removed.length > 500);
  const err = (imp: Imputation) => {
    const filled = apply(damaged, imp);
    return rmse(removed, (j, i) => filled[j][i]);
  };
  const floor = bestPossibleRmse(load, noise);
  const meanErr = err(imputeMean(named(damaged)));
  const knnErr = err(imputeKnn(named(damaged), 5));
  const miceErr = err(imputeIterative(named(damaged), 10));
  assert.ok(meanErr > 1, `mean ${meanErr}`);
  assert.ok(miceErr < 1.25 * floor, `iterative ${miceErr}, best possible ${floor}`);
  assert.ok(knnErr < 0.4 * meanErr, `knn ${knnErr} vs mean ${meanErr}`);
  assert.equal(imputeKnn(named(damaged), 5).filled.reduce((s, f) => s + f.rows.length, 0), removed.length);
});

/** n draws of `draw`, with a share `rate` of the cells removed at random (independent of their values). */
function damagedColumn<T>(n: number, rate: number, seed: number, draw: (rng: Rng) => T) {
  const rng = new Rng(seed);
  const truth = Array.from({ length: n }, () => draw(rng));
  const removed: number[] = [];
  const damaged = truth.map((v, i) => {
    if (rng.next() >= rate) return v;
    removed.push(i);
    return null;
  });
  return { truth, damaged, removed };
}

/** The value each removed cell got, by row. */
const filledAt = (imp: Imputation) =>
  new Map<number, unknown>(Array.from(imp.filled[0].rows, (r, k) => [r, imp.filled[0].values[k]]));

// N(50, 10²), 5,000 rows, 10 % removed (about 500 cells). Mean imputation puts the sample mean x̄ of the
// ~4,500 present cells in every gap, so its error on a removed cell is x̄ − x, with E(x̄ − x)² = σ² + σ²/4,500:
// the RMSE is σ (to 0.01 %). Over m ≈ 500 removed cells the sample RMSE has relative sd 1/√(2m) ≈ 3.2 %:
// the bound is σ ± 10 % (3 sd), and x̄ within 4 standard errors (4·10/√4,500 ≈ 0.6) of μ.
Deno.test("mean: removed cells of N(50, 10²) filled with RMSE within 10 % of σ = 10", () => {
  const { truth, damaged, removed } = damagedColumn(5000, 0.1, 51, (rng) => 50 + 10 * rng.normal());
  assert.ok(removed.length > 400 && removed.length < 600, `removed ${removed.length}`);
  const got = filledAt(imputeMean([col("x", damaged)]));
  assert.equal(got.size, removed.length);
  const fill = got.get(removed[0]) as number;
  assert.ok(Math.abs(fill - 50) < 0.6, `fill ${fill}`);
  const err = Math.sqrt(
    removed.reduce((s, i) => s + ((got.get(i) as number) - truth[i]) ** 2, 0) / removed.length,
  );
  assert.ok(Math.abs(err - 10) < 1, `RMSE ${err}`);
});

// Laplace(100, b = 5), drawn by inverting its CDF: x = μ − b·sgn(u)·ln(1 − 2|u|), u uniform on (−½, ½).
// Its median is μ, and the median minimises the mean absolute error: E|x − μ| = b. |x − μ| is exponential
// with sd b, so over m ≈ 500 removed cells the sample MAE has relative sd 1/√m ≈ 4.5 %: bound b ± 15 %.
// 2 % of the present cells are gross errors (+10,000): the median barely moves, the mean moves by ≈ 200.
Deno.test("median: removed cells of Laplace(100, 5) filled with MAE within 15 % of b, gross errors ignored", () => {
  const { truth, damaged, removed } = damagedColumn(5000, 0.1, 52, (rng) => {
    const u = rng.next() - 0.5;
    return 100 - 5 * Math.sign(u) * Math.log(1 - 2 * Math.abs(u));
  });
  const missing = new Set(removed);
  const rng = new Rng(53);
  damaged.forEach((v, i) => !missing.has(i) && rng.next() < 0.02 && (damaged[i] = (v as number) + 10_000));
  const got = filledAt(imputeMedian([col("x", damaged)]));
  const mae = removed.reduce((s, i) => s + Math.abs((got.get(i) as number) - truth[i]), 0) / removed.length;
  assert.ok(Math.abs(mae - 5) < 0.75, `MAE ${mae}`);
  const meanFill = filledAt(imputeMean([col("x", damaged)])).get(removed[0]) as number;
  assert.ok(meanFill > 250, `mean fill ${meanFill}`); // ≈ 100 + 0.02 · 10,000
});

// A category with shares A 60 %, B 25 %, C 15 %: most_frequent puts A in every gap, so it is right on a
// removed cell exactly when that cell was A: accuracy 0.6 in expectation, sd √(0.6·0.4/m) ≈ 0.022 for
// m ≈ 500. Bound: at least 0.6 − 0.07 (3 sd).
Deno.test("most_frequent: removed categories filled with the dominant class, accuracy ≥ its share − 0.07", () => {
  const { truth, damaged, removed } = damagedColumn(5000, 0.1, 54, (rng) => {
    const u = rng.next();
    return u < 0.6 ? "A" : u < 0.85 ? "B" : "C";
  });
  const got = filledAt(imputeMostFrequent([{ name: "plan", values: damaged }]));
  assert.equal(got.size, removed.length);
  assert.ok(removed.every((i) => got.get(i) === "A"));
  const accuracy = removed.filter((i) => truth[i] === "A").length / removed.length;
  assert.ok(accuracy >= 0.53, `accuracy ${accuracy}`);
});

// constant: every removed cell holds fill_value exactly, so its error is exactly |fill_value − x|.
Deno.test("constant: every removed cell holds fill_value exactly, on numbers and on text", () => {
  const { damaged, removed } = damagedColumn(2000, 0.1, 55, (rng) => rng.normal());
  const got = filledAt(imputeConstant([col("x", damaged)], -999));
  assert.deepEqual([...got.keys()], removed);
  assert.ok([...got.values()].every((v) => v === -999));
  const text = damagedColumn(2000, 0.1, 56, (rng) => (rng.next() < 0.5 ? "on" : "off"));
  const t = filledAt(imputeConstant([{ name: "s", values: text.damaged }], "unknown"));
  assert.deepEqual([...t.keys()], text.removed);
  assert.ok([...t.values()].every((v) => v === "unknown"));
});
