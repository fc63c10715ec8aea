/**
 * Audit benchmarks of BENCHMARKS.md (issue 4, item 8). Prints one line per figure: best and median of
 * `--runs` runs (default 3), after one warm-up run, and the process's peak resident memory.
 *
 *   deno run --allow-all bench/spatial_audit.ts [a] [b] [c] [kmeans] [ratio] [--runs 3]
 *
 * a: N = 206,418, 3,000 overlapping squares (region_ids), W = 1,000, rng fast (goal < 2 s)
 * b: N = 1,000,000 in 100 clusters (region_ids), W = 1,000, rng fast (goal < 0.5 s)
 * c: as a, rng numpy (goal < 30 s)
 * kmeans: rule 3 regions for N = 1,000,000 points in 100 clusters (k = 500)
 * ratio: the WASM kernel against the TypeScript kernel, worlds only, one thread, on a, b and c
 * export DIR: writes a's labels and member lists for bench/reference_audit.py (numpy), and nothing else
 * Timed: the whole audit over the 2-worker pool as the route runs it (regions from region_ids, plan,
 * worlds, summary), without making the data or loading it from a store.
 */
import { clusters, overlappingSquares } from "./spatial_fixtures.ts";
import { bestAndMedian } from "./timing.ts";
import { WorkerPool } from "../workers/pool.ts";
import { spatialAudit } from "../services/spatial/on_pool.ts";
import { buildRegions } from "../core/spatial/regions.ts";
import { planAudit } from "../core/spatial/audit.ts";
import { simulateWorlds } from "../tests/support/kernel_ts.ts";
import type { Individuals, RngMode } from "../core/spatial/types.ts";

const args = Deno.args.filter((a) => !a.startsWith("--"));
const runsAt = Deno.args.indexOf("--runs");
const RUNS = runsAt >= 0 ? Number(Deno.args[runsAt + 1]) : 3;
const want = (name: string) => args.length === 0 || args.includes(name);

/** Peak resident memory of this process (all workers included), MB. */
function peakMb(): number {
  const m = Deno.readTextFileSync("/proc/self/status").match(/VmHWM:\s+(\d+) kB/);
  return m ? Number(m[1]) / 1024 : NaN;
}

const timeIt = (f: () => unknown | Promise<unknown>, runs = RUNS) => bestAndMedian(f, runs);

const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const line = (what: string, r: { best: number; median: number }, extra = "", runs = RUNS) =>
  console.log(`${what}: best ${fmt(r.best)}, median ${fmt(r.median)} (${runs} runs)${extra}`);

async function pooled(name: string, ind: Individuals, rng: RngMode, pool: WorkerPool) {
  let last = "";
  const r = await timeIt(async () => {
    const out = await spatialAudit(pool, {
      individuals: ind,
      equalOpp: false,
      polygons: null,
      nWorlds: 1000,
      signifLevel: 0.005,
      seed: 42,
      rng,
    });
    const t = out.audit.timing_ms;
    last = `; last run: prepare ${fmt(t.plan)}, worlds ${
      fmt(t.worlds)
    }, T = ${out.audit.signif_thresh}, ${out.audit.total_signif_regions} significant of ${out.regions.members.length}`;
  });
  line(
    `${name} (N = ${ind.n}, W = 1000, rng ${rng}, 2 workers)`,
    r,
    `${last}; peak RSS ${peakMb().toFixed(0)} MB`,
  );
}

function ratio(name: string, ind: Individuals, rng: RngMode) {
  const scope = Int32Array.from({ length: ind.n }, (_, i) => i);
  const plan = planAudit(ind.yPred, buildRegions(ind, scope, null, 42), rng);
  const W = rng === "numpy" ? 160 : 1000;
  return (async () => {
    const wasm = await timeIt(() => simulateWorlds(plan, 42, 0, W, "wasm"));
    const ts = await timeIt(() => simulateWorlds(plan, 42, 0, W, "ts"));
    console.log(
      `ratio ${name} (${plan.sigCount.length} signatures, ${plan.sigRegs.length} incidences, W = ${W}, rng ${rng}, ` +
        `one thread): wasm ${fmt(wasm.best)}, ts ${fmt(ts.best)}, ts/wasm = ${
          (ts.best / wasm.best).toFixed(2)
        }`,
    );
  })();
}

/** a's audit input as flat binary files: labels (u8), members_start and members (i32, CSR). */
function exportFixture(dir: string) {
  const ind = overlappingSquares();
  const scope = Int32Array.from({ length: ind.n }, (_, i) => i);
  const { members } = buildRegions(ind, scope, null, 42);
  const start = new Int32Array(members.length + 1);
  members.forEach((m, r) => (start[r + 1] = start[r] + m.length));
  const flat = new Int32Array(start[members.length]);
  members.forEach((m, r) => flat.set(m, start[r]));
  Deno.mkdirSync(dir, { recursive: true });
  Deno.writeFileSync(`${dir}/labels.u8`, ind.yPred);
  Deno.writeFileSync(`${dir}/members_start.i32`, new Uint8Array(start.buffer));
  Deno.writeFileSync(`${dir}/members.i32`, new Uint8Array(flat.buffer));
}

if (args[0] === "export") {
  exportFixture(args[1]);
  Deno.exit(0);
}

const pool = new WorkerPool(new URL("../workers/worker.ts", import.meta.url), 2);
try {
  const a = want("a") || want("c") || want("ratio") ? overlappingSquares() : null;
  const b = want("b") || want("ratio") ? clusters() : null;
  if (want("a")) await pooled("a", a!, "fast", pool);
  if (want("b")) await pooled("b", b!, "fast", pool);
  if (want("c")) await pooled("c", a!, "numpy", pool);
  if (want("kmeans")) {
    const pts = clusters(1_000_000, 100, 2, false);
    const scope = Int32Array.from({ length: pts.n }, (_, i) => i);
    let k = 0;
    const r = await timeIt(() => (k = buildRegions(pts, scope, null, 42).members.length), 1);
    line(`kmeans regions (N = 1,000,000 in 100 blobs, k = 500, one thread)`, r, `; ${k} clusters`, 1);
  }
  if (want("ratio")) {
    await ratio("a", a!, "fast");
    await ratio("b", b!, "fast");
    await ratio("c", a!, "numpy");
  }
} finally {
  pool.close();
}
