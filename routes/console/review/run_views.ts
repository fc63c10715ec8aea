/**
 * A kept run's answer as the review reads it: the audit's and the mitigation's statistics without their
 * maps (served by URL), and a region's difference from the overall rate.
 */
import type { AuditPayload } from "../../../services/spatial/audit.ts";
import type { MitigationAnswer, ThresholdAnswer } from "../../../services/mitigation/answers.ts";

/** An audit's statistics as the stored answer holds them (its maps are served by URL). */
export type AuditView = Omit<AuditPayload, `${string}_html` | `${string}_image`>;
export type RegionStat = AuditView["stats"][number];

/** The difference of a region's rate from the audit's overall rate (null for an empty region). */
export const rateDiff = (a: AuditView, s: RegionStat) =>
  s.rate === null || a.n_individuals === 0 ? null : s.rate - a.n_positives / a.n_individuals;

export type MitigationView =
  & Omit<
    MitigationAnswer,
    | "flips_map_html"
    | "flips_map_image"
    | "audit_before_mitigation"
    | "audit_after_mitigation"
    | "mitigated_preds"
  >
  & {
    audit_before_mitigation: AuditView;
    audit_after_mitigation: AuditView;
    mitigated_preds?: unknown;
  }
  & Partial<Pick<ThresholdAnswer, "new_thresholds" | "train_size" | "test_size">>;
