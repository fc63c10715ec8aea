/**
 * Errors as HTTP: FastAPI-shaped 422 bodies from zod issues, and the one place where typed errors
 * become status codes (docs/architecture.md, "One area, three layers").
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { z } from "zod";
import {
  BadRequestError,
  CancelledError,
  ConflictError,
  DataMismatchError,
  DisabledError,
  InvalidInputError,
  InvalidInputsError,
  LimitError,
  NotFoundError,
  UnknownNameError,
} from "../../core/errors.ts";
import { StoreUnavailableError } from "../../store/store.ts";
import { log } from "../../core/log.ts";

export type Loc = (string | number)[];
export interface ValidationItem {
  loc: Loc;
  msg: string;
  type: string;
}

const TYPE_NAMES: Record<string, [string, string]> = {
  string: ["string_type", "Input should be a valid string"],
  number: ["float_type", "Input should be a valid number"],
  int: ["int_type", "Input should be a valid integer"],
  boolean: ["bool_type", "Input should be a valid boolean"],
  array: ["list_type", "Input should be a valid list"],
  object: ["dict_type", "Input should be a valid dictionary"],
};

/** Issues that, on an absent key, mean the key is missing rather than of the wrong type or value. */
const ABSENT_CODES = new Set(["invalid_type", "invalid_value", "invalid_union"]);

/** Where a validation target sits in FastAPI's `loc`. */
export function locRoot(target: string): string {
  return target === "json" || target === "form" ? "body" : target === "param" ? "path" : target;
}

/** The value at `path` inside `input`, or undefined when any step of it is absent. */
function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let v = input;
  for (const key of path) {
    v = typeof v === "object" && v !== null ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  }
  return v;
}

/**
 * pydantic's type and message for a string, list or set of the wrong length (`bound` is the limit it
 * broke); any other length issue keeps zod's message.
 */
function lengthError(i: Record<string, unknown>, big: boolean, bound: number) {
  const s = bound === 1 ? "" : "s";
  const side = big ? "most" : "least";
  if (i.origin === "string") {
    return {
      msg: `String should have at ${side} ${bound} character${s}`,
      type: big ? "string_too_long" : "string_too_short",
    };
  }
  const type = big ? "too_long" : "too_short";
  const kind = i.origin === "array" ? "List" : i.origin === "set" ? "Set" : null;
  if (!kind) return { msg: String(i.message), type };
  const size = Array.isArray(i.input) ? i.input.length : i.input instanceof Set ? i.input.size : null;
  const actual = size === null ? "" : `, not ${size}`;
  return { msg: `${kind} should have at ${side} ${bound} item${s} after validation${actual}`, type };
}

/**
 * Turns zod issues into FastAPI's `detail` items, with pydantic's type names where one exists. zod 4
 * leaves an issue's input out, so it is looked up in the validated `input` to tell an absent key
 * (`missing`) from one of the wrong type.
 */
export function zodToDetail(error: z.ZodError, root: string, input?: unknown): ValidationItem[] {
  const out: ValidationItem[] = [];
  for (const issue of error.issues) {
    const loc: Loc = [root, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))];
    const i = issue as z.core.$ZodIssue & Record<string, unknown>;
    if (!("input" in i)) (i as Record<string, unknown>).input = valueAt(input, issue.path);
    if (i.input === undefined && ABSENT_CODES.has(i.code)) {
      out.push({ loc, msg: "Field required", type: "missing" });
      continue;
    }
    switch (i.code) {
      case "invalid_type": {
        const [type, msg] = TYPE_NAMES[String(i.expected)] ?? [`${i.expected}_type`, i.message];
        out.push({ loc, msg, type });
        break;
      }
      case "unrecognized_keys":
        for (const k of i.keys as string[]) {
          out.push({ loc: [...loc, k], msg: "Extra inputs are not permitted", type: "extra_forbidden" });
        }
        break;
      case "too_small":
      case "too_big": {
        const big = i.code === "too_big";
        const incl = i.inclusive !== false;
        const bound = big ? i.maximum : i.minimum;
        if (i.origin === "number" || i.origin === "int" || i.origin === "bigint") {
          const type = `${big ? "less_than" : "greater_than"}${incl ? "_equal" : ""}`;
          const msg = `Input should be ${big ? "less" : "greater"} than ${
            incl ? "or equal to " : ""
          }${bound}`;
          out.push({ loc, msg, type });
        } else out.push({ loc, ...lengthError(i, big, Number(bound)) });
        break;
      }
      case "invalid_value":
        out.push({
          loc,
          msg: `Input should be ${(i.values as unknown[]).map((v) => JSON.stringify(v)).join(" or ")}`,
          type: "enum",
        });
        break;
      case "invalid_format":
        out.push({
          loc,
          msg: i.format === "regex" ? `String should match pattern '${i.pattern}'` : i.message,
          type: i.format === "regex" ? "string_pattern_mismatch" : `${i.format}_parsing`,
        });
        break;
      case "invalid_union":
        out.push({ loc, msg: i.message, type: "union_error" });
        break;
      default:
        out.push({ loc, msg: i.message, type: "value_error" });
    }
  }
  return out;
}

