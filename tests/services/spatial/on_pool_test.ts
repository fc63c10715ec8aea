import assert from "node:assert/strict";
import { TestPool as WorkerPool } from "../../support/pools.ts";
import { spatialAudit, worldRanges } from "../../../services/spatial/on_pool.ts";
import { runAudit } from "../../../core/spatial/audit.ts";
import { buildRegions, flattenRegionIds, KMEANS_SEED } from "../../../core/spatial/regions.ts";
import { InvalidParamError } from "../../../core/errors.ts";
import { Rng } from "../../../core/random.ts";
import type { Individuals } from "../../../core/spatial/types.ts";

const url = new URL("../../support/spatial_worker.ts", import.meta.url);

function demo(n: number): Individuals {
  const rng = new Rng(3);
  const lon = Float64Array.from({ length: n }, () => rng.next());
  const lat = Float64Array.from({ length: n }, () => rng.next());
  return {
    n,
    docIds: Array.from({ length: n }, (_, i) => `d${i}`),
    yPred: Uint8Array.from(lon, (x) => (rng.next() < (x < 0.2 ? 0.5 : 0.3) ? 1 : 0)),
    yTrue: Uint8Array.from({ length: n }, () => (rng.next() < 0.7 ? 1 : 0)),
    lat,
    lon,
    regionIds: null,
    prob: null,
  };
}

Deno.test("worldRanges: one range per worker, whole blocks of 16 worlds", () => {
  assert.deepEqual(worldRanges(1000, 2), [[0, 512], [512, 1000]]);
  assert.deepEqual(worldRanges(10, 2), [[0, 10]]);
  assert.deepEqual(worldRanges(1, 2), [[0, 1]]);
});

Deno.test("spatialAudit over 2 workers equals runAudit in one thread; the caller's arrays stay usable", async () => {
  const pool = new WorkerPool(url, 2);
  try {
    const ind = demo(4000);
    for (const rng of ["fast", "numpy"] as const) {
      const req = {
        individuals: ind,
        equalOpp: true,
        polygons: null,
        nWorlds: 99,
        signifLevel: 0.01,
        seed: 5,
        rng,
      };
      const got = await spatialAudit(pool, req);
      // In one thread: the scope (y_true = 1), k-means regions, the audit.
      const scope = Int32Array.from(Array.from(ind.yTrue!).flatMap((t, i) => (t === 1 ? [i] : [])));
      const regions = buildRegions(ind, scope, null, KMEANS_SEED);
      const labels = Uint8Array.from(scope, (i) => ind.yPred[i]);
      const want = runAudit({ labels, regions, nWorlds: 99, signifLevel: 0.01, seed: 5, rng });
      assert.deepEqual(Array.from(got.scope), Array.from(scope));
      assert.deepEqual(
        got.regions.members.map((m) => Array.from(m)),
        regions.members.map((m) => Array.from(m)),
      );
      assert.deepEqual(Array.from(got.audit.world_max), Array.from(want.world_max));
      assert.deepEqual(got.audit.stats, want.stats);
      assert.equal(got.audit.signif_thresh, want.signif_thresh);
      assert.equal(ind.yPred.length, 4000); // not transferred away
      assert.equal(ind.lat!.length, 4000);

      // Again with the regions prepared and other predictions: only the labels change.
      const flipped = ind.yPred.map((y) => 1 - y);
      const again = await spatialAudit(pool, { ...req, yPred: flipped, prepared: got });
      const want2 = runAudit({
        labels: labels.map((y) => 1 - y),
        regions,
        nWorlds: 99,
        signifLevel: 0.01,
        seed: 5,
        rng,
      });
      assert.deepEqual(again.audit.stats, want2.stats);
      assert.equal(got.regions.members[0].length > 0, true); // prepared regions were copied, not moved
    }
    const one = await pool.run("spatial.audit", {
      ind: demo(500),
      equalOpp: false,
      polygons: [[[0, 0], [0.5, 0], [0.5, 0.5], [0, 0.5]]],
      seed: 1,
      rng: "fast",
      prepared: null,
      nWorlds: 20,
      signifLevel: 0.05,
    });
    assert.equal((one.audit.stats as unknown[]).length, 1);
    await assert.rejects(
      spatialAudit(pool, {
        individuals: { ...ind, lat: null, lon: null },
        equalOpp: false,
        polygons: null,
        nWorlds: 10,
        signifLevel: 0.05,
        seed: 1,
        rng: "fast",
      }),
      (e: Error) => e instanceof InvalidParamError && /neither regions nor coordinates/.test(e.message),
    );
  } finally {
    pool.close();
  }
});

Deno.test("spatialAudit over 2 workers with region ids: the member lists made in parts equal one thread's", async () => {
  const pool = new WorkerPool(url, 2);
  try {
    // 3,000 individuals, 1 to 4 overlapping ids each out of 40 (repeats too), some ids sparse
    const rng = new Rng(11);
    const lists = Array.from(
      { length: 3000 },
      (_, i) =>
        Array.from({ length: 1 + (i % 4) }, () => Math.floor(rng.next() * 40) * (i % 7 === 0 ? 1 : 1000)),
    );
    const ind = { ...demo(3000), regionIds: flattenRegionIds(lists) };
    for (const equalOpp of [true, false]) {
      const req = {
        individuals: ind,
        equalOpp,
        polygons: null,
        nWorlds: 50,
        signifLevel: 0.05,
        seed: 2,
        rng: "fast" as const,
      };
      const got = await spatialAudit(pool, req);
      const scope = equalOpp
        ? Int32Array.from(Array.from(ind.yTrue!).flatMap((t, i) => (t === 1 ? [i] : [])))
        : Int32Array.from({ length: 3000 }, (_, i) => i);
      const regions = buildRegions(ind, scope, null, KMEANS_SEED);
      assert.equal(regions.source, "region_ids");
      assert.deepEqual(Array.from(got.scope), Array.from(scope));
      assert.deepEqual(got.regions.ids, regions.ids);
      assert.deepEqual(
        got.regions.members.map((m) => Array.from(m)),
        regions.members.map((m) => Array.from(m)),
      );
      assert.ok(got.regions.members.every((m) => m.buffer instanceof SharedArrayBuffer));
      const labels = Uint8Array.from(scope, (i) => ind.yPred[i]);
      const want = runAudit({ labels, regions, nWorlds: 50, signifLevel: 0.05, seed: 2, rng: "fast" });
      assert.deepEqual(got.audit.stats, want.stats);
      assert.deepEqual(Array.from(got.audit.world_max), Array.from(want.world_max));
    }
  } finally {
    pool.close();
  }
});
