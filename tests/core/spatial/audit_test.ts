import assert from "node:assert/strict";
import { threshold, thresholdIndex } from "../../../core/spatial/audit.ts";
import { runAudit, simulateWorlds } from "../../support/kernel_ts.ts";
import { planAudit, planForLabels } from "../../../core/spatial/plan.ts";
import { Rng } from "../../../core/random.ts";
import type { Regions } from "../../../core/spatial/types.ts";

const regionsOf = (lists: number[][]): Regions => ({
  source: "region_ids",
  ids: lists.map((_, r) => r),
  members: lists.map((m) => Int32Array.from(m)),
  polygons: null,
  unassigned: 0,
});
const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);
const close = (a: number, b: number, rel = 1e-12) =>
  assert.ok(Math.abs(a - b) <= rel * Math.abs(b), `${a} vs ${b}`);

// The case of the reference script beside this file (python3 tests/core/spatial/audit_ref.py, numpy 2.4.6):
// N = 600, y_i = 1 if i % 10 < 3 or (i < 60 and i % 10 < 6); regions i % 6 == r (r = 0..5), 0..99, 50..249.
const N = 600;
const labels = Uint8Array.from(range(0, N), (i) => (i % 10 < 3 || (i < 60 && i % 10 < 6) ? 1 : 0));
const lists = [
  ...range(0, 6).map((r) => range(0, N).filter((i) => i % 6 === r)),
  range(0, 100),
  range(50, 250),
];
const regions = regionsOf(lists);
// Printed by audit_ref.py (math.log for the statistic; np.random.seed(42 + w); np.random.binomial(1, P/N, N)).
const REF_OBSERVED = [
  0.005603572201688455,
  0.0060427448117536045,
  0.005603572201688455,
  0.0060427448117536045,
  0.005603572201688455,
  0.0060427448117536045,
  0.01534881331010035,
  0.00040278569935240776,
];
const REF_M = [
  0.005927712261825145,
  0.005485442839429172,
  0.003726132459211655,
  0.0031648461021247716,
  0.0033234824653970616,
  0.0067619139633740555,
  0.00520173903456642,
  0.0038671634599386894,
  0.0027198595823113457,
  0.0029051909917849734,
  0.00624444249120352,
  0.009863802674455637,
  0.010025815424458897,
  0.003014166364292134,
  0.001629745672663502,
  0.002200171803916453,
  0.003681244447023284,
  0.004356268287371541,
  0.001426589146555429,
  0.010527817162822703,
  0.006648085614548578,
  0.0027115879951101402,
  0.003054230106938039,
  0.004973851840404576,
  0.0046001213219999055,
  0.006899627616134003,
  0.0035062570840851378,
  0.0009893487445405496,
  0.0039807877811511945,
  0.006499103359976767,
  0.0069053933070871605,
  0.0018291876367385902,
  0.0014026989215493522,
  0.0072481723866368065,
  0.003595341846127522,
  0.003655270304074334,
  0.005648425140992827,
  0.004180256755315954,
  0.002636200104552295,
  0.002120531741585312,
];

Deno.test("threshold: W = 400, α = 0.005 picks the 3rd largest world maximum", () => {
  assert.equal(thresholdIndex(0.005, 400), 2);
  const rng = new Rng(5);
  const m = Float64Array.from(range(0, 400), (i) => i / 400);
  for (let i = m.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [m[i], m[j]] = [m[j], m[i]];
  }
  assert.equal(threshold(m, 0.005), 397 / 400);
  assert.equal(thresholdIndex(0.05, 40), 2);
});

for (const kernel of ["ts", "wasm"] as const) {
  Deno.test(`rng numpy (${kernel}): world maxima, observed s and T match the numpy reference`, () => {
    const out = runAudit({ labels, regions, nWorlds: 40, signifLevel: 0.05, seed: 42, rng: "numpy", kernel });
    assert.equal(out.n_positives, 198);
    out.stats.forEach((st, r) => close(st.stat, REF_OBSERVED[r], 1e-9));
    out.world_max.forEach((m, w) => close(m, REF_M[w], 1e-9));
    close(out.signif_thresh, 0.009863802674455637, 1e-9); // the 3rd largest of REF_M
    // Region 6 (0..99, 48 of 100 positive) beats every world but 0: p = (1 + 0)/41; it is significant.
    assert.equal(out.stats[6].is_signif, true);
    close(out.stats[6].p_value, 1 / 41);
    assert.equal(out.total_signif_regions, 1);
    // SBI = mean of the 8 observed s (no region is empty)
    close(out.sbi_score, REF_OBSERVED.reduce((a, b) => a + b) / 8, 1e-9);
  });
}

/** An overlapping case with N = 3000, 30 regions, rate 0.35. */
function overlapping() {
  const rng = new Rng(11), n = 3000;
  const y = Uint8Array.from(range(0, n), () => (rng.next() < 0.35 ? 1 : 0));
  const ls: number[][] = range(0, 30).map(() => []);
  for (let i = 0; i < n; i++) {
    ls[i % 30].push(i);
    const extra = (i * 7 + 3) % 30;
    if (rng.next() < 0.4 && extra !== i % 30) ls[extra].push(i);
  }
  return { y, regions: regionsOf(ls.map((l) => l.sort((a, b) => a - b))) };
}

