/**
 * `profile`: per column the row count, missing and distinct values; for numeric columns min, max, mean,
 * sample standard deviation (n − 1, as pandas) and quartiles (linear interpolation, as numpy), with
 * outliers outside Tukey's fences [Q1 − k·IQR, Q3 + k·IQR]; for other columns the most frequent values.
 */
import { z } from "zod";
import { asNumber, ColumnsParam, isMissing, round4, type Table, tally } from "./table.ts";

export const ProfileParams = z.object({
  columns: ColumnsParam,
  top: z.number().int().min(1).max(100).default(5).describe("How many most frequent values to list"),
  outlier_k: z.number().positive().default(1.5).describe("Tukey's k: fences at Q1 − k·IQR and Q3 + k·IQR"),
  max_examples: z.number().int().min(0).max(100).default(5).describe("Outliers listed per column"),
}).strict();
export type ProfileParams = z.infer<typeof ProfileParams>;

export interface NumericSummary {
  min: number;
  max: number;
  mean: number;
  std: number | null;
  q1: number;
  median: number;
  q3: number;
}

export interface Outliers {
  method: "iqr";
  k: number;
  lower: number;
  upper: number;
  count: number;
  examples: { row: string | number; value: number }[];
}

export interface ColumnProfile {
  column: string;
  kind: "numeric" | "non_numeric" | "empty";
  count: number;
  missing: number;
  distinct: number;
  numeric?: NumericSummary;
  outliers?: Outliers;
  top?: { value: unknown; count: number }[];
}

/** Profiles every column of the table. */
export function profile(table: Table, p: ProfileParams): { rows: number; columns: ColumnProfile[] } {
  const columns = table.columns.map((col) => {
    const present: { row: string | number; value: unknown }[] = [];
    col.values.forEach((value, i) => {
      if (!isMissing(value)) present.push({ row: table.rowIds[i], value });
    });
    const base = {
      column: col.name,
      count: col.values.length,
      missing: col.values.length - present.length,
      distinct: tally(present.map((e) => e.value)).size,
    };
    if (present.length === 0) return { ...base, kind: "empty" as const };
    const numbers = present.map((e) => ({ row: e.row, value: asNumber(e.value) }));
    if (numbers.every((e) => e.value !== null)) {
      const xs = numbers as { row: string | number; value: number }[];
      const numeric = summarize(xs.map((e) => e.value));
      return { ...base, kind: "numeric" as const, numeric, outliers: outliers(xs, numeric, p) };
    }
    const top = [...tally(present.map((e) => e.value)).values()]
      .sort((a, b) => b.count - a.count) // stable: ties keep first-seen order
      .slice(0, p.top);
    return { ...base, kind: "non_numeric" as const, top };
  });
  return { rows: table.rowIds.length, columns };
}

/** Min, max, mean, sample standard deviation and quartiles of a non-empty list. */
export function summarize(xs: number[]): NumericSummary {
  const sorted = Float64Array.from(xs).sort();
  const n = sorted.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += (sorted[i] - mean) / (i + 1);
  // values near ±1.8e308 overflow the differences above; a sum of shares cannot (each |x / n| ≤ max)
  if (!Number.isFinite(mean)) mean = sorted.reduce((m, x) => m + x / n, 0);
  let ss = 0;
  for (const x of sorted) ss += (x - mean) ** 2;
  let std = n > 1 ? Math.sqrt(ss / (n - 1)) : null;
  if (std !== null && !Number.isFinite(std)) {
    // squares beyond a double: half deviations (which cannot overflow) scaled by the largest of them
    const half = (x: number) => x / 2 - mean / 2;
    const scale = Math.max(Math.abs(half(sorted[0])), Math.abs(half(sorted[n - 1])));
    let scaled = 0;
    for (const x of sorted) scaled += (half(x) / scale) ** 2;
    std = Math.min(Number.MAX_VALUE, 2 * scale * Math.sqrt(scaled / (n - 1)));
  }
  return {
    min: sorted[0],
    max: sorted[n - 1],
    mean,
    std,
    q1: quantile(sorted, 0.25),
    median: quantile(sorted, 0.5),
    q3: quantile(sorted, 0.75),
  };
}

/** The q-quantile of sorted values by linear interpolation between closest ranks (numpy's default). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const span = sorted[hi] - sorted[lo];
  const f = pos - lo;
  // a span beyond a double (values of both signs near ±1.8e308): the same point as a weighted sum
  return Number.isFinite(span) ? sorted[lo] + span * f : sorted[lo] * (1 - f) + sorted[hi] * f;
}

/** x within the doubles: a fence beyond them (huge values or k) is the largest double, which no value passes. */
const withinDoubles = (x: number) => Math.max(-Number.MAX_VALUE, Math.min(Number.MAX_VALUE, x));

function outliers(
  xs: { row: string | number; value: number }[],
  s: NumericSummary,
  p: ProfileParams,
): Outliers {
  const iqr = s.q3 - s.q1;
  const lower = withinDoubles(s.q1 - p.outlier_k * iqr);
  const upper = withinDoubles(s.q3 + p.outlier_k * iqr);
  const out = xs.filter((e) => e.value < lower || e.value > upper);
  return {
    method: "iqr",
    k: p.outlier_k,
    lower: round4(lower),
    upper: round4(upper),
    count: out.length,
    examples: out.slice(0, p.max_examples),
  };
}
