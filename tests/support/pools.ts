/**
 * Worker pools for tests. `TestPool` is the service's WorkerPool typed also over the test-only tasks of
 * pool_tasks.ts (pool_worker.ts and spatial_worker.ts serve them), and over names no worker knows, for the
 * pool's own tests of an unknown task: the typed escape hatch stays here, out of workers/.
 * `servicePool(size)` is the pool a test app runs on: `size` workers, or what WORKERS says.
 */
import { createWorkerPool, WorkerPool } from "../../workers/pool.ts";
import type { RunOptions } from "../../workers/pool_jobs.ts";
import type { TaskInputOf, TaskOutputOf } from "../../workers/protocol.ts";
import type { TaskInput, TaskName, TaskOutput } from "../../workers/tasks.ts";
import type { AUDIT_TEST_TASKS, POOL_TEST_TASKS } from "./pool_tasks.ts";

type TestTasks = typeof POOL_TEST_TASKS & typeof AUDIT_TEST_TASKS;
type TestName = keyof TestTasks;

export class TestPool extends WorkerPool {
  /** A task of the service's table. */
  override run<K extends TaskName>(task: K, payload: TaskInput<K>, opts?: RunOptions): Promise<TaskOutput<K>>;
  /** A test-only task. */
  override run<K extends TestName>(
    task: K,
    payload: TaskInputOf<TestTasks, K>,
    opts?: RunOptions,
  ): Promise<TaskOutputOf<TestTasks, K>>;
  /** A name no worker serves (it fails with "unknown task"). */
  override run<N extends string>(
    task: N & Exclude<N, TaskName | TestName>,
    payload: unknown,
    opts?: RunOptions,
  ): Promise<unknown>;
  override run(task: string, payload: unknown, opts?: RunOptions): Promise<unknown> {
    return super.run(task as TaskName, payload as never, opts);
  }

  /** Warms with a task of the service's table or a test-only one. */
  override warm(task?: TaskName | TestName): Promise<void> {
    return super.warm(task as TaskName);
  }
}

/**
 * The service's pool for a test app: `size` workers, or the WORKERS environment variable's number when
 * set (WORKERS=0: every task inline, as `deno task test` runs the audit, mitigation, valuation and
 * cleaning route tests a second time).
 */
export function servicePool(size: number): WorkerPool {
  const env = Deno.env.get("WORKERS");
  if (env === undefined || env === "") return createWorkerPool(size);
  const workers = Number(env);
  if (!Number.isInteger(workers) || workers < 0) throw new Error(`WORKERS=${env} is not a number of workers`);
  return createWorkerPool(workers);
}
