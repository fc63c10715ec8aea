/**
 * `semantic_types`: what each column holds (integer, float, boolean, datetime, categorical, text,
 * identifier, email, url, latitude, longitude, geometry...), with a confidence and the evidence.
 *
 * Rules, in order, over a column's non-missing values (n of them); a pattern type wins when at least
 * `min_share` of the values fit it, and its confidence is the share that fits:
 * 1. all objects: GeoJSON `geometry`, else `array` or `object`;
 * 2. booleans or true/false/yes/no: `boolean`;
 * 3. numbers (or strings an import reads as numbers): `latitude` / `longitude` when the name says so and
 *    every number is in range; `boolean` when the only values are 0 and 1; `identifier` for distinct
 *    integers under an id-like name (`id`, `…_id`, `uuid`, `key`); else `integer` or `float`;
 * 4. dates: `datetime`; then `email`, `url`, and UUIDs as `identifier`;
 * 5. other text: `identifier` when every value is distinct and the name is id-like or every value is
 *    one word holding a digit (confidence 1); `categorical` when there are at most `max_categories`
 *    distinct values, each seen twice on average (confidence: share of values whose value repeats);
 *    else `text` (confidence: share of values that are strings).
 */
import { z } from "zod";
import { asNumber, type Column, ColumnsParam, isMissing, round4, type Table, tally } from "./table.ts";
import { dateFormat, isBooleanLike, isEmail, isGeoJson, isUrl, isUuid } from "./patterns.ts";
import { nameHint } from "./name_similarity.ts";

export const SemanticTypesParams = z.object({
  columns: ColumnsParam,
  min_share: z.number().gt(0).max(1).default(0.9)
    .describe("Share of the non-missing values a pattern type (number, date, e-mail...) must fit"),
  max_categories: z.number().int().min(1).max(10_000).default(20)
    .describe("Most distinct values a categorical column may have"),
}).strict();
export type SemanticTypesParams = z.infer<typeof SemanticTypesParams>;

export type SemanticType =
  | "empty"
  | "boolean"
  | "integer"
  | "float"
  | "latitude"
  | "longitude"
  | "identifier"
  | "datetime"
  | "email"
  | "url"
  | "categorical"
  | "text"
  | "geometry"
  | "array"
  | "object";

export interface ColumnType {
  column: string;
  type: SemanticType;
  confidence: number;
  evidence: {
    present: number;
    missing: number;
    distinct: number;
    matched: number;
    rule: string;
    format?: string;
    examples: unknown[];
  };
}

interface Verdict {
  type: SemanticType;
  matched: number;
  rule: string;
  format?: string;
  /** Confidence when it is not matched / present. */
  confidence?: number;
}

/** Types every column of the table. */
export function semanticTypes(table: Table, p: SemanticTypesParams): { columns: ColumnType[] } {
  return { columns: table.columns.map((c) => columnType(c, p)) };
}

/** The semantic type of one column, with its confidence and evidence. */
export function columnType(col: Column, p: SemanticTypesParams): ColumnType {
  const present = col.values.filter((v) => !isMissing(v));
  const counts = tally(present);
  const verdict: Verdict = present.length === 0
    ? { type: "empty", matched: 0, rule: "every value is missing", confidence: 1 }
    : classify(col.name, present, counts, p);
  return {
    column: col.name,
    type: verdict.type,
    confidence: round4(verdict.confidence ?? verdict.matched / present.length),
    evidence: {
      present: present.length,
      missing: col.values.length - present.length,
      distinct: counts.size,
      matched: verdict.matched,
      rule: verdict.rule,
      ...(verdict.format && { format: verdict.format }),
      examples: [...counts.values()].slice(0, 3).map((e) => e.value),
    },
  };
}

