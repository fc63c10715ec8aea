/**
 * The worker task "worker.warm": what a worker's first audit would otherwise pay, paid when the service
 * starts (main.ts: `pool.warm("worker.warm")`). The maps' renderer and base maps are loaded, and the
 * Monte Carlo kernel runs a few times on a small plan, so that V8 has compiled it with its optimising
 * tier by the first audit (its baseline code runs a first audit's worlds about twice as slowly).
 */
import { warmMaps } from "./maps.ts";
import { planAudit, simulateWorlds } from "../core/spatial/audit.ts";
import type { Regions } from "../core/spatial/types.ts";

/** Individuals, overlapping regions and calls of the kernel's warm-up: about 50 ms of worlds. */
const N = 5000, REGIONS = 200, CALLS = 5, WORLDS = 100;

/** Runs the kernel CALLS times over a plan of N individuals in REGIONS overlapping runs of positions. */
function warmKernel(): void {
  const labels = Uint8Array.from({ length: N }, (_, i) => (i * 7919) % 11 < 5 ? 1 : 0);
  const members = Array.from({ length: REGIONS }, (_, r) => {
    const from = (r * 97) % (N - 500), size = 50 + (r * 31) % 450;
    return Int32Array.from({ length: size }, (_, k) => from + k);
  });
  const regions: Regions = {
    source: "region_ids",
    ids: members.map((_, r) => r),
    members,
    polygons: null,
    unassigned: 0,
  };
  const plan = planAudit(labels, regions, "fast");
  for (let k = 0; k < CALLS; k++) simulateWorlds(plan, k, 0, WORLDS);
}

/** Entries for workers/tasks.ts. */
export const WARM_UP_TASKS = {
  "worker.warm": async () => {
    warmKernel();
    await warmMaps();
  },
};
