/**
 * The inline runner (WORKERS=0, and where no Web Worker can start): the same answers and the same
 * errors as the workers, the caller's arrays copied as a worker's would be, time limits and aborts kept
 * where they can be, and the fallback when workers cannot start or their module cannot load.
 */
import assert from "node:assert/strict";
import { createWorkerPool, WorkerPool } from "../../workers/pool.ts";
import { TASKS } from "../../workers/tasks.ts";
import { spatialAudit } from "../../services/spatial/on_pool.ts";
import { mitigateRelabel } from "../../services/mitigation/on_pool.ts";
import { correlateOnPool } from "../../services/valuation/on_pool.ts";
import { InvalidInputError, LimitError } from "../../core/errors.ts";
import { setLogLevel } from "../../core/log.ts";
import { Rng } from "../../core/random.ts";
import type { Individuals } from "../../core/spatial/types.ts";
import { correlationColumns } from "../../bench/valuation_data.ts";
import { TestPool } from "../support/pools.ts";
import { POOL_TEST_TASKS } from "../support/pool_tasks.ts";
import { captureConsole } from "../support/app.ts";
import { regionsOf } from "../core/spatial/mitigate/fixtures.ts";

const testWorker = new URL("../support/pool_worker.ts", import.meta.url);
const testTasks = () => Promise.resolve({ ...TASKS, ...POOL_TEST_TASKS });

function demo(n: number): Individuals {
  const rng = new Rng(11);
  const lon = Float64Array.from({ length: n }, () => rng.next());
  const lat = Float64Array.from({ length: n }, () => rng.next());
  return {
    n,
    docIds: Array.from({ length: n }, (_, i) => `d${i}`),
    yPred: Uint8Array.from(lon, (x) => (rng.next() < (x < 0.3 ? 0.6 : 0.3) ? 1 : 0)),
    yTrue: Uint8Array.from({ length: n }, () => (rng.next() < 0.7 ? 1 : 0)),
    lat,
    lon,
    regionIds: null,
    prob: null,
  };
}

/** What the HTTP layer sees of an error: its class, name, message, loc and type. */
function shape(e: unknown) {
  const err = e as Error & { loc?: unknown; type?: unknown };
  return { cls: err.constructor.name, name: err.name, message: err.message, loc: err.loc, type: err.type };
}

async function failure(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    return shape(e);
  }
  throw new Error("the task did not fail");
}

Deno.test("inline pool: the same answers as the worker pool (audit, relabel, correlations)", async () => {
  const workers = createWorkerPool(2);
  const inline = createWorkerPool(0);
  try {
    assert.equal(inline.inline, true);
    assert.equal(inline.size, 1);
    const ind = demo(3000);
    const req = {
      individuals: ind,
      equalOpp: true,
      polygons: null,
      nWorlds: 99,
      signifLevel: 0.05,
      seed: 3,
      rng: "fast" as const,
    };
    const [a, b] = [await spatialAudit(workers, req), await spatialAudit(inline, req)];
    assert.deepEqual(b.audit.stats, a.audit.stats);
    assert.deepEqual(Array.from(b.audit.world_max), Array.from(a.audit.world_max));
    assert.deepEqual(Array.from(b.scope), Array.from(a.scope));
    assert.equal(ind.yPred.length, 3000, "the caller's columns are copied, not transferred away");

    const relabelInput = {
      yPred: ind.yPred,
      yTrue: ind.yTrue,
      scope: a.scope,
      regions: a.regions,
      budget: 0.1,
      prTol: 0.05,
      workLimitSeconds: 20,
      approx: true,
    };
    const [r1, r2] = [
      await mitigateRelabel(workers, relabelInput),
      await mitigateRelabel(inline, relabelInput),
    ];
    assert.deepEqual([...r2.flipped], [...r1.flipped]);
    assert.deepEqual(r2.status, r1.status);

    const columns = correlationColumns(800, 5, 2);
    assert.deepEqual(
      (await correlateOnPool(inline, columns, ["pearson", "kendall"])).matrices,
      (await correlateOnPool(workers, columns, ["pearson", "kendall"])).matrices,
    );
  } finally {
    workers.close();
    inline.close();
  }
});

