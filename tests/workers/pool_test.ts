import assert from "node:assert/strict";
import { TestPool as WorkerPool } from "../support/pools.ts";
import { InvalidInputError, LimitError } from "../../core/errors.ts";

const url = new URL("../support/pool_worker.ts", import.meta.url);

Deno.test("pool: results come back, typed arrays included; typed errors keep their type and loc", async () => {
  const pool = new WorkerPool(url, 2);
  try {
    assert.deepEqual(await pool.run("echo", { a: [1, 2] }), { a: [1, 2] });
    const r = await pool.run("sum", {
      xs: new Float64Array([1, 2, 3.5]),
    });
    assert.equal(r.total, 6.5);
    assert.ok(r.back instanceof Float64Array);
    await assert.rejects(pool.run("fail", {}), (e: Error) => {
      assert.ok(e instanceof InvalidInputError);
      assert.deepEqual(e.loc, ["body", "mapping", "y_pred"]);
      return true;
    });
    await assert.rejects(pool.run("nope", {}), /unknown task 'nope'/);
  } finally {
    pool.close();
  }
});

Deno.test("pool: the event loop stays free while a worker spins; a time limit ends the task, not the pool", async () => {
  const pool = new WorkerPool(url, 1);
  try {
    const t0 = performance.now();
    const spinning = pool.run("spin", { ms: 600 });
    const tick = await new Promise<number>((r) => setTimeout(() => r(performance.now() - t0), 50));
    assert.ok(tick < 400, `timer fired after ${tick} ms`);
    assert.equal(await spinning, "done");

    await assert.rejects(pool.run("spin", { ms: 5000 }, { timeoutMs: 200 }), (e: Error) => {
      assert.ok(e instanceof LimitError);
      assert.match(e.message, /time limit of 0.2 s/);
      return true;
    });
    assert.deepEqual(await pool.run("echo", 7), 7);
  } finally {
    pool.close();
  }
});

Deno.test("pool: more tasks than workers queue and all finish", async () => {
  const pool = new WorkerPool(url, 2);
  try {
    const out = await Promise.all(Array.from({ length: 6 }, (_, i) => pool.run("echo", i)));
    assert.deepEqual(out, [0, 1, 2, 3, 4, 5]);
  } finally {
    pool.close();
  }
});

Deno.test("pool: payload arrays are copied unless the caller hands them over", async () => {
  const pool = new WorkerPool(url, 1);
  try {
    const xs = new Float64Array([1, 2]);
    await pool.run("sum", { xs });
    assert.equal(xs.length, 2);
    await pool.run("sum", { xs }, { transfer: true });
    assert.equal(xs.length, 0);
  } finally {
    pool.close();
  }
});

/** Runs fn while counting, by task name, the tasks the pool hands to a worker (its postMessage calls). */
async function countingStarts(fn: (starts: Map<string, number>) => Promise<void>): Promise<void> {
  const starts = new Map<string, number>();
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (this: Worker, msg: { task: string }, ...rest: unknown[]) {
    starts.set(msg.task, (starts.get(msg.task) ?? 0) + 1);
    return (post as (...a: unknown[]) => void).call(this, msg, ...rest);
  } as typeof post;
  try {
    await fn(starts);
  } finally {
    Worker.prototype.postMessage = post;
  }
}

Deno.test("pool: a task's time limit counts its wait in the queue; past it, it leaves the queue unstarted", async () => {
  await countingStarts(async (starts) => {
    const pool = new WorkerPool(url, 1);
    try {
      const busy = pool.run("spin", { ms: 600 }); // takes the only worker
      const t0 = performance.now();
      await assert.rejects(pool.run("echo", "late", { timeoutMs: 150 }), (e: Error) => {
        assert.ok(e instanceof LimitError);
        assert.match(e.message, /time limit of 0.15 s/);
        return true;
      });
      const waited = performance.now() - t0;
      assert.ok(waited >= 140 && waited < 550, `rejected after ${waited} ms, before the spin ended`);
      assert.equal(pool.queued, 0);
      assert.equal(await busy, "done");
      assert.equal(await pool.run("echo", 3), 3); // the worker took the next task, not the expired one
      assert.deepEqual([starts.get("spin"), starts.get("echo")], [1, 1]);
    } finally {
      pool.close();
    }
  });
});

Deno.test("pool: an aborted queued task is dropped; an aborted running one has its worker replaced", async () => {
  await countingStarts(async (starts) => {
    const pool = new WorkerPool(url, 1);
    try {
      const busy = new AbortController();
      const spinning = pool.run("spin", { ms: 5000 }, { signal: busy.signal });
      const waiting = new AbortController();
      const queued = pool.run("echo", "never", { signal: waiting.signal });
      waiting.abort();
      await assert.rejects(queued, (e: Error) => e instanceof LimitError && /cancelled/.test(e.message));
      assert.equal(pool.queued, 0);

      const t0 = performance.now();
      busy.abort(); // without the worker being replaced, the spin would hold it for 5 s
      await assert.rejects(spinning, LimitError);
      assert.equal(await pool.run("echo", 4), 4);
      assert.ok(performance.now() - t0 < 3000, "the next task waited for the aborted spin");
      assert.deepEqual([starts.get("spin"), starts.get("echo")], [1, 1]);

      await assert.rejects(pool.run("echo", 5, { signal: AbortSignal.abort() }), LimitError);
      assert.equal(starts.get("echo"), 1);
    } finally {
      pool.close();
    }
  });
});

Deno.test("pool: a worker left holding much WebAssembly memory is retired after its task; others are kept", async () => {
  const pool = new WorkerPool(url, 1);
  try {
    const first = await pool.run("name", {});
    // A small arena (a few MB): the same worker serves on.
    assert.ok((await pool.run("arena", { rows: 1000 })) < 64 * 1024 * 1024);
    assert.equal(await pool.run("name", {}), first);
    // 400,000 rows of 20 features need ~100 MB, past the worker's 64 MB: its answer still arrives,
    // then a fresh worker (another name) takes the next task.
    assert.ok((await pool.run("arena", { rows: 400_000 })) > 64 * 1024 * 1024);
    const second = await pool.run("name", {});
    assert.notEqual(second, first);
    assert.equal(await pool.run("name", {}), second);
  } finally {
    pool.close();
  }
});
