import assert from "node:assert/strict";
import { MT19937, numpyBernoulli, numpyLabel } from "../../../core/spatial/mt19937.ts";

// Reference values printed by numpy 2.4.6 (pip install numpy), legacy RandomState:
//   np.random.seed(s); np.random.random(k).tolist()          -> doubles
//   np.random.seed(s); ''.join(map(str, np.random.binomial(1, p, k)))  -> labels
const doubles = (seed: number, k: number) => {
  const mt = new MT19937(seed);
  return Array.from({ length: k }, () => mt.double());
};
const labels = (seed: number, p: number, k: number) => {
  const mt = new MT19937(seed), b = numpyBernoulli(p);
  return Array.from({ length: k }, () => numpyLabel(mt, b)).join("");
};

Deno.test("MT19937: numpy's check values for seed 42 (docs/spatial-fairness.md)", () => {
  assert.deepEqual(doubles(42, 3), [0.3745401188473625, 0.9507143064099162, 0.7319939418114051]);
});

Deno.test("MT19937: more numpy values (seed 0, seed 2^32-1, the 1000th double of seed 123, past 3 twists)", () => {
  assert.deepEqual(doubles(0, 3), [0.5488135039273248, 0.7151893663724195, 0.6027633760716439]);
  assert.deepEqual(doubles(2 ** 32 - 1, 2), [0.0976320289940138, 0.9123828453026218]);
  assert.equal(doubles(123, 1000)[999], 0.2948947090182449);
});

Deno.test("numpy labels: binomial(1, p) bit for bit for p below and above 1/2", () => {
  assert.equal(
    labels(42, 0.3, 64),
    "0110000101011000000000000100000001110000000100000011110100000010",
  );
  assert.equal(
    labels(7, 0.7, 64),
    "1010011111101110110110110110111111100111111110101011111110110111",
  );
  // np.random.seed(9); y = np.random.binomial(1, 0.25, 100000): y.sum() = 24941, y[-8:] = 00000011
  const y = labels(9, 0.25, 100_000);
  assert.equal([...y].filter((c) => c === "1").length, 24941);
  assert.equal(y.slice(-8), "00000011");
});
