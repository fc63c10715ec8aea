/**
 * Rows of a dataset seen as named columns: the one shape every annotation function reads, plus the
 * few value tests they share (what counts as missing, what reads as a number, when two values are equal).
 */
import { z } from "zod";
import { inferCell } from "../ingest/values.ts";
import { UnknownParamError } from "../errors.ts";
import { own } from "../data_keys.ts";

export type Row = Record<string, unknown>;

export interface Column {
  name: string;
  values: unknown[];
}

export interface Table {
  columns: Column[];
  /** Each row's `_id` when it has one, else its 0-based position: how results point at a row. */
  rowIds: (string | number)[];
}

/** The `columns` parameter every annotation function takes. */
export const ColumnsParam = z.array(z.string()).min(1).optional()
  .describe("Columns to annotate, in this order (default: every column, in first-seen order)");

/**
 * Turns rows into columns in first-seen order. `_id` is the row's id, not a column. `only` keeps just
 * those columns in that order; naming a column no row has is an UnknownParamError that lists the columns there are.
 */
export function toTable(rows: Row[], only?: string[]): Table {
  const names = new Set<string>();
  for (const row of rows) for (const k of Object.keys(row)) if (k !== "_id") names.add(k);
  if (only) {
    only.forEach((name, i) => {
      if (!names.has(name)) {
        throw new UnknownParamError(
          `no column '${name}' in the rows annotated; columns: ${[...names].join(", ") || "(none)"}`,
          ["params", "columns", i],
        );
      }
    });
  }
  const keep = only ?? [...names];
  return {
    // own fields only: a row without `constructor` lacks it, whatever Object.prototype holds
    columns: keep.map((name) => ({ name, values: rows.map((r) => own(r, name) ?? null) })),
    rowIds: rows.map((r, i) => (typeof r._id === "string" ? r._id : i)),
  };
}

/** Null, undefined and blank strings: what every function counts as missing. */
export function isMissing(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === "string" && v.trim() === "");
}

/** A finite number, or a string that an import would read as one (`inferCell`); anything else null. */
export function asNumber(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v !== "string") return null;
  const n = inferCell(v);
  return typeof n === "number" ? n : null;
}

/** A key under which equal values (by type and content) meet, for distinct counts and top values. */
export function valueKey(v: unknown): string {
  return typeof v === "object" ? `j:${JSON.stringify(v)}` : `${typeof v}:${String(v)}`;
}

/** Counts of each distinct value, in first-seen order. */
export function tally(values: unknown[]): Map<string, { value: unknown; count: number }> {
  const out = new Map<string, { value: unknown; count: number }>();
  for (const v of values) {
    const k = valueKey(v);
    const e = out.get(k);
    if (e) e.count++;
    else out.set(k, { value: v, count: 1 });
  }
  return out;
}

/** Rounds to 4 decimals: scores and shares are reported at that precision. */
export const round4 = (x: number): number => Math.abs(x) >= 2 ** 52 ? x : Math.round(x * 1e4) / 1e4; // from 2^52 on a double has no fraction to round
