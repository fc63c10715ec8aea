/**
 * The reference toolkit's individuals, sent in a request body (its stateless routes, issue 39), read
 * straight into core's typed columns: the body parsed once, each individual checked against the toolkit's
 * rules and appended to the columns, never kept as objects. It runs in a worker (workers/tasks/toolkit.ts),
 * so the event loop never parses a 25 MB body. The zod schemas here are the ones /openapi.json shows; the
 * check an individual meets first is a plain one, and zod reads only the individuals that fail it (for
 * its issues), which keeps 206,418 individuals to the time of the parse.
 */
import { z } from "zod";
import { IndividualsBuilder } from "./load.ts";
import { type Mapping, MAPPING_KEYS } from "./mapping.ts";
import type { LoadedColumns } from "./loaded_columns.ts";
import { packIds } from "./doc_ids.ts";
import type { Alloc } from "../memory.ts";

const bit = z.number().int().min(0).max(1);

/** The fields of one individual, all checked at once (`lat` and `lon` together). */
const individualShape = (needProb: boolean) =>
  z.object({
    y_pred: bit,
    y_true: bit.nullish(),
    lat: z.number().min(-90).max(90).nullish(),
    lon: z.number().min(-180).max(180).nullish(),
    region_ids: z.array(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)).min(1).nullish(),
    y_pred_prob: needProb ? z.number().min(0).max(1) : z.number().min(0).max(1).nullish(),
  }).strict();

/** A toolkit individual; `needProb`: y_pred_prob required (the threshold's sets). */
export const toolkitIndividual = (needProb: boolean) =>
  individualShape(needProb).superRefine((v, ctx) => {
    if ((v.lat == null) !== (v.lon == null)) {
      ctx.addIssue({ code: "custom", message: LAT_LON, path: [v.lat == null ? "lat" : "lon"] });
    }
  });

/** The message of an individual with one coordinate of the two. */
export const LAT_LON = "Value error, lat and lon go together: give both or neither";

const KEYS = new Set(["y_pred", "y_true", "lat", "lon", "region_ids", "y_pred_prob"]);
const isBit = (v: unknown) => v === 0 || v === 1;
const inRange = (v: unknown, bound: number) => typeof v === "number" && v >= -bound && v <= bound;

/** The plain check: true for an individual zod would take as it is (then zod need not read it). */
function fits(o: unknown, needProb: boolean): boolean {
  if (typeof o !== "object" || o === null || Array.isArray(o)) return false;
  for (const k in o) if (!KEYS.has(k)) return false;
  const r = o as Record<string, unknown>; // only the six keys: none is Object.prototype's
  if (!isBit(r.y_pred) || (r.y_true != null && !isBit(r.y_true))) return false;
  if ((r.lat == null) !== (r.lon == null)) return false;
  if (r.lat != null && !(inRange(r.lat, 90) && inRange(r.lon, 180))) return false;
  const p = r.y_pred_prob;
  if (p == null ? needProb : !(typeof p === "number" && p >= 0 && p <= 1)) return false;
  const ids = r.region_ids;
  if (ids == null) return true;
  if (!Array.isArray(ids) || ids.length === 0) return false;
  for (const id of ids) if (!(Number.isSafeInteger(id) && id >= 0)) return false;
  return true;
}

/** Where a set of individuals in the body breaks a rule over all of them: the first that does, or -1. */
export interface SetFacts {
  field: string;
  /** Individuals in the set, and where they start in the columns (the sets follow one another). */
  n: number;
  offset: number;
  firstWithoutYTrue: number;
  firstWithoutCoords: number;
  firstWithoutRegionIds: number;
  /** The largest region id, and where: [individual, position in its list]; null without region ids. */
  maxRegionId: { id: number; at: [number, number] } | null;
}

/** What reading a body gives: its other fields, its sets' columns and facts, and what is wrong in them. */
export interface ToolkitRead {
  /** A JSON syntax error's message; nothing else is read then. */
  jsonError: string | null;
  /**
   * The body with each set replaced by a stand-in of its length class ([] when empty, [null] otherwise),
   * for the edge's schema of the other fields; a set that is not a list stays as it was sent.
   */
  rest: unknown;
  /** The sets read (lists), in the order asked. */
  sets: SetFacts[];
  /** Every set's individuals one after another (document ids "0", "1", ...); null when any is invalid. */
  columns: LoadedColumns | null;
  /** zod's issues of the invalid individuals (path: set, index, field), each with its input; at most MAX_ISSUES. */
  issues: z.core.$ZodIssue[];
}

