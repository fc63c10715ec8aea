/**
 * What a map's colour means (docs/spatial-fairness.md "Maps"): each region's signed rate difference,
 * region rate − overall rate in percentage points, on a diverging scale centred at 0 and symmetric around
 * it (blue below the overall rate, red above, near-white close to it). The scale is a square-root one
 * (position = sign · √(|difference| / cap)), so a significant region a few points off the overall rate is
 * clearly tinted next to one twenty points off; its marks (±cap, ±cap/4, 0) are evenly spaced on the
 * ramp and labelled with their true values. The cap is taken once from the audit before mitigation, so
 * before and after maps share one scale.
 */
import type { AuditResult } from "../types.ts";

/** Overall rate of an audit (positives / individuals in scope; 0 when nobody is in scope). */
export function overallRate(audit: AuditResult): number {
  return audit.n_individuals > 0 ? audit.n_positives / audit.n_individuals : 0;
}

/** Region rate − overall rate in percentage points; null when the region has no rate (nobody in it). */
export function rateDiffPp(rate: number | null, overall: number): number | null {
  return rate === null || !Number.isFinite(rate) ? null : (rate - overall) * 100;
}

/** The steps a cap is rounded up to (× a power of ten), so the legend's marks (cap, cap/4) are round. */
const NICE = [1, 1.2, 1.6, 2, 2.4, 3.2, 4, 6, 8, 10];

/** The smallest "nice" number ≥ x (x > 0), at most 100: a rate difference never exceeds 100 points. */
export function niceCeil(x: number): number {
  if (!(x > 0)) return 1;
  const mag = 10 ** Math.floor(Math.log10(x));
  const f = x / mag;
  const step = NICE.find((s) => s >= f - 1e-9) ?? 10;
  return Math.min(100, step * mag);
}

/** The smallest cap a scale gets: below a point, rounding noise would look like bias. */
const MIN_CAP = 1;

/**
 * The colour cap of an audit, in percentage points: |rate difference| at which the scale reaches its
 * darkest colour, rounded up to a nice number. It is the largest |difference| among the significant
 * regions, so the strongest significant bias is the darkest colour and small noisy regions (whose rates
 * swing widely) do not wash the others out; larger differences are drawn at the end colour, which the
 * legend marks "≥". Without a significant region it is the 95th percentile of |difference|.
 */
export function auditCap(audit: AuditResult): number {
  const g = overallRate(audit);
  const diffs = (signifOnly: boolean) =>
    audit.stats.filter((st) => !signifOnly || st.is_signif)
      .map((st) => rateDiffPp(st.rate, g))
      .filter((d): d is number => d !== null)
      .map(Math.abs)
      .sort((a, b) => a - b);
  const signif = diffs(true);
  let top = signif.length ? signif[signif.length - 1] : 0;
  if (!signif.length) {
    const all = diffs(false);
    top = all.length ? all[Math.min(all.length - 1, Math.floor(0.95 * all.length))] : 0;
  }
  return niceCeil(Math.max(MIN_CAP, top));
}

/** ColorBrewer RdBu (11 classes, colour-blind-safe), from −1 (dark blue, below) to +1 (dark red, above). */
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

/** Fill of a region without a rate (no individual in scope): a grey that is on neither side. */
export const NO_DATA_COLOR = "#bdbdbd";

const STOP_RGB = DIVERGING_STOPS.map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)));
/** Two hex digits of every byte: a colour is three lookups (every region of every map takes one). */
const HEX = Array.from({ length: 256 }, (_, v) => v.toString(16).padStart(2, "0"));

/** Hex colour of a position on the scale, −1 … +1 (clamped; NaN is the centre). */
export function divergingColor(position: number): string {
  const v = Number.isFinite(position) ? Math.min(1, Math.max(-1, position)) : 0;
  const pos = ((v + 1) / 2) * (STOP_RGB.length - 1);
  const i = Math.min(STOP_RGB.length - 2, Math.floor(pos));
  const f = pos - i, a = STOP_RGB[i], b = STOP_RGB[i + 1];
  const channel = (k: number) => HEX[Math.round(a[k] + (b[k] - a[k]) * f)];
  return "#" + channel(0) + channel(1) + channel(2);
}

/** Position of a rate difference (points) on the ramp, −1 … +1: sign · √(|d| / cap), clamped. */
export function scalePosition(diffPp: number, cap: number): number {
  const c = cap > 0 ? cap : MIN_CAP;
  return Math.sign(diffPp) * Math.sqrt(Math.min(1, Math.abs(diffPp) / c));
}

/** Colour of a rate difference (points) on the scale of cap `cap`; NO_DATA_COLOR without one. */
export function diffColor(diffPp: number | null, cap: number): string {
  if (diffPp === null || !Number.isFinite(diffPp)) return NO_DATA_COLOR;
  return divergingColor(scalePosition(diffPp, cap));
}

/** "+6 pp", "−2.5 pp", "0 pp": a signed difference in points (at most `digits` decimals, true minus sign). */
export function ppLabel(diffPp: number, digits = 1): string {
  const r = Number(diffPp.toFixed(digits));
  if (r === 0) return "0 pp";
  const text = Math.abs(r).toFixed(digits).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
  return `${r > 0 ? "+" : "−"}${text} pp`;
}

/** The scale's marks, top first: +cap, +cap/4, 0, −cap/4, −cap (evenly spaced on the ramp: positions ±1, ±½, 0). */
export function scaleMarks(cap: number): number[] {
  return [cap, cap / 4, 0, -cap / 4, -cap];
}

/** Words for what the maps compare: positive rates, or true-positive rates under equal opportunity. */
export function rateWords(equalOpp: boolean | undefined): { rate: string; short: string } {
  return equalOpp ? { rate: "true-positive rate", short: "TPR" } : { rate: "positive rate", short: "rate" };
}
