import assert from "node:assert/strict";
import {
  logLik,
  normStat,
  rawStat,
  tableL0,
  tableRawStat,
  xlogxTable,
} from "../../../core/spatial/statistic.ts";

const close = (a: number, b: number, rel = 1e-12) =>
  assert.ok(Math.abs(a - b) <= rel * Math.max(1, Math.abs(b)), `${a} vs ${b}`);

Deno.test("L(k, m): hand values and the 0·ln 0 = 0, m = 0 conventions", () => {
  // L(1, 2) = 1·ln(1/2) + 1·ln(1/2) = -2 ln 2 = -1.3862943611198906
  close(logLik(1, 2), -1.3862943611198906);
  // L(4, 10) = 4 ln 0.4 + 6 ln 0.6 = 4(-0.916290731874155) + 6(-0.5108256237659907) = -6.730116670092564
  close(logLik(4, 10), -6.730116670092564);
  assert.equal(logLik(0, 7), 0); // 0·ln 0 + 7·ln 1
  assert.equal(logLik(7, 7), 0); // 7·ln 1 + 0·ln 0
  assert.equal(logLik(0, 0), 0); // m = 0
});

Deno.test("S and s: a region of 5 with 4 of the 4 positives among N = 10", () => {
  // l0 = L(4, 10) = -6.730116670092564
  // l1 = L(4, 5) + L(0, 5) = 4 ln 0.8 + 1 ln 0.2 + 0 = 4(-0.2231435513142097) - 1.6094379124341003
  //    = -2.5020121176909393
  // S = l1 - l0 = 4.228104552401625; s = S / |l0| = 4.228104552401625 / 6.730116670092564 = 0.6282364421987758
  close(rawStat(4, 5, 4, 10), 4.228104552401625);
  close(normStat(4, 5, 4, 10), 0.6282364421987758);
  // The complement (5 individuals, 0 positives) has the same l1, hence the same S and s.
  close(normStat(0, 5, 4, 10), 0.6282364421987758);
});

Deno.test("S and s are 0 for equal rates, an empty region, the full region, P = 0 and P = N", () => {
  // Equal rates: L(2,5) + L(2,5) = 2(2 ln .4 + 3 ln .6) = 4 ln .4 + 6 ln .6 = l0, so S = 0 (to rounding).
  assert.ok(Math.abs(rawStat(2, 5, 4, 10)) < 1e-12);
  assert.equal(rawStat(0, 0, 4, 10), 0); // n = 0
  assert.equal(normStat(0, 0, 4, 10), 0);
  assert.equal(rawStat(4, 10, 4, 10), 0); // n = N
  assert.equal(normStat(4, 10, 4, 10), 0);
  assert.equal(normStat(0, 5, 0, 10), 0); // P = 0: l0 = 0, the reference divided by zero here
  assert.equal(normStat(5, 5, 10, 10), 0); // P = N: l0 = 0
  assert.equal(rawStat(0, 5, 0, 10), 0);
});

Deno.test("the x·ln x table form (used by the kernels) equals the logarithm form", () => {
  const N = 40, t = xlogxTable(N);
  assert.equal(t[0], 0);
  assert.equal(t[1], 0);
  close(t[10], 10 * Math.log(10));
  for (const P of [1, 7, 20, 39]) {
    const l0 = tableL0(t, P, N);
    close(l0, logLik(P, N), 1e-13);
    for (let n = 1; n < N; n++) {
      for (let p = Math.max(0, P - (N - n)); p <= Math.min(n, P); p++) {
        const S = tableRawStat(t, p, n, P, N, l0);
        assert.ok(Math.abs(Math.max(0, S) - rawStat(p, n, P, N)) < 1e-12, `P=${P} n=${n} p=${p}`);
      }
    }
  }
});
