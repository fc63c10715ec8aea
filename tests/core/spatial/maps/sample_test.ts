import assert from "node:assert/strict";
import { MAX_DRAWN, samplePoints } from "../../../../core/spatial/maps/sample.ts";
import { Rng } from "../../../../core/random.ts";

Deno.test("samplePoints: all positions, in order, when n ≤ max", () => {
  assert.deepEqual(Array.from(samplePoints(5, 10, 1)), [0, 1, 2, 3, 4]);
  assert.deepEqual(Array.from(samplePoints(3, 3, 1)), [0, 1, 2]);
  assert.equal(samplePoints(0, 10, 1).length, 0);
  assert.equal(samplePoints(100, 0, 1).length, 0);
});

Deno.test("samplePoints: deterministic per seed, max distinct ascending positions in range", () => {
  const a = samplePoints(1_000_000, MAX_DRAWN, 42);
  assert.deepEqual(a, samplePoints(1_000_000, MAX_DRAWN, 42));
  assert.notDeepEqual(a, samplePoints(1_000_000, MAX_DRAWN, 43));
  assert.equal(a.length, 10_000);
  for (let i = 1; i < a.length; i++) assert.ok(a[i] > a[i - 1], "ascending and distinct");
  assert.ok(a[0] >= 0 && a[a.length - 1] < 1_000_000);
});

Deno.test("samplePoints: every position equally likely (counts within 7 standard deviations)", () => {
  // 2,000 samples of 10 of 100: each position expected 200 times, sd sqrt(2000·0.1·0.9) ≈ 13.4.
  const counts = new Array(100).fill(0);
  for (let seed = 0; seed < 2000; seed++) for (const i of samplePoints(100, 10, seed)) counts[i]++;
  for (const c of counts) assert.ok(c > 106 && c < 294, `count ${c}`);
});

/** Floyd's algorithm as it is written down: a set of the choices, sorted at the end. */
function floyd(n: number, count: number, seed: number): number[] {
  const rng = new Rng(seed);
  const chosen = new Set<number>();
  for (let j = n - count; j < n; j++) {
    const t = rng.int(j + 1);
    chosen.add(chosen.has(t) ? j : t);
  }
  return [...chosen].sort((a, b) => a - b);
}

Deno.test("samplePoints: the positions Floyd's algorithm chooses with the same draws", () => {
  for (const [n, max, seed] of [[206_418, 10_000, 7], [1_000_000, 10_000, 42], [50, 49, 1], [2, 1, 3]]) {
    assert.deepEqual(Array.from(samplePoints(n, max, seed)), floyd(n, max, seed), `${n} ${max} ${seed}`);
  }
});