Deno.test("inline pool: errors come out as from a worker (typed with loc, plain, unknown task)", async () => {
  const workers = new TestPool(testWorker, 1);
  const inline = new TestPool(testWorker, 0, testTasks);
  const service = [createWorkerPool(1), createWorkerPool(0)];
  try {
    const yPred = Uint8Array.from([1, 1, 0, 0]);
    const relabel = {
      yPred,
      yTrue: null,
      scope: Int32Array.of(0, 1, 2, 3),
      regions: regionsOf([[0, 1], [2, 3]]),
      budget: -1,
      prTol: 0,
      workLimitSeconds: 5,
      approx: true,
    };
    const cases: [string, (p: WorkerPool) => Promise<unknown>][] = [
      ["typed error", (p) => p.run("mitigate.relabel", relabel)],
      ["plain error", (p) => p.run("annotate.run", { name: "no_such_function", rows: [], params: {} })],
    ];
    for (const [what, call] of cases) {
      const [w, i] = [await failure(call(service[0])), await failure(call(service[1]))];
      assert.deepEqual(i, w, what);
    }
    const typed = await failure(inline.run("fail", {}));
    assert.deepEqual(typed, await failure(workers.run("fail", {})));
    assert.deepEqual([typed.cls, typed.loc], ["InvalidInputError", ["body", "mapping", "y_pred"]]);
    assert.deepEqual(await failure(inline.run("nope", {})), await failure(workers.run("nope", {})));
    await assert.rejects(inline.run("fail", {}), InvalidInputError);
  } finally {
    workers.close();
    inline.close();
    for (const p of service) p.close();
  }
});

Deno.test("inline pool: the caller's arrays are copied unless handed over, results are the task's own", async () => {
  const pool = new TestPool(testWorker, 0, testTasks);
  try {
    const xs = new Float64Array([1, 2]);
    const r = await pool.run("sum", { xs });
    assert.equal(r.total, 3);
    assert.notEqual(r.back, xs);
    assert.equal(xs.length, 2);
    await pool.run("sum", { xs }, { transfer: true });
    assert.equal(xs.length, 0);
  } finally {
    pool.close();
  }
});

Deno.test("inline pool: time limits hold in the queue and after a task that cannot be interrupted", async () => {
  const pool = new TestPool(testWorker, 0, testTasks);
  try {
    // the task runs to its end (nothing interrupts synchronous code in this isolate), then fails as in a worker
    const t0 = performance.now();
    await assert.rejects(pool.run("spin", { ms: 300 }, { timeoutMs: 100 }), (e: Error) => {
      assert.ok(e instanceof LimitError);
      assert.equal(e.message, "time limit of 0.1 s reached");
      return true;
    });
    assert.ok(performance.now() - t0 >= 290);
    // queued behind a spin past its limit: it leaves the queue unstarted
    const busy = pool.run("spin", { ms: 300 });
    const late = pool.run("echo", "late", { timeoutMs: 100 });
    await assert.rejects(late, /time limit of 0.1 s reached/);
    assert.equal(await busy, "done");
    assert.equal(pool.queued, 0);
    // aborted: queued ones are dropped, a running one fails once it ends
    const ctl = new AbortController();
    const running = pool.run("spin", { ms: 200 }, { signal: ctl.signal });
    const queued = pool.run("echo", 1, { signal: ctl.signal });
    setTimeout(() => ctl.abort(), 0);
    await assert.rejects(queued, /cancelled/);
    await assert.rejects(running, LimitError);
    assert.equal(await pool.run("echo", 2), 2);
  } finally {
    pool.close();
  }
});

Deno.test("inline pool: a pool of 0 workers needs its task table", () => {
  assert.throws(() => new WorkerPool(testWorker, 0), RangeError);
});

/** Makes `new Worker` throw, as on a platform without workers; `restore()` puts it back. */
function withoutWorkers(): { restore(): void } {
  const real = globalThis.Worker;
  globalThis.Worker = class {
    constructor() {
      throw new TypeError("Worker is not supported");
    }
  } as unknown as typeof Worker;
  return { restore: () => void (globalThis.Worker = real) };
}

Deno.test("worker pool: where new Worker throws, it runs inline and warns once", async () => {
  setLogLevel("warn");
  const platform = withoutWorkers();
  const pool = createWorkerPool(4);
  try {
    const lines = await captureConsole(async () => {
      const out = await Promise.all([1, 2, 3].map((i) => pool.run("spatial.worlds", worldsOf(i))));
      assert.deepEqual(out.map((w) => w.length), [1, 2, 3]);
      await pool.run("spatial.worlds", worldsOf(1));
    });
    assert.equal(pool.inline, true);
    assert.equal(lines.length, 1, lines.join("\n"));
    assert.match(lines[0], /"level":"warn".*runs its tasks inline.*Worker is not supported/);
  } finally {
    platform.restore();
    pool.close();
    setLogLevel("silent");
  }
});

