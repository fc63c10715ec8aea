/**
 * A worker module for the pool's own tests: tasks that echo, spin, fail, sum typed arrays, name the
 * worker, and lay out a trees' arena in WebAssembly memory; it asks to be retired above 64 MB of it.
 */
import { serveTasks } from "../../workers/protocol.ts";
import { InvalidInputError } from "../../core/errors.ts";
import { SplitArena } from "../../core/learn/tree_split_wasm.ts";
import { wasmBytes } from "../../wasm/layout.ts";

const name = crypto.randomUUID();

serveTasks({
  name: () => name,
  arena: ({ rows }: { rows: number }) => {
    new SplitArena(rows, 0, 20, 5);
    return wasmBytes();
  },
  echo: (p) => p,
  spin: ({ ms }: { ms: number }) => {
    const end = Date.now() + ms;
    while (Date.now() < end) { /* busy, as Monte Carlo is */ }
    return "done";
  },
  fail: () => {
    throw new InvalidInputError("y_pred must be 0 or 1", ["body", "mapping", "y_pred"]);
  },
  sum: ({ xs }: { xs: Float64Array }) => ({ total: xs.reduce((a, b) => a + b, 0), back: xs }),
}, 64 * 1024 * 1024);
