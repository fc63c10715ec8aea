import assert from "node:assert/strict";
import { flipsFromUnits, regionsDelta, roundHalfEven } from "../../../../core/spatial/mitigate/flips.ts";
import { buildProblem } from "../../../../core/spatial/mitigate/problem.ts";
import { classificationMetrics } from "../../../../core/spatial/mitigate/metrics.ts";
import { regionsOf } from "./fixtures.ts";

Deno.test("rounding: half to even (as numpy.round), solver noise snapped to the half it means", () => {
  const cases: [number, number][] = [
    [2.5, 2],
    [3.5, 4],
    [-2.5, -2],
    [-3.5, -4],
    [0.5, 0],
    [1.5, 2],
    [0.6, 1],
    [-0.6, -1],
    [2.4999999999, 2], // within 1e-9 of 2.5 → 2.5 → 2
    [3.4999999999, 4],
    [2.49, 2],
    [2.9999999999, 3],
  ];
  for (const [v, want] of cases) assert.equal(roundHalfEven(v), want, `round(${v})`);
});

Deno.test("flips (disjoint): δ_i rounds, then the first |k| members by index with the right prediction flip", () => {
  // region 0 = positions 0..4, labels 1 0 1 0 0; region 1 = 5..7, labels 1 1 0
  const labels = Uint8Array.from([1, 0, 1, 0, 0, 1, 1, 0]);
  const pr = buildProblem(labels, regionsOf([[0, 1, 2, 3, 4], [5, 6, 7]]), { budget: 1, prTol: 1 });
  // units: (r0,1)=[0,2] (r0,0)=[1,3,4] (r1,1)=[5,6] (r1,0)=[7]
  const delta = (up0: number, down0: number, up1: number, down1: number) =>
    Float64Array.from([-down0, up0, -down1, up1]);
  assert.deepEqual([...flipsFromUnits(pr, delta(1.5, 0, 0, 0))], [1, 3]); // +1.5 → +2
  assert.deepEqual([...flipsFromUnits(pr, delta(0, 0.5, 0, 0))], []); // -0.5 → 0
  assert.deepEqual([...flipsFromUnits(pr, delta(0, 1.5, 0, 1))], [0, 2, 5]); // -1.5 → -2; -1
  // up 1.2 and down 0.6 in one region: net +0.6 → +1
  assert.deepEqual([...flipsFromUnits(pr, delta(1.2, 0.6, 0, 0))], [1]);
  assert.deepEqual([...regionsDelta(pr, delta(1.2, 0.6, 0.25, 0))], [0.6, 0.25]);
});

Deno.test("flips (overlapping): each individual's δ_j rounds on its own (a unit's sum spread by index)", () => {
  const labels = Uint8Array.from([0, 0, 0, 1, 1]);
  const pr = buildProblem(labels, regionsOf([[0, 1, 2, 3], [2, 3, 4]]), { budget: 1, prTol: 1 });
  // units: ({0},0)=[0,1] ({0,1},0)=[2] ({0,1},1)=[3] ({1},1)=[4]
  assert.deepEqual([...pr.unitCount], [2, 1, 1, 1]);
  // unit 0 flips 1.7 → δ = (1, 0.7) → flips 0 and 1; unit 1 at 0.5 → rounds to 0; unit 3 at -0.51 → -1
  assert.deepEqual([...flipsFromUnits(pr, Float64Array.from([1.7, 0.5, 0, -0.51]))], [0, 1, 4]);
  assert.deepEqual([...flipsFromUnits(pr, Float64Array.from([1.5, 0, 0, 0]))], [0]); // (1, 0.5) → (1, 0)
});

Deno.test("metrics: accuracy, precision, recall, F1 by hand; 0 where undefined", () => {
  const yTrue = [1, 1, 0, 0, 1], yPred = [1, 0, 0, 1, 1]; // tp 2, fn 1, fp 1, tn 1
  const m = classificationMetrics(yPred, yTrue);
  assert.deepEqual([m.tp, m.fn, m.fp, m.tn, m.n], [2, 1, 1, 1, 5]);
  assert.equal(m.accuracy, 3 / 5);
  assert.equal(m.precision, 2 / 3);
  assert.equal(m.recall, 2 / 3);
  assert.equal(m.f1, 2 / 3);
  const none = classificationMetrics([0, 0, 0], [1, 0, 1]);
  assert.deepEqual([none.precision, none.recall, none.f1, none.accuracy], [0, 0, 0, 1 / 3]);
  const sub = classificationMetrics(yPred, yTrue, [0, 1]); // positions 0 and 1 only: tp 1, fn 1
  assert.deepEqual([sub.accuracy, sub.precision, sub.recall], [0.5, 1, 0.5]);
});