/** A 422 response in FastAPI's shape (400 on a route group whose spec says so). */
export function validationResponse(c: Context, detail: ValidationItem[], status: 400 | 422 = 422): Response {
  return c.json({ detail }, status);
}

/** The items of several problems, in order: a schema's issues sit under its `loc`; an unknown key lists the allowed ones. */
export function problemItems(problems: InvalidInputsError["problems"]): ValidationItem[] {
  return problems.flatMap((p): ValidationItem[] => {
    if (p instanceof InvalidInputError) return [{ loc: p.loc, msg: p.message, type: p.type }];
    const allowed = p.allowed && p.allowed.slice(0, 30).join(", ") + (p.allowed.length > 30 ? ", …" : "");
    return zodToDetail(p.error, "body", p.input).map((d) => {
      const item = { ...d, loc: [...p.loc, ...d.loc.slice(1)] };
      return d.type === "extra_forbidden" && allowed !== undefined
        ? { ...item, msg: `${d.msg}; allowed: ${allowed}` }
        : item;
    });
  });
}

/**
 * The status of refused input: 404 when every problem names something the store does not hold, 409 when
 * every problem is one the stored data decides (some of them a 404's), else `invalidStatus` (422, or 400 on
 * the cleaning routes): a request /openapi.json calls valid is never refused with the status of one it
 * calls invalid.
 */
export function refusalStatus(
  problems: readonly unknown[],
  invalidStatus: 400 | 422 = 422,
): 400 | 404 | 409 | 422 {
  if (problems.every((p) => p instanceof UnknownNameError)) return 404;
  if (problems.every((p) => p instanceof UnknownNameError || p instanceof DataMismatchError)) return 409;
  return invalidStatus;
}

/**
 * Maps every thrown error to its status; anything unknown is a 500 with only the request id. Invalid input
 * is a 422, or `invalidStatus` on a route group whose spec answers it otherwise (cleaning jobs: 400).
 */
export function onError(err: Error, c: Context, invalidStatus: 400 | 422 = 422): Response {
  const requestId = c.get("requestId" as never) as string | undefined;
  if (err instanceof InvalidInputError) {
    const item = { loc: err.loc, msg: err.message, type: err.type };
    return c.json({ detail: [item] }, refusalStatus([err], invalidStatus));
  }
  if (err instanceof InvalidInputsError) {
    return c.json({ detail: problemItems(err.problems) }, refusalStatus(err.problems, invalidStatus));
  }
  if (err instanceof NotFoundError) return c.json({ detail: err.message }, 404);
  if (err instanceof CancelledError) {
    return c.json({ detail: err.message, run_id: err.runId, state: "cancelled" }, 409);
  }
  if (err instanceof ConflictError) return c.json({ detail: err.message }, 409);
  if (err instanceof BadRequestError) return c.json({ detail: err.message }, 400);
  if (err instanceof DisabledError) return c.json({ detail: err.message }, 503);
  if (err instanceof LimitError) {
    // The work was fine but took longer than this server allows: the caller may retry with less work.
    return c.json({ detail: `the computation was stopped: ${err.message}` }, 503);
  }
  if (err instanceof StoreUnavailableError) {
    return c.json({ detail: `the store is unavailable: ${err.message}` }, 503);
  }
  if (err instanceof HTTPException) {
    if (err.status === 400 && /malformed json/i.test(err.message)) {
      const item = { loc: ["body"], msg: "JSON decode error", type: "json_invalid" };
      return validationResponse(c, [item], invalidStatus);
    }
    const res = err.getResponse();
    if (res.headers.get("content-type")?.includes("json")) return res;
    return c.json({ detail: err.message || res.statusText }, { status: err.status, headers: res.headers });
  }
  log("error", "unhandled error", { request_id: requestId, error: String(err), stack: err.stack });
  return c.json({ detail: "internal server error", request_id: requestId }, 500);
}
