/**
 * What one read of a collection gives (`LoadedColumns`, kept between requests), and a request's view of it:
 * the slots it needs filled in every document (`requireNeeds`), and its scope (`scopeOf`).
 */
import { ParamMismatchError } from "../errors.ts";
import type { Individuals } from "./types.ts";
import { type Mapping, MAPPING_KEYS, type MappingKey } from "./mapping.ts";

/** A mapped field as the request names it (its `mapping` key). */
const param = (key: MappingKey) => ["mapping", key];

/** What the caller needs: which optional slots must be present for every individual. */
export interface LoadNeeds {
  yTrue: boolean;
  prob: boolean;
}

/**
 * What one pass over a collection gives, before any request's needs are checked: the columns (a slot is
 * null unless every document filled it), and how many documents missed each mapped field. Kept between
 * requests (services/datasets/prepared.ts); `requireNeeds` checks a request's needs against it.
 */
export interface LoadedColumns {
  ind: Individuals;
  mapping: Mapping;
  explicit: MappingKey[];
  missing: Record<MappingKey, number>;
}

/**
 * The Individuals of loaded columns for a request's needs: every slot the request mapped, and every slot
 * it needs, must be filled in every document (a ParamMismatchError naming the slot and how many documents miss it).
 */
export function requireNeeds(loaded: LoadedColumns, needs: LoadNeeds): Individuals {
  const { ind, mapping, missing } = loaded, n = ind.n, explicit = new Set(loaded.explicit);
  const require = (key: MappingKey, why: string) => {
    if (missing[key]) {
      throw new ParamMismatchError(
        `field '${mapping[key]}' (mapped to ${key}) is missing in ${missing[key]} of ${n} documents; ${why}`,
        param(key),
      );
    }
  };
  // A field the reviewer named is never dropped in silence (say, a typo falling back to k-means).
  for (const key of MAPPING_KEYS) {
    if (explicit.has(key)) require(key, "a field the request maps must be in every document");
  }
  require("y_pred", "every individual needs a prediction");
  if (needs.yTrue) require("y_true", "equal_opp=true audits true-positive rates, so y_true is needed");
  if (needs.prob) require("y_pred_prob", "threshold mitigation needs a probability for every individual");
  const all = (key: MappingKey) => missing[key] === 0;
  const partial = (key: MappingKey) => missing[key] > 0 && missing[key] < n;
  if (!all("region_ids")) {
    const why = "without region_ids for every individual, every individual needs coordinates";
    if (partial("lat") || partial("lon")) require(partial("lat") ? "lat" : "lon", why);
    if (partial("region_ids") && !(all("lat") && all("lon"))) {
      require("region_ids", "give every individual its regions, or coordinates to every individual");
    }
  }
  return ind;
}

/** Positions of the individuals in scope: all (statistical parity) or those with y_true = 1 (equal opportunity). */
export function scopeOf(ind: Individuals, equalOpp: boolean): Int32Array {
  if (!equalOpp) return Int32Array.from({ length: ind.n }, (_, i) => i);
  const out: number[] = [];
  for (let i = 0; i < ind.n; i++) if (ind.yTrue![i] === 1) out.push(i);
  return Int32Array.from(out);
}
