/**
 * The field mapping of spec 2 (`mapping`): which collection field fills each slot of an individual.
 * Each key defaults to the identical column name; when the documents have no field of that name, an
 * omitted key falls back to a common synonym the documents do have, the one the dataset-columns route
 * shows as the key's default, so what a reviewer reads there is what an audit uses.
 */
import type { FieldProfile } from "../ingest/field_profile.ts";

export const MAPPING_KEYS = ["lat", "lon", "y_true", "y_pred", "region_ids", "y_pred_prob"] as const;
export type MappingKey = typeof MAPPING_KEYS[number];
export type Mapping = Record<MappingKey, string>;

/**
 * How many documents, from the first in collection order, dataset-columns profiles and an audit reads
 * its omitted keys' fields from: a fixed prefix, so the same data always resolves the same way.
 */
export const MAPPING_SAMPLE = 200;

/** A profiled field (profileFields): its name and how many documents hold a value (not null) in it. */
export type FieldCount = Pick<FieldProfile, "name" | "count">;

const SYNONYMS: Record<MappingKey, string[]> = {
  lat: ["lat", "latitude", "y_coord", "lat_deg"],
  lon: ["lon", "lng", "long", "longitude", "x_coord", "lon_deg"],
  y_true: ["y_true", "label", "target", "ground_truth", "actual", "y"],
  y_pred: ["y_pred", "prediction", "predicted", "pred", "y_hat"],
  region_ids: ["region_ids", "regions", "region_id", "region"],
  y_pred_prob: ["y_pred_prob", "probability", "prob", "score", "y_score", "proba"],
};

/** For each mapping key, the field a reviewer would most likely map to it, or null when none fits. */
export function suggestMapping(fields: string[]): Record<MappingKey, string | null> {
  const lower = new Map<string, string>();
  // the first spelling met wins, so the answer does not depend on which of "Lat"/"LAT" came last
  for (const f of fields) if (!lower.has(f.toLowerCase())) lower.set(f.toLowerCase(), f);
  const out = {} as Record<MappingKey, string | null>;
  for (const k of MAPPING_KEYS) {
    out[k] = SYNONYMS[k].map((s) => lower.get(s)).find((f) => f !== undefined) ?? null;
  }
  return out;
}

/**
 * The field each key reads when a request leaves it out, so the columns route and the audit agree:
 * the key's own name when the documents have it (the spec's default), else suggestMapping's choice,
 * else null (no such field: the slot is absent, as if the own name were read and found nowhere).
 * A field counts as present only where some profiled document holds a value in it.
 */
export function defaultMapping(columns: readonly FieldCount[]): Record<MappingKey, string | null> {
  const fields = columns.filter((f) => f.count > 0).map((f) => f.name);
  const present = new Set(fields);
  const suggested = suggestMapping(fields);
  const out = {} as Record<MappingKey, string | null>;
  for (const k of MAPPING_KEYS) out[k] = present.has(k) ? k : suggested[k];
  return out;
}

/** The mapping an audit reads: the request's keys as given, every other key its defaultMapping field. */
export function resolveMapping(
  requested: Partial<Mapping> | undefined,
  columns: readonly FieldCount[],
): Mapping {
  const defaults = defaultMapping(columns);
  const out = {} as Mapping;
  for (const k of MAPPING_KEYS) out[k] = requested?.[k] ?? defaults[k] ?? k;
  return out;
}

/** The keys a request mapped explicitly (a field named there must be in every document). */
export function explicitKeys(requested: Partial<Mapping> | undefined): MappingKey[] {
  return MAPPING_KEYS.filter((k) => requested?.[k] !== undefined);
}
