/**
 * The field mapping of spec 2 (`mapping`): which collection field fills each slot of an individual.
 * Each key defaults to the identical column name; when the documents have no field of that name, an
 * omitted key falls back to a common synonym the documents do have, the one the dataset-columns route
 * shows as the key's default, so what a reviewer reads there is what an audit uses.
 */
export const MAPPING_KEYS = ["lat", "lon", "y_true", "y_pred", "region_ids", "y_pred_prob"] as const;
export type MappingKey = typeof MAPPING_KEYS[number];
export type Mapping = Record<MappingKey, string>;

/** The mapping with every key the request left out set to the spec's default (the key's own name). */
export function withDefaults(partial: Partial<Mapping> | undefined): Mapping {
  const out = {} as Mapping;
  for (const k of MAPPING_KEYS) out[k] = partial?.[k] ?? k;
  return out;
}

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
 */
export function defaultMapping(fields: string[]): Record<MappingKey, string | null> {
  const present = new Set(fields);
  const suggested = suggestMapping(fields);
  const out = {} as Record<MappingKey, string | null>;
  for (const k of MAPPING_KEYS) out[k] = present.has(k) ? k : suggested[k];
  return out;
}

/** The mapping an audit reads: the request's keys as given, every other key its defaultMapping field. */
export function resolveMapping(requested: Partial<Mapping> | undefined, fields: string[]): Mapping {
  const defaults = defaultMapping(fields);
  const out = {} as Mapping;
  for (const k of MAPPING_KEYS) out[k] = requested?.[k] ?? defaults[k] ?? k;
  return out;
}

/** The keys a request mapped explicitly (a field named there must be in every document). */
export function explicitKeys(requested: Partial<Mapping> | undefined): MappingKey[] {
  return MAPPING_KEYS.filter((k) => requested?.[k] !== undefined);
}

/** Names of the fields holding a value (not null) in at least one document, in order of first sight. */
export function fieldsWithValues(docs: Record<string, unknown>[]): string[] {
  const seen = new Set<string>();
  for (const d of docs) {
    for (const [k, v] of Object.entries(d)) if (k !== "_id" && v !== null && v !== undefined) seen.add(k);
  }
  return [...seen];
}
