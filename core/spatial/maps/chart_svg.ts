/**
 * The threshold charts of the threshold mitigation: one bar per region (its decision threshold) with a
 * dashed reference line at default_boundary. A bar's colour says where its region stood in the audit
 * before mitigation (significant above the overall rate, significant below, not significant), in both
 * charts, so a region keeps its colour from before to after; a legend names the colours.
 */
import type { AuditResult } from "../types.ts";
import type { BarCategory, ChartBar, ChartOptions } from "./inputs.ts";
import { overallRate, rateWords } from "./map_value.ts";
import { BOLD, svgDocument, svgText } from "./svg.ts";
import { fmt } from "./text.ts";

/** Image size of a chart. */
export const CHART_WIDTH = 800;
export const CHART_HEIGHT = 500;

const [LEFT, RIGHT, TOP, BOTTOM] = [70, 20, 78, 78];

/** Bar colours by category: strong, distinct, and the same hues as the map's ends. */
export const BAR_COLORS: Record<BarCategory, string> = {
  above: "#b2182b",
  below: "#2166ac",
  none: "#9aa3ad",
};

/**
 * Bars of a threshold chart: one threshold per region (by region index), coloured by the region's
 * standing in `before`, outlined when significant in `outlinedBy` (none when null).
 */
export function thresholdBars(
  before: AuditResult,
  thresholds: ArrayLike<number>,
  outlinedBy: AuditResult | null = null,
): ChartBar[] {
  const g = overallRate(before);
  const signifAfter = new Set(outlinedBy?.stats.filter((s) => s.is_signif).map((s) => s.idx) ?? []);
  return before.stats.map((st) => ({
    label: st.region_id,
    value: thresholds[st.idx],
    category: !st.is_signif || st.rate === null ? "none" : st.rate > g ? "above" : "below",
    outlined: signifAfter.has(st.idx),
  }));
}

/** The legend row under the title: the three colours, and the outline when the chart uses one. */
function chartLegend(bars: ChartBar[], options: ChartOptions): string {
  const w = rateWords(options.equalOpp);
  const items: [string, string][] = [
    [BAR_COLORS.above, `significant, ${w.short} above overall`],
    [BAR_COLORS.below, `significant, ${w.short} below overall`],
    [BAR_COLORS.none, "not significant"],
  ];
  let x = 118, out = svgText(16, 48, "before mitigation:", 11, `fill="#444"`);
  for (const [color, label] of items) {
    out += `<rect x="${x}" y="38" width="14" height="12" fill="${color}"/>` + svgText(x + 19, 48, label, 11);
    x += 19 + label.length * 5.4 + 20;
  }
  if (options.outlineLabel && bars.some((b) => b.outlined)) {
    out += `<rect x="118" y="57" width="14" height="12" fill="#fff" stroke="#000" stroke-width="2"/>` +
      svgText(137, 67, options.outlineLabel, 11);
  }
  return out;
}

/** "Nice" tick step (1, 2 or 5 × 10^k) giving about `count` ticks over [0, max]. */
function tickStep(max: number, count: number): number {
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/**
 * The bars as one path per run of neighbours drawn alike (same colour, same outline), in order: resvg
 * parses and draws a few paths much faster than thousands of elements.
 * A run's bars are subpaths of one fill, so where neighbours overlap (bars thinner than a pixel) the paint
 * order across runs is the elements' order.
 */
function barPaths(
  bars: ChartBar[],
  corner: (i: number) => [number, number],
  width: number,
  base: number,
): string {
  let out = "";
  for (let from = 0; from < bars.length;) {
    const { category, outlined } = bars[from];
    let d = "", to = from;
    for (; to < bars.length && bars[to].category === category && !!bars[to].outlined === !!outlined; to++) {
      const [x, y] = corner(to);
      d += `M${x} ${y}h${width}V${base}h${-width}Z`;
    }
    const stroke = outlined ? ` stroke="#000" stroke-width="2"` : "";
    out += `<path d="${d}" fill="${BAR_COLORS[category]}"${stroke}/>`;
    from = to;
  }
  return out;
}

/** SVG of a bar chart (the source of barChartPng). */
export function barChartSvg(bars: ChartBar[], options: ChartOptions): string {
  const finite = bars.map((b) => (Number.isFinite(b.value) ? b.value : 0));
  const yMax = options.yMax ?? Math.max(1, options.reference, ...finite);
  const [w, h] = [CHART_WIDTH - LEFT - RIGHT, CHART_HEIGHT - TOP - BOTTOM];
  const yOf = (v: number) => TOP + h - (Math.max(0, Math.min(v, yMax)) / yMax) * h;
  const slot = w / Math.max(1, bars.length);
  const gap = slot > 4 ? slot * 0.15 : 0;
  let body = svgText(16, 26, options.title ?? "Decision threshold per region", 16, BOLD) +
    chartLegend(bars, options);
  const step = tickStep(yMax, 5);
  for (let v = 0; v <= yMax + 1e-9; v += step) {
    const y = yOf(v);
    body += `<line x1="${LEFT}" x2="${LEFT + w}" y1="${y}" y2="${y}" stroke="#e3e3e3"/>` +
      svgText(LEFT - 8, y + 4, fmt(v, step < 0.1 ? 2 : 1), 11, `text-anchor="end"`);
  }
  body += barPaths(
    bars,
    (i) => [LEFT + i * slot + gap / 2, yOf(finite[i])],
    Math.max(slot - gap, 0.5),
    TOP + h,
  );
  const labelEvery = Math.max(1, Math.ceil(bars.length / 40));
  bars.forEach((b, i) => {
    if (i % labelEvery !== 0) return;
    const x = LEFT + (i + 0.5) * slot;
    body += svgText(
      x,
      TOP + h + 14,
      String(b.label),
      10,
      `text-anchor="end" transform="rotate(-45 ${x} ${TOP + h + 14})"`,
    );
  });
  const ry = Math.round(yOf(options.reference)); // on a pixel edge, so the 2 px line is solid
  body += `<line x1="${LEFT}" x2="${LEFT + w}" y1="${ry}" y2="${ry}" stroke="#111" stroke-width="2" ` +
    `stroke-dasharray="6 4"/>` +
    svgText(LEFT + w - 4, ry - 6, `default boundary ${fmt(options.reference, 2)}`, 11, `text-anchor="end"`) +
    `<line x1="${LEFT}" x2="${LEFT}" y1="${TOP}" y2="${TOP + h}" stroke="#444"/>` +
    `<line x1="${LEFT}" x2="${LEFT + w}" y1="${TOP + h}" y2="${TOP + h}" stroke="#444"/>` +
    svgText(LEFT + w / 2, CHART_HEIGHT - 10, options.xLabel ?? "region", 12, `text-anchor="middle"`) +
    svgText(
      18,
      TOP + h / 2,
      options.yLabel ?? "decision threshold",
      12,
      `text-anchor="middle" transform="rotate(-90 18 ${TOP + h / 2})"`,
    );
  return svgDocument(CHART_WIDTH, CHART_HEIGHT, body);
}
