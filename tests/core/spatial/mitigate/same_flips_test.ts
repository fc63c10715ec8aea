import assert from "node:assert/strict";
import { Rng } from "../../../../core/random.ts";
import { relabel, type RelabelInput, type RelabelResult } from "../../../../core/spatial/mitigate/relabel.ts";
import { sameFlipsAt, zeroFlipsFit } from "../../../../core/spatial/mitigate/same_flips.ts";
import { WARM_FIT } from "../../../../core/spatial/mitigate/status.ts";
import type { Regions } from "../../../../core/spatial/types.ts";
import { randomInstance, regionsOf } from "./fixtures.ts";

const solve = (labels: Uint8Array, regions: Regions, extra: Partial<RelabelInput> & { budget: number }) =>
  relabel({
    yPred: labels,
    yTrue: null,
    scope: Int32Array.from(labels, (_, i) => i),
    regions,
    approx: true,
    prTol: 0.5,
    workLimitSeconds: 20,
    ...extra,
  });

/** Everything of an answer but the seconds it took. */
const figures = ({ seconds: _s, ...rest }: RelabelResult) => rest;

/** Region 0 holds 8 positives of 10, region 1 holds 2 of 10: six flips (down in 0, up in 1) close the gap. */
const labels = Uint8Array.from({ length: 20 }, (_, i) => (i < 10 ? (i < 8 ? 1 : 0) : (i < 12 ? 1 : 0)));
const regions = regionsOf([[...Array(10).keys()], [...Array(10).keys()].map((i) => i + 10)]);

Deno.test("zeroFlipsFit: approx flips optimal at 0 fit a budget of at least their count, and nothing else", async () => {
  const r = await solve(labels, regions, { budget: 0.5 }); // C = 10
  assert.equal(r.status.code, 0);
  assert.equal(r.bound, 0);
  assert.equal(r.nFlips, 6);
  assert.equal(zeroFlipsFit(r, true, 0.3, 20), true); // C = 6
  assert.equal(zeroFlipsFit(r, true, 6, 20), true);
  assert.equal(zeroFlipsFit(r, true, 0.25, 20), false); // C = 5
  assert.equal(zeroFlipsFit(r, false, 0.3, 20), false); // exact solves do not start from flips
  const bound = await solve(labels, regions, { budget: 0.2 }); // C = 4: 2√5·0.2 left, not 0
  assert.ok(bound.objective! > 0.1);
  assert.equal(zeroFlipsFit(bound, true, 0.5, 20), false);
});

Deno.test("sameFlipsAt: the answer at a smaller budget carries that budget's C and window of newP", async () => {
  const r = await solve(labels, regions, { budget: 0.5 });
  // P = 10 of N = 20, s = 0.5: the rate window [5, 15]; C = 6 leaves it, C = 1 cuts it to [9, 11]
  const at6 = sameFlipsAt(r, { budget: 0.3, prTol: 0.5 }, 20, 10);
  assert.equal(at6.flipBudget, 6);
  assert.deepEqual(at6.newPositivesWindow, [5, 15]);
  assert.deepEqual(sameFlipsAt(r, { budget: 1.5, prTol: 0.5 }, 20, 10).newPositivesWindow, [9, 11]);
  assert.equal(at6.status.code, 0);
  assert.equal(at6.status.detail, WARM_FIT);
  assert.equal(at6.seconds.solve, 0);
  assert.deepEqual(at6.mitigatedPreds, r.mitigatedPreds);
});

Deno.test("sameFlipsAt is what the solver answers when started from the flips (overlapping instances)", async () => {
  let compared = 0;
  for (let seed = 1; compared < 12 && seed < 200; seed++) {
    const inst = randomInstance(new Rng(seed), 24, 4, true);
    const top = await solve(inst.labels, inst.regions, { budget: 1, prTol: inst.prTol });
    let P = 0;
    for (const v of inst.labels) P += v;
    for (const budget of [0.1, 0.2, 0.3, 0.5, 0.8]) {
      if (!zeroFlipsFit(top, true, budget, 24)) continue;
      const settings = { budget, prTol: inst.prTol };
      const solved = await solve(inst.labels, inst.regions, { ...settings, warm: top.unitDelta });
      assert.deepEqual(
        figures(sameFlipsAt(top, settings, 24, P)),
        figures(solved),
        `seed ${seed}, ${budget}`,
      );
      compared++;
    }
  }
  assert.ok(compared >= 12, `${compared} comparisons`);
});
