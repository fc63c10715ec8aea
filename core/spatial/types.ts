/**
 * The data of a spatial audit as core sees it: typed columns built once from the collection
 * (docs/spatial-fairness.md "How an audit runs"), regions as member lists, and the audit's result.
 */
import type { DocIds } from "./doc_ids.ts";

/** One column per slot of the field mapping; `idx` of a reply is the position in these arrays. */
export interface Individuals {
  n: number;
  /** Document ids, in the collection's insertion order (read with docIdAt: a list, or packed). */
  docIds: DocIds;
  yPred: Uint8Array;
  yTrue: Uint8Array | null;
  lat: Float64Array | null;
  lon: Float64Array | null;
  /** Per individual, its region ids (may overlap), flattened; null unless every document has some. */
  regionIds: RegionLists | null;
  prob: Float64Array | null;
}

/** Every individual's region ids, flattened: individual i has ids[start[i] .. start[i+1]). */
export interface RegionLists {
  start: Int32Array;
  /** 32-bit when every id fits (the usual case: half the memory), else doubles. */
  ids: Int32Array | Float64Array;
}

/** A polygon ring of `[lon, lat]` points (need not be closed). */
export type Ring = [number, number][];

/** How the regions were formed (the four rules of docs/spatial-fairness.md "Regions"). */
export type RegionSource = "region_ids" | "polygons" | "kmeans";

/** Regions over the individuals in scope. Region index = position in these arrays. */
export interface Regions {
  source: RegionSource;
  /** The region's id: the value in region_ids, the polygon's position, or the cluster number. */
  ids: number[];
  /** Member positions (into the scope arrays), ascending. */
  members: Int32Array[];
  /** Display polygons when known (user polygons, convex hulls of clusters); null otherwise. */
  polygons: (Ring | null)[] | null;
  /** Individuals in scope that fall in no region (rule 2: a point in no polygon). */
  unassigned: number;
}

export type RngMode = "fast" | "numpy";

/** Per-region line of the audit reply. */
export interface RegionStat {
  idx: number;
  region_id: number;
  n: number;
  p: number;
  rate: number | null;
  raw_stat: number;
  stat: number;
  p_value: number;
  is_signif: boolean;
}

export interface AuditResult {
  sbi_score: number;
  signif_thresh: number;
  total_signif_regions: number;
  stats: RegionStat[];
  n_individuals: number;
  n_positives: number;
}
