import assert from "node:assert/strict";
import { Rng } from "../../../../core/random.ts";
import { relabel } from "../../../../core/spatial/mitigate/relabel.ts";
import { bruteForce, close, randomInstance, totalStat } from "./fixtures.ts";

for (const overlapping of [false, true]) {
  Deno.test(`exact = brute force over every set of flips (${overlapping ? "overlapping" : "disjoint"}, 40 instances)`, async () => {
    const rng = new Rng(overlapping ? 7 : 3);
    let improved = 0;
    for (let it = 0; it < 40; it++) {
      const N = 6 + rng.int(7), R = 1 + rng.int(4);
      const inst = randomInstance(rng, N, R, overlapping);
      const want = bruteForce(inst);
      const scope = Int32Array.from({ length: N }, (_, i) => i);
      const got = await relabel({
        yPred: inst.labels,
        yTrue: null,
        scope,
        regions: inst.regions,
        approx: false,
        budget: inst.budget,
        prTol: inst.prTol,
        workLimitSeconds: 30,
      });
      const ctx = `instance ${it}: N=${N} R=${R} budget=${inst.budget} pr=${inst.prTol}`;
      assert.equal(got.status.code, 0, ctx);
      close(got.objective!, want.value, 1e-9, ctx);
      // the flips applied realise the optimum (the objective is not just a number)
      close(totalStat(got.mitigatedPreds, inst.regions), want.value, 1e-9, ctx);
      if (want.value < totalStat(inst.labels, inst.regions) - 1e-9) improved++;
      assert.ok(got.nFlips <= (inst.budget <= 1 ? Math.floor(inst.budget * N + 1e-9) : inst.budget), ctx);
    }
    assert.ok(improved >= 15, `only ${improved} of 40 instances had anything to improve`);
  });
}
