/**
 * The audit map value of docs/spatial-fairness.md "Maps" and its diverging colour scale.
 * One value per region in [-1, 1]: the sign says whether the region's positive rate is above (+) or below
 * (−) the global rate; the magnitude grows linearly to 0.2 at the significance threshold T, then from 0.2
 * to 1 between T and the colour cap (the largest s of the audit before mitigation).
 */
import type { AuditResult, RegionStat } from "../types.ts";

/** Share of the magnitude reserved for regions below the threshold. */
const BELOW_SHARE = 0.2;

/**
 * Map value of one region, so a reviewer sees direction and strength of bias on one scale.
 * Degenerate cases: s ≤ 0, a region without a rate, or a rate equal to the global rate give 0 (no bias to
 * show); T ≤ 0 puts every s > 0 on the upper ramp (everything is significant); cap ≤ T leaves the upper
 * ramp no width, so any s ≥ T gets the full 1 (it is at least as biased as the cap region).
 */
export function mapValue(
  s: number,
  rate: number | null,
  globalRate: number,
  threshold: number,
  cap: number,
): number {
  if (!(s > 0) || rate === null || !Number.isFinite(rate) || rate === globalRate) return 0;
  const sign = rate > globalRate ? 1 : -1;
  const t = threshold > 0 ? threshold : 0;
  if (s < t) return sign * BELOW_SHARE * (s / t);
  if (!(cap > t)) return sign;
  const ramp = Math.min(1, Math.max(0, (s - t) / (cap - t)));
  return sign * (BELOW_SHARE + (1 - BELOW_SHARE) * ramp);
}

/** The colour cap of an audit (its largest s), computed before mitigation so before/after share it. */
export function auditCap(audit: AuditResult): number {
  let cap = 0;
  for (const st of audit.stats) if (st.stat > cap) cap = st.stat;
  return cap;
}

/** Global positive rate of an audit (0 when nobody is in scope), the reference for each region's sign. */
export function globalRate(audit: AuditResult): number {
  return audit.n_individuals > 0 ? audit.n_positives / audit.n_individuals : 0;
}

/** Map values of every region of an audit, in `stats` order; `cap` defaults to this audit's own cap. */
export function auditMapValues(audit: AuditResult, cap: number = auditCap(audit)): number[] {
  const g = globalRate(audit);
  return audit.stats.map((st: RegionStat) => mapValue(st.stat, st.rate, g, audit.signif_thresh, cap));
}

/** ColorBrewer RdBu (11 classes), from −1 (dark blue, rate below global) to +1 (dark red, above). */
export const DIVERGING_STOPS: readonly string[] = [
  "#053061",
  "#2166ac",
  "#4393c3",
  "#92c5de",
  "#d1e5f0",
  "#f7f7f7",
  "#fddbc7",
  "#f4a582",
  "#d6604d",
  "#b2182b",
  "#67001f",
];

const STOP_RGB = DIVERGING_STOPS.map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)));

/** Hex colour of a map value on the colour-blind-safe RdBu scale; values outside [−1, 1] are clamped. */
export function divergingColor(value: number): string {
  const v = Number.isFinite(value) ? Math.min(1, Math.max(-1, value)) : 0;
  const pos = ((v + 1) / 2) * (STOP_RGB.length - 1);
  const i = Math.min(STOP_RGB.length - 2, Math.floor(pos));
  const f = pos - i;
  const [a, b] = [STOP_RGB[i], STOP_RGB[i + 1]];
  return "#" + a.map((c, k) => Math.round(c + (b[k] - c) * f).toString(16).padStart(2, "0")).join("");
}
