/** A worker module for the pool's own tests: tasks that echo, spin, fail and sum typed arrays. */
import { serveTasks } from "../../workers/protocol.ts";
import { InvalidInputError } from "../../core/errors.ts";

serveTasks({
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
});
