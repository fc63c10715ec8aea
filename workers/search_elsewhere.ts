/**
 * PROMIS-Exact's local search on a second core (core/spatial/mitigate/exact_start.ts SearchElsewhere): a
 * worker of its own, started by the solving worker, so that the pool's worker count stays what it is and a
 * cancelled solve (its worker terminated) takes this one with it.
 */
import type { Flips } from "../core/spatial/mitigate/exact_local.ts";
import type { SearchElsewhere } from "../core/spatial/mitigate/exact_start.ts";

/** How long past its time an answer is waited for before the search counts as failed. */
const GRACE_MS = 2_000;

/** Starts the search; `result` answers its flips, or null when the worker failed or did not answer in time. */
export const searchElsewhere: SearchElsewhere = (pr, start, ms) => {
  let worker: Worker | null = null, finish: (r: Flips | null) => void = () => {};
  const result = new Promise<Flips | null>((resolve) => {
    const timer = setTimeout(() => finish(null), ms + GRACE_MS);
    finish = (r) => {
      clearTimeout(timer);
      worker?.terminate();
      worker = null;
      resolve(r);
    };
    try {
      worker = new Worker(new URL("./search_helper.ts", import.meta.url), { type: "module" });
    } catch {
      return finish(null);
    }
    worker.onmessage = (e: MessageEvent<Flips>) => finish(e.data);
    worker.onerror = (e) => (e.preventDefault(), finish(null));
    worker.onmessageerror = () => finish(null);
    worker.postMessage({ pr, start, until: performance.timeOrigin + performance.now() + ms });
  });
  return { result, stop: () => finish(null) };
};
