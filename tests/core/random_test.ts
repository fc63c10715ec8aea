import assert from "node:assert/strict";
import { Rng } from "../../core/random.ts";

Deno.test("Rng: same seed, same stream; different seeds differ", () => {
  const a = new Rng(42), b = new Rng(42), c = new Rng(43);
  const xs = Array.from({ length: 5 }, () => a.next());
  assert.deepEqual(Array.from({ length: 5 }, () => b.next()), xs);
  assert.notDeepEqual(Array.from({ length: 5 }, () => c.next()), xs);
});

Deno.test("Rng: uniform in [0,1) by a chi-square test over 20 bins (df 19, 0.999 quantile 43.8)", () => {
  const rng = new Rng(1);
  const n = 200_000, bins = new Array(20).fill(0);
  for (let i = 0; i < n; i++) {
    const u = rng.next();
    assert.ok(u >= 0 && u < 1);
    bins[Math.floor(u * 20)]++;
  }
  const e = n / 20;
  const chi2 = bins.reduce((s, o) => s + (o - e) ** 2 / e, 0);
  assert.ok(chi2 < 43.8, `chi2 ${chi2}`);
});

Deno.test("Rng: normal draws have mean 0 and variance 1 (within 5 standard errors)", () => {
  const rng = new Rng(3);
  const n = 100_000;
  let s = 0, s2 = 0;
  for (let i = 0; i < n; i++) {
    const z = rng.normal();
    s += z;
    s2 += z * z;
  }
  const mean = s / n, variance = s2 / n - mean * mean;
  assert.ok(Math.abs(mean) < 5 / Math.sqrt(n));
  assert.ok(Math.abs(variance - 1) < 5 * Math.sqrt(2 / n));
});
