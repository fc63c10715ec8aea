/**
 * A running task's progress (issue 35, item 6): reports reach the caller's onProgress from a worker and
 * inline, never after the task settled; a pool seen through withSignal ends every task of a request at
 * once; the solver's reports come through workers/tasks/mitigate.ts, throttled but for a new phase.
 */
import assert from "node:assert/strict";
import { TestPool } from "../support/pools.ts";
import { TASKS } from "../../workers/tasks.ts";
import { POOL_TEST_TASKS } from "../support/pool_tasks.ts";
import { LimitError } from "../../core/errors.ts";
import { withSignal } from "../../workers/signalled_pool.ts";
import { mitigateRelabel } from "../../services/mitigation/on_pool.ts";
import { throttled } from "../../workers/tasks/mitigate.ts";
import { createWorkerPool } from "../../workers/pool.ts";
import type { SolveProgress } from "../../core/spatial/mitigate/status.ts";
import { regionsOf } from "../core/spatial/mitigate/fixtures.ts";
import { Rng } from "../../core/random.ts";
import { captureConsole } from "../support/app.ts";

const testWorker = new URL("../support/pool_worker.ts", import.meta.url);
const testTasks = () => Promise.resolve({ ...TASKS, ...POOL_TEST_TASKS });

for (const workers of [1, 0]) {
  Deno.test(`progress: a task's reports reach its caller in order (${workers ? "worker" : "inline"})`, async () => {
    const pool = new TestPool(testWorker, workers, testTasks);
    try {
      const seen: unknown[] = [];
      // a report that cannot be cloned is dropped (inline: logged), the task goes on
      const lines = await captureConsole(async () => {
        assert.equal(await pool.run("report", { n: 3 }, { onProgress: (p) => seen.push(p) }), 3);
      });
      assert.deepEqual(seen, [{ i: 0 }, { i: 1 }, { i: 2 }]);
      assert.equal(lines.length, workers ? 0 : 1);
      // a caller whose onProgress throws still gets the task's answer; it is logged
      const failing = () => {
        throw new Error("the caller's own bug");
      };
      const logged = await captureConsole(async () => {
        assert.equal(await pool.run("report", { n: 2 }, { onProgress: failing }), 2);
      });
      assert.match(logged.join("\n"), /a task's progress report failed.*the caller's own bug/);
    } finally {
      pool.close();
    }
  });
}

Deno.test("progress: withSignal ends every task run through the view, queued or running, and no other", async () => {
  const pool = new TestPool(testWorker, 1);
  try {
    const cancel = new AbortController();
    const view = withSignal(pool, cancel.signal);
    assert.equal(view.size, 1);
    const spinning = view.run("spin", { ms: 5000 });
    const queued = view.run("echo", "never");
    const other = pool.run("echo", "other"); // another request's, queued behind the spin
    const t0 = performance.now();
    cancel.abort();
    await assert.rejects(spinning, LimitError);
    await assert.rejects(queued, LimitError);
    assert.equal(await other, "other");
    assert.ok(performance.now() - t0 < 3000, "the other task waited for the cancelled spin");
    await assert.rejects(view.run("echo", 1), LimitError); // nothing more runs through the view
    assert.equal(await pool.run("echo", 2), 2);
  } finally {
    pool.close();
  }
});

Deno.test("progress: throttled reports a new phase at once, else at most every interval", () => {
  let now = 0;
  const sent: string[] = [];
  const report = throttled((p) => sent.push(`${(p as SolveProgress).phase}@${now}`), 200, () => now);
  const at = (t: number, phase: SolveProgress["phase"]) => {
    now = t;
    report({ phase, objective: 1, bound: 0 });
  };
  at(0, "zero gap");
  at(10, "column generation");
  at(50, "column generation");
  at(209, "column generation");
  at(210, "column generation");
  at(220, "integer D");
  at(300, "integer D");
  assert.deepEqual(sent, ["zero gap@0", "column generation@10", "column generation@210", "integer D@220"]);
});

Deno.test("progress: a relabel in a worker reports its solver's phases, objective and bound", async () => {
  const pool = createWorkerPool(1);
  try {
    // 400 individuals in 12 overlapping regions, region 0 far above the rest, a budget of 8 flips: the
    // zero-gap step cannot balance it, so column generation runs and reports its masters
    const rng = new Rng(3);
    const members: number[][] = Array.from({ length: 12 }, () => []);
    const yPred = new Uint8Array(400);
    for (let j = 0; j < 400; j++) {
      for (let r = 0; r < 12; r++) if (rng.next() < 0.4) members[r].push(j);
      yPred[j] = rng.next() < (members[0].at(-1) === j ? 0.8 : 0.2) ? 1 : 0;
    }
    const scope = Int32Array.from(yPred, (_, i) => i);
    const seen: SolveProgress[] = [];
    const input = { yPred, yTrue: null, scope, regions: regionsOf(members), budget: 0.02, prTol: 0 };
    const r = await mitigateRelabel(
      pool,
      { ...input, workLimitSeconds: 10, approx: true },
      (p) => seen.push(p),
    );
    assert.equal(r.status.code, 0);
    assert.deepEqual(seen[0], { phase: "zero gap", objective: null, bound: null });
    const last = seen.at(-1)!;
    assert.equal(last.phase, "column generation", JSON.stringify(seen));
    assert.ok(last.bound! <= last.objective! + 1e-9 && last.objective! >= r.objective! - 1e-9);
  } finally {
    pool.close();
  }
});
