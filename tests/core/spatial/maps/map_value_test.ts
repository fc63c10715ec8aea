import assert from "node:assert/strict";
import {
  auditCap,
  diffColor,
  divergingColor,
  niceCeil,
  NO_DATA_COLOR,
  overallRate,
  ppLabel,
  rateDiffPp,
  rateWords,
  scaleMarks,
  scalePosition,
} from "../../../../core/spatial/maps/map_value.ts";
import { fourRegions, stat } from "./fixtures.ts";

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} != ${b}`);

Deno.test("rateDiffPp: region rate − overall rate in percentage points, null without a rate", () => {
  close(rateDiffPp(0.5, 0.3)!, 20);
  close(rateDiffPp(0.1, 0.3)!, -20);
  close(rateDiffPp(0.3, 0.3)!, 0);
  assert.equal(rateDiffPp(null, 0.3), null);
  assert.equal(rateDiffPp(Number.NaN, 0.3), null);
  const { audit } = fourRegions();
  close(overallRate(audit), 0.3);
  assert.equal(overallRate({ ...audit, n_individuals: 0, n_positives: 0 }), 0);
});

Deno.test("niceCeil: rounds up to 1, 1.2, 1.6, 2, 2.4, 3.2, 4, 6, 8 × 10^k, at most 100", () => {
  const cases: [number, number][] = [
    [0.7, 0.8],
    [1, 1],
    [1.1, 1.2],
    [5, 6],
    [13, 16],
    [20, 20],
    [20.5, 24],
    [23, 24],
    [33, 40],
    [61, 80],
    [95, 100],
    [140, 100],
  ];
  for (const [x, want] of cases) close(niceCeil(x), want);
  assert.equal(niceCeil(0), 1);
});

Deno.test("auditCap: the largest |difference| of a significant region, rounded up; a 1-point floor", () => {
  const { audit } = fourRegions();
  assert.equal(auditCap(audit), 20); // r0 and r1: |±20| pp
  // a small non-significant region 45 points off does not set the scale
  const noisy = { ...audit, stats: [...audit.stats, stat(4, 5, 4, 0.05, false)] };
  assert.equal(auditCap(noisy), 20);
  // r0 alone significant, 22 points above → 24 (the next nice number)
  const one = { ...audit, stats: [stat(0, 100, 52, 0.5, true), stat(1, 100, 8, 0.05, false)] };
  assert.equal(auditCap(one), 24);
  // nothing significant: the 95th percentile of |difference| (20 values 1..20 pp → the 20th) → 20
  const none = {
    ...audit,
    n_individuals: 2000,
    n_positives: 600,
    stats: Array.from({ length: 20 }, (_, i) => stat(i, 100, 30 + i + 1, 0.01, false)),
  };
  assert.equal(auditCap(none), 20);
  // differences of a fraction of a point: the floor of 1 pp
  const flat = { ...audit, stats: [stat(0, 1000, 301, 0.5, true), stat(1, 1000, 299, 0.5, true)] };
  assert.equal(auditCap({ ...flat, n_individuals: 2000, n_positives: 600 }), 1);
});

Deno.test("scalePosition: sign · √(|d| / cap), clamped to ±1", () => {
  close(scalePosition(20, 20), 1);
  close(scalePosition(5, 20), 0.5);
  close(scalePosition(-5, 20), -0.5);
  close(scalePosition(1.25, 20), 0.25);
  close(scalePosition(0, 20), 0);
  close(scalePosition(45, 20), 1);
  close(scalePosition(-45, 20), -1);
});

Deno.test("diffColor: RdBu by position; ends, middle, halfway colours; grey without a rate", () => {
  assert.equal(diffColor(20, 20), "#67001f");
  assert.equal(diffColor(-20, 20), "#053061");
  assert.equal(diffColor(0, 20), "#f7f7f7");
  assert.equal(diffColor(99, 20), "#67001f");
  // +5 of 20 → position +0.5 → halfway between #f4a582 and #d6604d: (229, 130.5→131, 103.5→104)
  assert.equal(diffColor(5, 20), "#e58368");
  // −5 of 20 → −0.5 → halfway between #4393c3 and #92c5de: (106.5→107, 172, 208.5→209)
  assert.equal(diffColor(-5, 20), "#6bacd1");
  assert.equal(diffColor(null, 20), NO_DATA_COLOR);
  assert.equal(divergingColor(Number.NaN), "#f7f7f7");
  assert.equal(divergingColor(-0.2), "#d1e5f0"); // exactly stop 4
});

Deno.test("ppLabel and scaleMarks: signed points with a true minus; marks ±cap, ±cap/4, 0", () => {
  assert.equal(ppLabel(6), "+6 pp");
  assert.equal(ppLabel(-2.5), "−2.5 pp");
  assert.equal(ppLabel(0.04), "0 pp");
  assert.equal(ppLabel(-12.345), "−12.3 pp");
  assert.equal(ppLabel(0.25, 2), "+0.25 pp");
  assert.deepEqual(scaleMarks(24), [24, 6, 0, -6, -24]);
  assert.deepEqual(scaleMarks(24).map((v) => scalePosition(v, 24)), [1, 0.5, 0, -0.5, -1]);
});

Deno.test("rateWords: positive rates, or true-positive rates under equal opportunity", () => {
  assert.deepEqual(rateWords(false), { rate: "positive rate", short: "rate" });
  assert.deepEqual(rateWords(true), { rate: "true-positive rate", short: "TPR" });
});
