/**
 * IterativeImputer (MICE) as scikit-learn runs it by default: start from the column means, then for
 * `max_iter` rounds regress each incomplete column on all the others with BayesianRidge and replace its
 * missing cells by the prediction, ascending by fraction missing, stopping early when the largest
 * change falls under tol × max |observed|.
 */
import type { Imputation } from "./stats.ts";
import { mean, missingRows } from "./stats.ts";
import { collect, type TableColumn } from "./impute_tabular.ts";

const TOL = 1e-3;

/** MICE with BayesianRidge; the filled values of the last round are the answer. */
export function imputeIterative(columns: TableColumn[], maxIter = 10): Imputation {
  const raw = columns.map((c) => {
    if (!(c.values instanceof Float64Array)) throw new TypeError(`column '${c.name}' is not numeric`);
    return c.values;
  });
  const means = raw.map(mean);
  const usable = raw.map((_, j) => !Number.isNaN(means[j])); // sklearn drops all-missing columns
  const cols = raw.map((c, j) => usable[j] ? c.map((v) => (Number.isNaN(v) ? means[j] : v)) : c.slice());
  const missing = raw.map(missingRows);
  const order = [...raw.keys()]
    .filter((j) => usable[j] && missing[j].length > 0)
    .sort((a, b) => missing[a].length - missing[b].length || a - b);
  let maxAbs = 0;
  for (const c of raw) for (const v of c) if (!Number.isNaN(v) && Math.abs(v) > maxAbs) maxAbs = Math.abs(v);

  for (let it = 0; it < maxIter && order.length; it++) {
    const before = order.map((j) => Float64Array.from(missing[j], (r) => cols[j][r]));
    for (const j of order) {
      const others = [...raw.keys()].filter((o) => o !== j && usable[o]);
      const model = fitBayesianRidge(others.map((o) => cols[o]), cols[j], missing[j]);
      for (const r of missing[j]) {
        let y = model.intercept;
        others.forEach((o, t) => (y += model.coef[t] * cols[o][r]));
        cols[j][r] = y;
      }
    }
    // sklearn's criterion: the infinity norm (largest absolute row sum) of the change
    const rowChange = new Map<number, number>();
    order.forEach((j, t) =>
      missing[j].forEach((r, i) =>
        rowChange.set(r, (rowChange.get(r) ?? 0) + Math.abs(cols[j][r] - before[t][i]))
      )
    );
    if (Math.max(0, ...rowChange.values()) < TOL * maxAbs) break;
  }
  const filled = raw.map((_, j) =>
    usable[j]
      ? { rows: [...missing[j]], values: [...missing[j]].map((r) => cols[j][r]) }
      : { rows: [], values: [] }
  );
  return collect(columns, raw, filled);
}

/** A fitted linear model. */
export interface LinearModel {
  coef: Float64Array;
  intercept: number;
}

/**
 * sklearn's BayesianRidge (gamma priors 1e-6, 300 iterations, tol 1e-3) fitted on the rows not listed
 * in `skip`. Works on XᵀX's eigendecomposition instead of X's SVD (the same eigenvalues, squared), so
 * every iteration costs O(p²) whatever the number of rows.
 */
