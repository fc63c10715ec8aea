/**
 * Worker tasks only tests run, outside the service's table: the pool's own tests' (echo, spin, fail, warm-ups,
 * sum typed arrays, name the worker, lay out a trees' arena in WebAssembly memory, report progress), served by
 * pool_worker.ts, and "spatial.audit", the whole audit in one worker, served with the service's tasks
 * by spatial_worker.ts so the spatial test compares it with the audit spread over the pool.
 */
import type { Report, TaskTable } from "../../workers/protocol.ts";
import { type PreparePayload, scoped } from "../../workers/tasks/spatial.ts";
import { runAudit } from "../../core/spatial/audit.ts";
import { InvalidInputError } from "../../core/errors.ts";
import { SplitArena } from "../../core/learn/tree_split_wasm.ts";
import { wasmBytes } from "../../wasm/layout.ts";

/** Names the isolate running the tasks: a fresh worker has another name. */
const name = crypto.randomUUID();
/** How many times this isolate ran "warm" (a pool's warm-up task). */
let warmed = 0;

export const POOL_TEST_TASKS = {
  name: (_: unknown) => name,
  arena: ({ rows }: { rows: number }) => {
    new SplitArena(rows, 0, 20, 5);
    return wasmBytes();
  },
  echo: (p: unknown) => p,
  warm: (_: unknown) => {
    warmed++;
  },
  warmed: (_: unknown) => ({ name, warmed }),
  spin: ({ ms }: { ms: number }) => {
    const end = Date.now() + ms;
    while (Date.now() < end) { /* busy, as Monte Carlo is */ }
    return "done";
  },
  fail: (_: unknown): never => {
    throw new InvalidInputError("y_pred must be 0 or 1", ["body", "mapping", "y_pred"]);
  },
  sum: ({ xs }: { xs: Float64Array }) => ({ total: xs.reduce((a, b) => a + b, 0), back: xs }),
  report: ({ n }: { n: number }, report: Report) => {
    for (let i = 0; i < n; i++) report({ i });
    report(() => {}); // cannot be cloned: dropped, the task goes on
    return n;
  },
} satisfies TaskTable;

export const AUDIT_TEST_TASKS = {
  "spatial.audit": (p: PreparePayload & { nWorlds: number; signifLevel: number }) => {
    const { scope, regions, labels } = scoped(p);
    return { audit: runAudit({ ...p, labels, regions }), regions, scope };
  },
} satisfies TaskTable;
