/**
 * The CSV files of a kept run, as the reference frontend offered them: region statistics (an audit's,
 * or a mitigation's before and after with each region's flips), the thresholds per region, and the
 * final predictions. Cells are written by the export service's `csvLine` (RFC 4180, CRLF), numbers at
 * full precision.
 */
import { csvLine } from "../../../services/datasets/export.ts";
import type { StoredPrediction } from "../../../services/spatial/run_documents.ts";
import { type AuditView, type MitigationView, rateDiff } from "./run_views.ts";

const STAT_COLUMNS = [
  "n",
  "p",
  "rate",
  "rate_difference",
  "raw_stat",
  "stat",
  "p_value",
  "is_signif",
] as const;

function statCells(a: AuditView, s: AuditView["stats"][number] | undefined): unknown[] {
  if (!s) return STAT_COLUMNS.map(() => null);
  return [s.n, s.p, s.rate, rateDiff(a, s), s.raw_stat, s.stat, s.p_value, s.is_signif];
}

/** An audit's regions: one line per region. */
export function auditRegionsCsv(a: AuditView): string {
  return csvLine(["idx", "region_id", ...STAT_COLUMNS]) +
    a.stats.map((s) => csvLine([s.idx, s.region_id, ...statCells(a, s)])).join("");
}

/** A mitigation's regions: the statistics before and after, δ and the flips of each region. */
export function mitigationRegionsCsv(m: MitigationView): string {
  const b = m.audit_before_mitigation, a = m.audit_after_mitigation;
  const after = new Map(a.stats.map((s) => [s.idx, s]));
  const flips = new Map(m.n_flips_per_region.map((f) => [f.idx, f]));
  const delta = new Map(m.regions_delta.map((d) => [d.idx, d.delta]));
  const head = [
    "idx",
    "region_id",
    ...STAT_COLUMNS.map((c) => `${c}_before`),
    ...STAT_COLUMNS.map((c) => `${c}_after`),
    "delta",
    "n_flips",
    "n_to_positive",
    "n_to_negative",
  ];
  return csvLine(head) + b.stats.map((s) => {
    const f = flips.get(s.idx);
    return csvLine([
      s.idx,
      s.region_id,
      ...statCells(b, s),
      ...statCells(a, after.get(s.idx)),
      delta.get(s.idx) ?? null,
      f?.n_flips ?? 0,
      f?.n_to_positive ?? 0,
      f?.n_to_negative ?? 0,
    ]);
  }).join("");
}

/** The decision threshold of each region (threshold runs). */
export function thresholdsCsv(m: MitigationView): string {
  const delta = new Map(m.regions_delta.map((d) => [d.idx, d.delta]));
  return csvLine(["idx", "region_id", "threshold", "eq_to_thresh_flip_prob", "delta"]) +
    (m.new_thresholds ?? []).map((t) =>
      csvLine([t.idx, t.region_id, t.threshold, t.eq_to_thresh_flip_prob, delta.get(t.idx) ?? null])
    ).join("");
}

/** The final predictions, one line per individual the run judged. */
export function predictionsCsv(preds: StoredPrediction[]): string {
  let out = csvLine(["idx", "doc_id", "y_pred", "flipped"]);
  for (const p of preds) out += csvLine([p.idx, p.doc_id, p.y_pred, p.flipped ?? false]);
  return out;
}
