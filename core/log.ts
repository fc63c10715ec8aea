/**
 * Tessera's log: one JSON line per event, `{time, level, request_id, msg, ...fields}`, written only when
 * its level reaches the threshold set once at start (LOG_LEVEL). The request a piece of work serves is
 * carried through every await by AsyncLocalStorage, so that a line written deep in the store or in core
 * (a skipped data-model file, say) names its request without every caller passing the id down.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** The levels in order; `silent` is only a threshold, above every line. */
export const LOG_RANK = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 } as const;
export type LogLevel = keyof typeof LOG_RANK;
/** The level of a line (a line is never `silent`). */
export type LineLevel = Exclude<LogLevel, "silent">;

const context = new AsyncLocalStorage<string>();
let threshold: LogLevel = "info";

/** Runs `fn` (and all it awaits) as part of the request `id`. */
export function withRequestId<T>(id: string, fn: () => T): T {
  return context.run(id, fn);
}

/** The id of the request being served, when there is one. */
export function currentRequestId(): string | undefined {
  return context.getStore();
}

/** Sets the lowest level written from now on, once at start from LOG_LEVEL, so no caller reads config. */
export function setLogLevel(level: LogLevel): void {
  threshold = level;
}

/**
 * Writes one JSON line when `level` reaches the threshold: error and warn on stderr (what needs a look),
 * info and debug on stdout. `fields` follow the standard ones; a `request_id` among them names the
 * request when the line is written outside its context. Fields left undefined are left out.
 */
export function log(level: LineLevel, msg: string, fields: Record<string, unknown> = {}): void {
  if (LOG_RANK[level] < LOG_RANK[threshold]) return;
  const { request_id = currentRequestId(), ...rest } = fields;
  const line = JSON.stringify({ time: new Date().toISOString(), level, request_id, msg, ...rest });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}
