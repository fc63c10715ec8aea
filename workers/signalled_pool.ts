/**
 * A pool whose every task is also ended by one signal: a request that can be cancelled (a mitigation)
 * hands this view of the service's pool to everything it runs, so that cancelling it drops its queued
 * tasks and replaces the workers running its others, at once.
 */
import type { WorkerPool } from "./pool.ts";
import type { RunOptions } from "./pool_jobs.ts";

/** `pool`, with `signal` added to every task run through it; anything else is the pool's own. */
export function withSignal<P extends WorkerPool>(pool: P, signal: AbortSignal): P {
  const run = (task: never, payload: never, opts: RunOptions = {}) =>
    pool.run(task, payload, {
      ...opts,
      signal: opts.signal ? AbortSignal.any([opts.signal, signal]) : signal,
    });
  return new Proxy(pool, {
    get(target, prop) {
      if (prop === "run") return run;
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