Deno.test("TypeScript and WASM kernels give bit-identical maxima in both modes; any split of worlds agrees", () => {
  const { y, regions } = overlapping();
  for (const rng of ["fast", "numpy"] as const) {
    const plan = planAudit(y, regions, rng);
    const ts = simulateWorlds(plan, 42, 0, 37, "ts");
    const wasm = simulateWorlds(plan, 42, 0, 37, "wasm");
    assert.deepEqual(Array.from(wasm), Array.from(ts), rng);
    const parts = [...simulateWorlds(plan, 42, 0, 20, "wasm"), ...simulateWorlds(plan, 42, 20, 37, "ts")];
    assert.deepEqual(parts, Array.from(ts), `${rng}: split`);
    assert.ok(ts.every((m) => m > 0 && m < 1));
  }
});

Deno.test("seeded: the same request gives the same answer, another seed another one", () => {
  const { y, regions } = overlapping();
  const run = (seed: number) =>
    runAudit({ labels: y, regions, nWorlds: 50, signifLevel: 0.05, seed, rng: "fast" });
  const a = run(7), b = run(7), c = run(8);
  assert.deepEqual(a.stats, b.stats);
  assert.equal(a.signif_thresh, b.signif_thresh);
  assert.notEqual(a.signif_thresh, c.signif_thresh);
});

Deno.test("fast and numpy world maxima agree in distribution (two-sample KS, α = 0.001)", () => {
  const { y, regions } = overlapping();
  const W = 2000;
  const f = runAudit({ labels: y, regions, nWorlds: W, signifLevel: 0.05, seed: 1, rng: "fast" });
  const n = runAudit({ labels: y, regions, nWorlds: W, signifLevel: 0.05, seed: 1, rng: "numpy" });
  const a = Float64Array.from(f.world_max).sort(), b = Float64Array.from(n.world_max).sort();
  let i = 0, j = 0, D = 0;
  while (i < W && j < W) {
    const x = Math.min(a[i], b[j]);
    while (i < W && a[i] <= x) i++;
    while (j < W && b[j] <= x) j++;
    D = Math.max(D, Math.abs(i - j) / W);
  }
  // Critical value of the two-sample KS statistic at α = 0.001: 1.949·sqrt((W + W)/(W·W)) = 0.0616.
  assert.ok(D < 1.949 * Math.sqrt(2 / W), `KS D = ${D}`);
  // The thresholds (95th percentiles) agree within 10% of each other.
  assert.ok(
    Math.abs(f.signif_thresh - n.signif_thresh) < 0.1 * n.signif_thresh,
    `${f.signif_thresh} ${n.signif_thresh}`,
  );
});

Deno.test("P = 0: every s is 0, T = 0, nothing significant, p-values 1, SBI 0", () => {
  const out = runAudit({
    labels: new Uint8Array(10),
    regions: regionsOf([[0, 1, 2], [3, 4]]),
    nWorlds: 20,
    signifLevel: 0.05,
    seed: 1,
    rng: "fast",
  });
  assert.equal(out.signif_thresh, 0);
  assert.equal(out.total_signif_regions, 0);
  assert.equal(out.sbi_score, 0);
  for (const st of out.stats) {
    assert.deepEqual([st.stat, st.raw_stat, st.p_value, st.is_signif], [0, 0, 1, false]);
  }
});

Deno.test("empty and full regions: s = 0, rate null when empty, left out of the SBI mean", () => {
  // N = 10, y = 1111000000 (P = 4); regions: {0..4} (p = 4), {} (empty), {0..9} (full)
  const y = Uint8Array.from(range(0, 10), (i) => (i < 4 ? 1 : 0));
  const out = runAudit({
    labels: y,
    regions: regionsOf([range(0, 5), [], range(0, 10)]),
    nWorlds: 10,
    signifLevel: 0.1,
    seed: 3,
    rng: "numpy",
  });
  // Region 0 is the hand case of statistic_test.ts: s = 0.6282364421987758, S = 4.228104552401625.
  close(out.stats[0].stat, 0.6282364421987758, 1e-12);
  close(out.stats[0].raw_stat, 4.228104552401625, 1e-12);
  assert.deepEqual(out.stats[1], {
    idx: 1,
    region_id: 1,
    n: 0,
    p: 0,
    rate: null,
    raw_stat: 0,
    stat: 0,
    p_value: 1,
    is_signif: false,
  });
  assert.equal(out.stats[2].stat, 0);
  assert.equal(out.stats[2].rate, 0.4);
  // SBI = (0.6282364421987758 + 0) / 2: the empty region is not counted, the full one is.
  close(out.sbi_score, 0.6282364421987758 / 2, 1e-12);
});

Deno.test("parameters the audit cannot honour are a caller's bug (the request schema checks them)", () => {
  const input = { labels, regions, nWorlds: 10, signifLevel: 0.05, seed: 2 ** 32 - 5, rng: "numpy" as const };
  assert.throws(() => runAudit(input), (e: Error) => {
    assert.ok(e instanceof RangeError);
    assert.match(e.message, /rng "numpy" seeds world w with seed \+ w/);
    return true;
  });
  runAudit({ ...input, rng: "fast" }); // fast mode takes any 32-bit seed
  assert.throws(() => runAudit({ ...input, signifLevel: 1 }), RangeError);
});

Deno.test("planForLabels: other labels over a plan's regions give the plan built for them, in both modes", () => {
  const { y, regions } = overlapping();
  const flipped = Uint8Array.from(y, (v, i) => (i % 7 === 0 ? 1 - v : v));
  for (const rng of ["fast", "numpy"] as const) {
    const base = planAudit(y, regions, rng);
    for (const labels of [flipped, new Uint8Array(y.length), new Uint8Array(y.length).fill(1)]) {
      assert.deepEqual(planForLabels(base, labels, regions), planAudit(labels, regions, rng), rng);
    }
    assert.throws(() => planForLabels(base, y.subarray(1), regions), RangeError);
  }
});