Deno.test("worker pool: where the worker's module cannot load, its tasks run inline instead", async () => {
  setLogLevel("warn");
  // a module that fails as it loads (Deno prints its error; the pool hears it as the worker's error event)
  const unloadable = new URL(`data:application/javascript,throw new Error("no workers here")`);
  const pool = new TestPool(unloadable, 2, testTasks);
  try {
    const lines = await captureConsole(async () => {
      assert.deepEqual(await Promise.all([pool.run("echo", 1), pool.run("echo", 2), pool.run("echo", 3)]), [
        1,
        2,
        3,
      ]);
      assert.deepEqual(await failure(pool.run("fail", {})), await failure(Promise.reject(failNow())));
    });
    assert.equal(pool.inline, true);
    assert.equal(lines.length, 1, lines.join("\n"));
    assert.match(lines[0], /a web worker cannot load here.*no workers here/);
  } finally {
    pool.close();
    setLogLevel("silent");
  }
});

/** The error of the test task "fail", thrown in place. */
function failNow() {
  try {
    POOL_TEST_TASKS.fail({});
  } catch (e) {
    return e;
  }
}

/** A small Monte Carlo plan's payload of "spatial.worlds" for `w` worlds (built in one thread). */
function worldsOf(w: number) {
  return { plan: plan(), seed: 1, w0: 0, w1: w };
}

let cached: ReturnType<typeof TASKS["spatial.prepare"]>["plan"] | null = null;

function plan() {
  if (!cached) {
    const ind = demo(400);
    cached = TASKS["spatial.prepare"]({
      ind,
      equalOpp: false,
      polygons: null,
      seed: 1,
      rng: "fast",
      prepared: null,
    }).plan;
  }
  return cached;
}

Deno.test("worker pool: warm() starts every worker at once, so no task waits for one to start", async () => {
  const real = globalThis.Worker;
  let started = 0;
  globalThis.Worker = class extends real {
    constructor(url: string | URL, opts?: WorkerOptions) {
      super(url, opts);
      started++;
    }
  };
  const pool = new TestPool(testWorker, 2);
  try {
    pool.warm();
    assert.equal(started, 2);
    pool.warm(); // already warm: nothing more
    assert.deepEqual(await Promise.all([pool.run("echo", 1), pool.run("echo", 2), pool.run("echo", 3)]), [
      1,
      2,
      3,
    ]);
    assert.equal(started, 2);
  } finally {
    globalThis.Worker = real;
    pool.close();
  }
});

Deno.test("worker pool: warm(task) runs the task once on each worker before any other task", async () => {
  const pool = new TestPool(testWorker, 2);
  try {
    const warming = pool.warm("warm");
    const seen = await Promise.all([1, 2, 3, 4].map(() => pool.run("warmed", null)));
    for (const s of seen) assert.equal(s.warmed, 1);
    await warming; // resolved once both warm-ups ended
    await pool.warm("warm"); // every worker is started: nothing more runs
    assert.deepEqual((await pool.run("warmed", null)).warmed, 1);
  } finally {
    pool.close();
  }
});

Deno.test("worker pool: the service's warm-up task (small maps on both base maps, a few runs of the kernel) runs in a worker", async () => {
  const pool = createWorkerPool(1);
  try {
    assert.equal(await pool.run("worker.warm", undefined), undefined);
  } finally {
    pool.close();
  }
});

Deno.test("worker pool: a warm-up that fails is logged and the workers serve on", async () => {
  const lines: string[] = [];
  const warn = console.warn;
  console.warn = (line: string) => lines.push(line);
  setLogLevel("warn");
  const pool = new TestPool(testWorker, 1);
  try {
    pool.warm("fail");
    assert.equal(await pool.run("echo", 7), 7);
    assert.equal(lines.length, 1);
    assert.match(lines[0], /warm-up failed.*y_pred must be 0 or 1/);
  } finally {
    console.warn = warn;
    setLogLevel("silent");
    pool.close();
  }
});

Deno.test("worker pool: inline, warm(task) runs nothing (it would hold the event loop)", async () => {
  const pool = new TestPool(testWorker, 0, testTasks);
  try {
    pool.warm("warm");
    assert.equal((await pool.run("warmed", null)).warmed, 0);
  } finally {
    pool.close();
  }
});

Deno.test("worker pool: warm() where new Worker throws goes inline at once", async () => {
  setLogLevel("silent");
  const platform = withoutWorkers();
  const pool = createWorkerPool(2);
  try {
    pool.warm();
    assert.equal(pool.inline, true);
    assert.deepEqual((await pool.run("spatial.worlds", worldsOf(2))).length, 2);
  } finally {
    platform.restore();
    pool.close();
  }
});
