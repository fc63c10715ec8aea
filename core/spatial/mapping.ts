/**
 * The field mapping of spec 2 (`mapping`): which collection field fills each slot of an individual.
 * Each key defaults to the identical column name.
 */
export const MAPPING_KEYS = ["lat", "lon", "y_true", "y_pred", "region_ids", "y_pred_prob"] as const;
export type MappingKey = typeof MAPPING_KEYS[number];
export type Mapping = Record<MappingKey, string>;

/** The mapping with every key the request left out set to its default. */
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
  const lower = new Map(fields.map((f) => [f.toLowerCase(), f]));
  const out = {} as Record<MappingKey, string | null>;
  for (const k of MAPPING_KEYS) {
    out[k] = SYNONYMS[k].map((s) => lower.get(s)).find((f) => f !== undefined) ?? null;
  }
  return out;
}
