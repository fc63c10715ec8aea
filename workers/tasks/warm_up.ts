/**
 * The worker task "worker.warm": what a worker's first audit would otherwise pay, paid when the service
 * starts (main.ts: `pool.warm("worker.warm")`). The maps' renderer and base maps are loaded, and a small
 * audit is prepared and its Monte Carlo kernel run a few times, so that V8 has compiled that code with its
 * optimising tier by the first audit (its baseline code ran a first audit's worlds about twice as slowly).
 */
import { warmMaps } from "./maps.ts";
import { SPATIAL_TASKS } from "./spatial.ts";
import { simulateWorlds } from "../../core/spatial/audit.ts";
import { flattenRegionIds } from "../../core/spatial/regions.ts";
import type { Individuals, RegionLists } from "../../core/spatial/types.ts";

/** Individuals, overlapping regions and calls of the kernel's warm-up: enough for V8 to optimise it, little more. */
const N = 5000, REGIONS = 200, CALLS = 5, WORLDS = 100;

/**
 * Region id lists with 32-bit ids, as the loader keeps them (flattenRegionIds gives doubles), so that the
 * code is warmed on the element types it will read.
 */
function int32Ids(lists: RegionLists): RegionLists {
  return { start: lists.start, ids: Int32Array.from(lists.ids) };
}

/**
 * Prepares an audit of N individuals in REGIONS overlapping runs of positions (region ids, as an audit's
 * prepare task does: regions, signatures, plan), then runs the kernel CALLS times over its plan.
 */
function warmAudit(): void {
  const lists: number[][] = Array.from({ length: N }, () => []);
  for (let r = 0; r < REGIONS; r++) {
    const from = (r * 97) % (N - 500), size = 50 + (r * 31) % 450;
    for (let i = from; i < from + size; i++) lists[i].push(r);
  }
  for (const list of lists) if (!list.length) list.push(REGIONS); // every individual has a region
  const ind: Individuals = {
    n: N,
    docIds: [],
    yPred: Uint8Array.from({ length: N }, (_, i) => (i * 7919) % 11 < 5 ? 1 : 0),
    yTrue: new Uint8Array(N).fill(1),
    lat: null,
    lon: null,
    regionIds: int32Ids(flattenRegionIds(lists)),
    prob: null,
  };
  const { plan } = SPATIAL_TASKS["spatial.prepare"]({
    ind,
    equalOpp: true,
    polygons: null,
    seed: 1,
    rng: "fast",
    prepared: null,
  });
  for (let k = 0; k < CALLS; k++) simulateWorlds(plan, k, 0, WORLDS);
}

/** Entries for workers/tasks.ts. */
export const WARM_UP_TASKS = {
  "worker.warm": async () => {
    warmAudit();
    await warmMaps();
  },
};