export function fitBayesianRidge(
  xs: Float64Array[],
  y: Float64Array,
  skip: Int32Array = new Int32Array(),
): LinearModel {
  const p = xs.length;
  const excluded = new Uint8Array(y.length);
  for (const r of skip) excluded[r] = 1;
  const n = y.length - skip.length;
  const xm = new Float64Array(p);
  let ym = 0;
  for (let i = 0; i < y.length; i++) {
    if (excluded[i]) continue;
    ym += y[i];
    for (let a = 0; a < p; a++) xm[a] += xs[a][i];
  }
  ym /= n;
  for (let a = 0; a < p; a++) xm[a] /= n;
  const xtx = new Float64Array(p * p), xty = new Float64Array(p);
  let yty = 0;
  const row = new Float64Array(p);
  for (let i = 0; i < y.length; i++) {
    if (excluded[i]) continue;
    for (let a = 0; a < p; a++) row[a] = xs[a][i] - xm[a];
    const yc = y[i] - ym;
    yty += yc * yc;
    for (let a = 0; a < p; a++) {
      xty[a] += row[a] * yc;
      for (let b = a; b < p; b++) xtx[a * p + b] += row[a] * row[b];
    }
  }
  for (let a = 0; a < p; a++) for (let b = 0; b < a; b++) xtx[a * p + b] = xtx[b * p + a];
  const { values: eig, vectors: V } = symmetricEigen(xtx, p);
  const vty = new Float64Array(p); // Vᵀ Xᵀy
  for (let k = 0; k < p; k++) for (let a = 0; a < p; a++) vty[k] += V[a * p + k] * xty[a];

  const E = 1e-6, eps = 2.220446049250313e-16;
  let alpha = 1 / (yty / n + eps), lambda = 1;
  let coef = new Float64Array(p), old = new Float64Array(p);
  const solve = () => {
    const c = new Float64Array(p);
    for (let k = 0; k < p; k++) {
      const w = vty[k] / (Math.max(eig[k], 0) + lambda / alpha);
      for (let a = 0; a < p; a++) c[a] += V[a * p + k] * w;
    }
    return c;
  };
  for (let it = 0; it < 300; it++) {
    coef = solve();
    // ‖y − Xc‖² = yᵀy − 2cᵀXᵀy + cᵀXᵀXc
    let cxty = 0, cxtxc = 0, c2 = 0;
    for (let a = 0; a < p; a++) {
      cxty += coef[a] * xty[a];
      c2 += coef[a] ** 2;
      for (let b = 0; b < p; b++) cxtxc += coef[a] * xtx[a * p + b] * coef[b];
    }
    const rmse = Math.max(0, yty - 2 * cxty + cxtxc);
    let gamma = 0;
    for (const e of eig) gamma += (alpha * Math.max(e, 0)) / (lambda + alpha * Math.max(e, 0));
    lambda = (gamma + 2 * E) / (c2 + 2 * E);
    alpha = (n - gamma + 2 * E) / (rmse + 2 * E);
    if (it > 0 && coef.reduce((s, v, a) => s + Math.abs(old[a] - v), 0) < TOL) break;
    old = coef;
  }
  coef = solve();
  let intercept = ym;
  for (let a = 0; a < p; a++) intercept -= xm[a] * coef[a];
  return { coef, intercept };
}

/** Eigenvalues and eigenvectors (columns of `vectors`, row-major p × p) of a symmetric matrix, by cyclic Jacobi. */
export function symmetricEigen(m: Float64Array, p: number): { values: Float64Array; vectors: Float64Array } {
  const a = m.slice();
  const v = new Float64Array(p * p);
  for (let i = 0; i < p; i++) v[i * p + i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let i = 0; i < p; i++) for (let j = i + 1; j < p; j++) off += a[i * p + j] ** 2;
    if (off < 1e-30) break;
    for (let i = 0; i < p; i++) {
      for (let j = i + 1; j < p; j++) {
        const aij = a[i * p + j];
        if (Math.abs(aij) < 1e-300) continue;
        const theta = (a[j * p + j] - a[i * p + i]) / (2 * aij);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1), s = t * c;
        for (let k = 0; k < p; k++) { // rotate columns i and j
          const aki = a[k * p + i], akj = a[k * p + j];
          a[k * p + i] = c * aki - s * akj;
          a[k * p + j] = s * aki + c * akj;
        }
        for (let k = 0; k < p; k++) { // and rows i and j
          const aik = a[i * p + k], ajk = a[j * p + k];
          a[i * p + k] = c * aik - s * ajk;
          a[j * p + k] = s * aik + c * ajk;
        }
        for (let k = 0; k < p; k++) {
          const vki = v[k * p + i], vkj = v[k * p + j];
          v[k * p + i] = c * vki - s * vkj;
          v[k * p + j] = s * vki + c * vkj;
        }
      }
    }
  }
  return { values: Float64Array.from({ length: p }, (_, i) => a[i * p + i]), vectors: v };
}
