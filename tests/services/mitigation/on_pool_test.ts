import assert from "node:assert/strict";
import { WorkerPool } from "../../../workers/pool.ts";
import { mitigateRelabel, mitigateThreshold } from "../../../services/mitigation/on_pool.ts";
import { regionsOf } from "../../core/spatial/mitigate/fixtures.ts";

const worker = new URL("../../../workers/worker.ts", import.meta.url);

Deno.test("worker tasks mitigate.relabel and mitigate.threshold run in the pool; a 422 keeps its type", async () => {
  const pool = new WorkerPool(worker, 1);
  try {
    const yPred = Uint8Array.from([1, 1, 1, 1, 0, 0, 0, 0, 1, 0]);
    const regions = regionsOf([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]); // rates 0.8 and 0.2
    const scope = Int32Array.from(yPred, (_, i) => i);
    const base = { yPred, yTrue: null, scope, regions, budget: 0.2, prTol: 0, workLimitSeconds: 10 };
    for (const approx of [true, false]) {
      const r = await mitigateRelabel(pool, { ...base, approx });
      assert.equal(r.status.code, 0);
      // s = 0 keeps P = 5; two flips: one positive of region 0 down, one negative of region 1 up
      assert.deepEqual([...r.flipped], [0, 5]);
      assert.ok(r.mitigatedPreds instanceof Uint8Array);
    }
    const prob = Float64Array.from(yPred, (y, i) => (y ? 0.6 + i / 100 : 0.4 - i / 100));
    const t = await mitigateThreshold(pool, {
      yPred,
      yTrue: null,
      prob,
      regions,
      equalOpp: false,
      approx: true,
      budget: 0.2,
      prTol: 0,
      workLimitSeconds: 10,
      defaultBoundary: 0.5,
      trainRatio: 0.5,
      stratified: false,
      randomState: 1,
    });
    assert.equal(t.newThresholds.length, 2);
    assert.equal(yPred.length, 10, "the caller's columns are copied, not transferred away");
    assert.equal(prob.length, 10);
    await assert.rejects(pool.run("mitigate.relabel", { ...base, approx: true, budget: -1 }), (e: Error) => {
      // budget_constr is checked by the request schema: a negative one reaching core is a bug
      assert.equal(e.name, "RangeError");
      assert.match(e.message, /budget -1/);
      return true;
    });
  } finally {
    pool.close();
  }
});