function classify(
  name: string,
  present: unknown[],
  counts: ReturnType<typeof tally>,
  p: SemanticTypesParams,
): Verdict {
  const n = present.length;
  const count = (test: (v: unknown) => boolean) => present.filter(test).length;
  const of = (k: number, what: string) => `${k} of ${n} non-missing values ${what}`;
  const strings = present.filter((v): v is string => typeof v === "string");
  const fits = (k: number) => k / n >= p.min_share;

  const objects = count((v) => typeof v === "object");
  if (objects === n) {
    const geo = count(isGeoJson);
    if (fits(geo)) return { type: "geometry", matched: geo, rule: of(geo, "are GeoJSON geometries") };
    const arrays = count(Array.isArray);
    return arrays * 2 >= n
      ? { type: "array", matched: arrays, rule: of(arrays, "are arrays") }
      : { type: "object", matched: n - arrays, rule: of(n - arrays, "are objects") };
  }
  const bools = count(isBooleanLike);
  if (fits(bools)) return { type: "boolean", matched: bools, rule: of(bools, "are true/false/yes/no") };

  const numbers = present.map(asNumber).filter((x): x is number => x !== null);
  if (fits(numbers.length)) return numeric(name, numbers, of);

  const formats = strings.map(dateFormat).filter((f) => f !== null);
  if (fits(formats.length)) {
    const format = mostCommon(formats);
    return { type: "datetime", matched: formats.length, format, rule: of(formats.length, "are dates") };
  }
  const patterned: [SemanticType, (s: string) => boolean, string][] = [
    ["email", isEmail, "are e-mail addresses"],
    ["url", isUrl, "are URLs"],
    ["identifier", isUuid, "are UUIDs"],
  ];
  for (const [type, test, what] of patterned) {
    const k = strings.filter(test).length;
    if (fits(k)) return { type, matched: k, rule: of(k, what) };
  }

  const distinct = counts.size;
  const codeLike = present.every((v) => /\d/.test(String(v)) && !/\s/.test(String(v)));
  if (distinct === n && n >= 2 && (nameHint(name) === "identifier" || codeLike)) {
    const why = nameHint(name) === "identifier" ? "under an id-like name" : "each one word with a digit";
    return { type: "identifier", matched: n, rule: `all ${n} values are distinct, ${why}` };
  }
  if (distinct <= p.max_categories && distinct * 2 <= n) {
    const repeated = [...counts.values()].filter((e) => e.count >= 2).reduce((s, e) => s + e.count, 0);
    return {
      type: "categorical",
      matched: repeated,
      rule: `${distinct} distinct values; ${of(repeated, "repeat")}`,
    };
  }
  return {
    type: "text",
    matched: strings.length,
    rule: `${distinct} distinct values; ${of(strings.length, "are text")}`,
  };
}

function numeric(name: string, xs: number[], of: (k: number, what: string) => string): Verdict {
  const k = xs.length;
  const hint = nameHint(name);
  const within = (lo: number, hi: number) => xs.every((x) => x >= lo && x <= hi);
  if (hint === "latitude" && within(-90, 90)) {
    return { type: "latitude", matched: k, rule: of(k, "are numbers in [-90, 90] under a latitude name") };
  }
  if (hint === "longitude" && within(-180, 180)) {
    return {
      type: "longitude",
      matched: k,
      rule: of(k, "are numbers in [-180, 180] under a longitude name"),
    };
  }
  if (!xs.every(Number.isInteger)) return { type: "float", matched: k, rule: of(k, "are numbers") };
  const distinct = new Set(xs).size;
  if (distinct === 2 && within(0, 1)) return { type: "boolean", matched: k, rule: of(k, "are 0 or 1") };
  if (hint === "identifier" && distinct === k) {
    return { type: "identifier", matched: k, rule: of(k, "are distinct integers under an id-like name") };
  }
  return { type: "integer", matched: k, rule: of(k, "are integers") };
}

function mostCommon(xs: string[]): string {
  const counts = new Map<string, number>();
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0][0];
}