/** Issues reported at most: a file of 200,000 bad rows answers the first ones. */
export const MAX_ISSUES = 100;

/** Each slot read from the field of its own name: the toolkit's individuals are named so. */
const IDENTITY = Object.fromEntries(MAPPING_KEYS.map((k) => [k, k])) as Mapping;

/**
 * Reads the JSON body whose bytes are `chunks` (as the request's body stream gave them): the lists named in
 * `fields` (those in `needProb` with y_pred_prob required) into columns.
 */
export function readToolkitBody(
  chunks: readonly Uint8Array[],
  fields: readonly string[],
  needProb: readonly string[],
  alloc: Alloc,
): ToolkitRead {
  let body: unknown;
  try {
    const decoder = new TextDecoder(undefined, { fatal: true });
    const text = chunks.map((c) => decoder.decode(c, { stream: true })).join("") + decoder.decode();
    body = JSON.parse(text);
  } catch (e) {
    return { jsonError: (e as Error).message, rest: null, sets: [], columns: null, issues: [] };
  }
  const out: ToolkitRead = { jsonError: null, rest: body, sets: [], columns: null, issues: [] };
  if (typeof body !== "object" || body === null || Array.isArray(body)) return out;
  const rest = { ...body } as Record<string, unknown>;
  out.rest = rest;
  const builder = new IndividualsBuilder(IDENTITY);
  let offset = 0, batch: Record<string, unknown>[] = [];
  for (const field of fields) {
    const list = Object.hasOwn(rest, field) ? rest[field] : undefined;
    if (!Array.isArray(list)) continue;
    rest[field] = list.length ? [null] : [];
    const prob = needProb.includes(field), schema = toolkitIndividual(prob);
    const facts: SetFacts = {
      field,
      n: list.length,
      offset,
      firstWithoutYTrue: -1,
      firstWithoutCoords: -1,
      firstWithoutRegionIds: -1,
      maxRegionId: null,
    };
    for (let i = 0; i < list.length; i++) {
      const o = list[i] as Record<string, unknown>;
      if (!fits(o, prob)) {
        if (out.issues.length < MAX_ISSUES) {
          const r = schema.safeParse(o, { reportInput: true });
          for (const issue of r.error?.issues ?? []) {
            if (out.issues.length < MAX_ISSUES) {
              out.issues.push({ ...issue, path: [field, i, ...issue.path] });
            }
          }
        }
        continue;
      }
      if (out.issues.length) continue; // no columns are made: only the issues are still wanted
      note(facts, o, i);
      o._id = String(offset + i);
      batch.push(o);
      if (batch.length === 1000) (builder.add(batch as never), batch = []);
    }
    out.sets.push(facts);
    offset += list.length;
  }
  if (batch.length) builder.add(batch as never);
  if (!out.issues.length && offset > 0) {
    const columns = builder.columns(alloc);
    const ids = columns.ind.docIds as string[];
    out.columns = { ...columns, ind: { ...columns.ind, docIds: packIds(ids, undefined, alloc) } };
  }
  return out;
}

/** Notes where individual `i` of a set is the first to lack a field, and its largest region id. */
function note(facts: SetFacts, o: Record<string, unknown>, i: number): void {
  if (o.y_true == null && facts.firstWithoutYTrue < 0) facts.firstWithoutYTrue = i;
  if (o.lat == null && facts.firstWithoutCoords < 0) facts.firstWithoutCoords = i;
  const ids = o.region_ids as number[] | null | undefined;
  if (ids == null) {
    if (facts.firstWithoutRegionIds < 0) facts.firstWithoutRegionIds = i;
    return;
  }
  for (let k = 0; k < ids.length; k++) {
    if (!facts.maxRegionId || ids[k] > facts.maxRegionId.id) facts.maxRegionId = { id: ids[k], at: [i, k] };
  }
}
