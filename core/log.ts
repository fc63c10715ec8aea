/**
 * The request a piece of work serves, carried through every await by AsyncLocalStorage, so that a log
 * line written deep in the store or in core (a skipped data-model file, say) names its request
 * without every caller passing the id down.
 */
import { AsyncLocalStorage } from "node:async_hooks";

const context = new AsyncLocalStorage<string>();

/** Runs `fn` (and all it awaits) as part of the request `id`. */
export function withRequestId<T>(id: string, fn: () => T): T {
  return context.run(id, fn);
}

/** The id of the request being served, when there is one. */
export function currentRequestId(): string | undefined {
  return context.getStore();
}
