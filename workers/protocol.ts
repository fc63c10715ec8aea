/**
 * The message protocol between the pool and its workers, and the worker-side dispatcher. A task is a
 * named function of core over plain (structured-clone) data; typed errors cross the boundary by name.
 * The inline runner (workers/pool.ts) goes through the same runTask and deliverReply, so a task answers
 * and fails alike in a worker and in the caller's isolate.
 */
import { wasmBytes } from "../wasm/layout.ts";
import {
  BadRequestError,
  ConflictError,
  DataMismatchError,
  InvalidInputError,
  InvalidParamError,
  LimitError,
  NotFoundError,
  ParamMismatchError,
  UnknownNameError,
  UnknownParamError,
} from "../core/errors.ts";
import { StoreUnavailableError } from "../store/store.ts";

/** How a task says where it is while it runs: posted to the pool, which hands it to the caller. */
export type Report = (progress: unknown) => void;
// deno-lint-ignore no-explicit-any
export type TaskFn = (payload: any, report: Report) => unknown | Promise<unknown>;
export type TaskTable = Record<string, TaskFn>;
/** What task `K` of table `T` takes: its function's parameter. */
export type TaskInputOf<T extends TaskTable, K extends keyof T> = Parameters<T[K]>[0];
/** What task `K` of table `T` answers: its function's (awaited) result. */
export type TaskOutputOf<T extends TaskTable, K extends keyof T> = Awaited<ReturnType<T[K]>>;

export interface TaskRequest {
  id: number;
  task: string;
  payload: unknown;
}

export interface SerializedError {
  name: string;
  message: string;
  loc?: (string | number)[];
  /** An InvalidParamError's parameter. */
  param?: (string | number)[];
  type?: string;
}

export type TaskReply =
  | { id: number; ok: true; result: unknown; retire?: boolean }
  | { id: number; ok: false; error: SerializedError; retire?: boolean };

/**
 * A worker's first message, once its module has loaded: a worker that fails before it cannot serve here
 * at all (the pool then runs inline), one that fails after it crashed.
 */
export interface ReadyMessage {
  ready: true;
}

/** A running task's report of its progress (`Report`), for the caller's `onProgress`. */
export interface ProgressMessage {
  id: number;
  progress: unknown;
}

/** What a worker posts to the pool. */
export type WorkerMessage = TaskReply | ReadyMessage | ProgressMessage;

/**
 * A worker holding more WebAssembly memory than this after a task asks to be retired (`retire`): the
 * memory of a module never shrinks, and one big training split would otherwise stay for good.
 */
export const RETIRE_ABOVE_BYTES = 512 * 1024 * 1024;

/** An error as plain data, keeping what the HTTP layer needs (name, loc or param, type). */
export function serializeError(e: unknown): SerializedError {
  const err = e instanceof Error ? e : new Error(String(e));
  const out: SerializedError = { name: err.name, message: err.message };
  if (err instanceof InvalidInputError) Object.assign(out, { loc: err.loc, type: err.type });
  if (err instanceof InvalidParamError) Object.assign(out, { param: err.param, type: err.type });
  return out;
}

/** The typed error again on the pool's side, so `app.onError` maps it as if thrown in place. */
export function deserializeError(e: SerializedError): Error {
  switch (e.name) {
    case "InvalidInputError":
      return new InvalidInputError(e.message, e.loc, e.type);
    case "UnknownNameError":
      return new UnknownNameError(e.message, e.loc, e.type);
    case "DataMismatchError":
      return new DataMismatchError(e.message, e.loc, e.type);
    case "UnknownParamError":
      return new UnknownParamError(e.message, e.param ?? [], e.type);
    case "ParamMismatchError":
      return new ParamMismatchError(e.message, e.param ?? [], e.type);
    case "InvalidParamError":
      return new InvalidParamError(e.message, e.param ?? [], e.type);
    case "NotFoundError":
      return new NotFoundError(e.message);
    case "ConflictError":
      return new ConflictError(e.message);
    case "BadRequestError":
      return new BadRequestError(e.message);
    case "LimitError":
      return new LimitError(e.message);
    case "StoreUnavailableError": // a worker reading a dataset for itself (tasks/dataset.ts)
      return new StoreUnavailableError(e.message);
    default: {
      const err = new Error(e.message);
      err.name = e.name;
      return err;
    }
  }
}

/**
 * Runs one request against a task table (in a worker, or inline where workers are unavailable); the task
 * reports its progress through `report`.
 */
export async function runTask(
  tasks: TaskTable,
  req: TaskRequest,
  report: Report = () => {},
): Promise<TaskReply> {
  const fn = tasks[req.task];
  if (!fn) return { id: req.id, ok: false, error: { name: "Error", message: `unknown task '${req.task}'` } };
  try {
    return { id: req.id, ok: true, result: await fn(req.payload, report) };
  } catch (e) {
    return { id: req.id, ok: false, error: serializeError(e) };
  }
}

/**
 * Hands a reply over with `send` (postMessage in a worker, structuredClone inline), its result's
 * buffers moved rather than copied; a result that cannot be cloned becomes the task's error.
 */
export function deliverReply<R>(
  reply: TaskReply,
  send: (reply: TaskReply, transfer: Transferable[]) => R,
): R {
  try {
    return send(reply, reply.ok ? transferables(reply.result) : []);
  } catch (e) {
    return send({ id: reply.id, ok: false, error: serializeError(e), retire: reply.retire }, []);
  }
}

/** Typed-array buffers in a result, handed over to the receiver instead of copied. */
export function transferables(value: unknown, out: Transferable[] = [], depth = 0): Transferable[] {
  if (depth > 4 || value === null || typeof value !== "object") return out;
  if (ArrayBuffer.isView(value)) {
    if (value.buffer instanceof ArrayBuffer && !out.includes(value.buffer)) out.push(value.buffer);
    return out;
  }
  for (const v of Object.values(value)) transferables(v, out, depth + 1);
  return out;
}

/**
 * Worker entry: says it is ready, then answers every TaskRequest posted to this worker from the given
 * table (posting its progress reports as they come), asking to be retired once it holds more than
 * `retireAboveBytes` of WebAssembly memory.
 */
export function serveTasks(tasks: TaskTable, retireAboveBytes = RETIRE_ABOVE_BYTES): void {
  const scope = self as unknown as Worker;
  scope.onmessage = async (ev: MessageEvent<TaskRequest>) => {
    const { id } = ev.data;
    const report: Report = (progress) => {
      try {
        scope.postMessage({ id, progress } satisfies ProgressMessage);
      } catch {
        // a report that cannot be cloned is dropped: it never fails the task
      }
    };
    const reply = await runTask(tasks, ev.data, report);
    if (wasmBytes() > retireAboveBytes) reply.retire = true;
    deliverReply(reply, (r, transfer) => scope.postMessage(r, transfer));
  };
  scope.postMessage({ ready: true } satisfies ReadyMessage);
}
