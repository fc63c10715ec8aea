import assert from "node:assert/strict";
import {
  detectEcod,
  detectHbos,
  detectIqrTabular,
  detectKnn,
  detectLof,
  detectZscore,
} from "../../../core/cleaning/detect_tabular.ts";
import { averagePathLength, detectIsolationForest } from "../../../core/cleaning/isolation_forest.ts";
import { labelByContamination } from "../../../core/cleaning/stats.ts";
import { factorTable, plantOutliers, score } from "./fixtures.ts";

/** Eight points, two of them far out on one axis each; PyOD 3.6.7's scores are the reference. */
const X = [[0, 0], [1, 0.5], [0.2, 1], [1.1, 1.2], [0.5, 0.4], [0.9, 0.1], [5, 0.3], [0.4, 4.5]];
const cols = [Float64Array.from(X, (r) => r[0]), Float64Array.from(X, (r) => r[1])];
const close = (got: Float64Array, want: number[]) =>
  want.forEach((w, i) => assert.ok(Math.abs(got[i] - w) < 1e-9, `[${i}] ${got[i]} vs ${w}`));

Deno.test("ECOD, HBOS, LOF: PyOD 3.6.7's decision scores on a small matrix", () => {
  close(detectEcod(cols).scores, [
    4.1588830833596715,
    1.6739764335716716,
    2.367123614131617,
    2.772588722239781,
    1.3862943611198906,
    2.0794415416798357,
    3.060270794691562,
    3.060270794691562,
  ]);
  close(detectHbos(cols, 3).scores, [
    ...Array(6).fill(1.2274104961030725),
    3.063911763820193,
    3.1255308820838588,
  ]);
  close(detectLof(cols, 3, 0.1, false).scores, [
    1.0132914924256333,
    1.001025936591479,
    1.0020795883836564,
    1.020615648474947,
    1.0573635020207384,
    0.9172471858571027,
    4.814742150636109,
    4.196978695724627,
  ]);
});

Deno.test("contamination labels the rows strictly above the (1 − c) percentile, as PyOD", () => {
  const d = labelByContamination(Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), 0.2);
  assert.equal(d.threshold, 8.2); // numpy percentile 80 of 1..10: 8 + 0.2·(9 − 8)
  assert.deepEqual([...d.labels], [0, 0, 0, 0, 0, 0, 0, 0, 1, 1]);
});

Deno.test("isolation forest: c(n) as in Liu et al., and a lone far point scores highest, above 0.6", () => {
  assert.equal(averagePathLength(2), 1);
  assert.ok(Math.abs(averagePathLength(256) - 10.244770920119917) < 1e-12); // 2(ln 255 + γ) − 2·255/256
  const c = [Float64Array.from({ length: 500 }, (_, i) => (i === 0 ? 100 : Math.sin(i)))];
  const d = detectIsolationForest(c, { contamination: 0.01 });
  // Half the trees never sample it (256 of 500 rows) and still isolate it at the edge quickly; ordinary
  // points score about 0.5 or less.
  assert.ok(
    d.scores[0] > 0.6 && d.scores.every((s, i) => i === 0 || s < d.scores[0]),
    `score ${d.scores[0]}`,
  );
  assert.equal(d.labels[0], 1);
  assert.deepEqual(
    detectIsolationForest(c, { seed: 3 }).scores,
    detectIsolationForest(c, { seed: 3 }).scores,
  );
});

// 2,000 rows of a 6-column factor table with 100 rows (5 %) pushed 4 sd out along every column.
// Every detector that takes `contamination` is run at the planted rate.
const N = 2000, PLANTED = 100;
function planted() {
  const { cols } = factorTable(N, 6, 31, 0.3);
  return { cols, rows: plantOutliers(cols, PLANTED, 4, 32) };
}

Deno.test("planted anomalies: isolation forest, LOF, KNN, HBOS and ECOD reach 0.9 recall and precision", () => {
  const { cols, rows } = planted();
  const rate = PLANTED / N;
  const runs = {
    isolation_forest: detectIsolationForest(cols, { contamination: rate }),
    lof: detectLof(cols, 20, rate),
    knn: detectKnn(cols, 5, rate),
    hbos: detectHbos(cols, 10, rate),
    ecod: detectEcod(cols, rate),
  };
  for (const [name, d] of Object.entries(runs)) {
    const s = score(d.labels, rows);
    assert.ok(s.recall >= 0.9 && s.precision >= 0.9, `${name}: ${JSON.stringify(s)}`);
  }
});

// z-score and IQR label by their own thresholds. The planted rows inflate each column's sd by about
// √(1 + 0.05·16) ≈ 1.34, so a 4-sd push reads as z ≈ 3 on a single column; with six pushed columns nearly
// every planted row still crosses: recall at least 0.95. Ordinary rows cross too: |z| > 3 has
// probability 0.27 % per Gaussian cell (≈ 1.6 % of 6-cell rows, ≈ 30 rows); Tukey's 1.5-IQR fences 0.70 %
// per cell (≈ 4.1 %, ≈ 78 rows). Precision must be at least 0.7 and 0.45 (the expected 0.77 and 0.56 for
// Gaussian columns, less a margin for the sample).
Deno.test("planted anomalies: z-score and IQR find nearly all, with the precision their thresholds allow", () => {
  const { cols, rows } = planted();
  const z = score(detectZscore(cols, 3).labels, rows);
  assert.ok(z.recall >= 0.95 && z.precision >= 0.7, `zscore ${JSON.stringify(z)}`);
  const q = score(detectIqrTabular(cols, 1.5).labels, rows);
  assert.ok(q.recall >= 0.95 && q.precision >= 0.45, `iqr ${JSON.stringify(q)}`);
});

Deno.test("missing cells: multivariate detectors score every row; z-score skips the missing cell only", () => {
  const { cols, rows } = planted();
  cols[0][5] = NaN;
  const iso = detectIsolationForest(cols, { contamination: 0.05 });
  assert.ok(iso.scores.every((s) => Number.isFinite(s)));
  assert.ok(Number.isFinite(detectZscore(cols).scores[5]));
  assert.ok(score(iso.labels, rows).recall >= 0.9);
});
