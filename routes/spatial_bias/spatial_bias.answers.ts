/**
 * The toolkit's answer shapes made from the services': metrics as `{name, value}` lists, and `run_id` and
 * `kept` only where the request was kept. Every other field of Tessera's answer stays beside the toolkit's.
 */
import type { ClassificationMetrics } from "../../core/spatial/mitigate/metrics.ts";
import type { ToolkitAnswer } from "../../services/spatial_bias/spatial_bias.ts";

/** Without `run_id` and `kept` when nothing was kept. */
export function toolkitShape<T extends { run_id: string; kept: unknown }>(answer: T) {
  const { run_id, kept, ...rest } = answer;
  return kept ? { ...rest, run_id, kept } : rest;
}

type AuditFigures = { sbi_score: number; total_signif_regions: number };

/** A metrics list: the classification's (with y_true), the positive rate in scope and the audit's figures. */
function metricList(m: ClassificationMetrics | null, rate: number, audit: AuditFigures) {
  const pairs: [string, number][] = m
    ? [["accuracy", m.accuracy], ["precision", m.precision], ["recall", m.recall], ["f1", m.f1]]
    : [];
  pairs.push(
    ["positive_rate", rate],
    ["sbi_score", audit.sbi_score],
    ["total_signif_regions", audit.total_signif_regions],
  );
  return pairs.map(([name, value]) => ({ name, value }));
}

/** A relabel's or threshold's answer in the toolkit's shape. */
export function toolkitMitigation<
  T extends {
    metrics_before: ClassificationMetrics | null;
    metrics_after: ClassificationMetrics | null;
    positive_rate_before: number;
    positive_rate_after: number;
    audit_before_mitigation: AuditFigures;
    audit_after_mitigation: AuditFigures;
  },
>(answer: ToolkitAnswer<T>) {
  const a = answer as ToolkitAnswer<T> & T;
  return toolkitShape({
    ...a,
    metrics_before: metricList(a.metrics_before, a.positive_rate_before, a.audit_before_mitigation),
    metrics_after: metricList(a.metrics_after, a.positive_rate_after, a.audit_after_mitigation),
  });
}
