/**
 * Steps both mitigations take: their predictions and maps handed to the run's writer as they come, and the
 * settings every map of a mitigation shares.
 */
import type { Individuals } from "../../core/spatial/types.ts";
import type { WorkerPool } from "../../workers/pool.ts";
import { type SpatialAuditReply } from "../spatial/on_pool.ts";
import type { AuditSettings, SpatialDeps } from "../spatial/audit.ts";
import { type MapSettings, mapsPayload } from "../spatial/audit_maps.ts";
import type { RunWriter } from "../spatial/run_writer.ts";
import { PredictionLines } from "./prediction_lines.ts";

/**
 * The final predictions of the individuals at `positions` (ascending collection positions; null: every
 * one), as lines of `mitigated_preds`: relabel judges every individual (out of an equal-opportunity scope
 * nobody flips, so they keep y_pred), threshold the test part. Handed to the run's writer at once.
 */
export function writtenPredictions(
  writer: Pick<RunWriter, "writePredictions">,
  ind: Individuals,
  positions: ArrayLike<number> | null,
  preds: Uint8Array,
): PredictionLines {
  const lines = new PredictionLines(ind.docIds, positions, preds, ind.yPred);
  writer.writePredictions(lines);
  return lines;
}

/** What every map of a mitigation shares (the colour cap and the regions left out follow the before-audit). */
export function sharedMapSettings(deps: SpatialDeps, input: AuditSettings) {
  return {
    full: input.fullDistribution,
    seed: input.seed,
    equalOpp: input.equalOpp,
    tileUrl: deps.config.MAP_TILE_URL,
  };
}

/** The flips map: flipped individuals coloured by their new prediction over the after-audit's regions. */
export function flipsMaps(
  pool: WorkerPool,
  ind: Individuals,
  after: SpatialAuditReply,
  flipped: Int32Array,
  preds: Uint8Array,
  opts: MapSettings,
) {
  return pool.run("maps.flips", mapsPayload(ind, after, flipped, preds, opts));
}

/**
 * Maps of the answer handed to the run's writer as they come (at `prefix` in the answer), so that what
 * `keep` still writes after the last map is little: written one at a time while the others are drawn, the
 * after-maps no longer wait for the last of them.
 */
export async function written<T extends object>(
  maps: Promise<T>,
  writer: Pick<RunWriter, "writeMaps">,
  prefix = "",
): Promise<T> {
  const drawn = await maps;
  writer.writeMaps(drawn, prefix);
  return drawn;
}
