/**
 * The console's charts, drawn on the server as SVG (docs/console.md says why): a correlation heatmap, a
 * horizontal bar chart, and a time series with marked points. Each is an `<svg role="img">` named by its
 * own `<title>` and described by its `<desc>`; every mark carries a `<title>` (its value on hover). The
 * numbers are always also in a table beside the chart, for screen readers and for copying. Sizes are in
 * the viewBox; the stylesheet scales a chart down to the width it has, never wider than drawn.
 */
import type { Child, FC } from "hono/jsx";

/** A coordinate with at most one decimal: enough for a screen, and short markup. */
const r1 = (v: number) => Math.round(v * 10) / 10;

/** Width of a text in the charts' 12 px system font, roughly (for margins; the SVG does not measure). */
const textWidth = (s: string, px = 12) => s.length * px * 0.58;

/** A label cut to `max` characters with an ellipsis. */
const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** The frame every chart shares: an `<svg role="img">` named by its title and described by its text. */
const ChartFrame: FC<
  {
    id: string;
    kind: string;
    width: number;
    height: number;
    title: string;
    description: string;
    children?: Child;
  }
> = (
  { id, kind, width, height, title, description, children },
) => (
  <svg
    id={id}
    class={`chart ${kind}`}
    viewBox={`0 0 ${width} ${height}`}
    width={width}
    height={height}
    role="img"
    aria-labelledby={`${id}-title`}
    aria-describedby={`${id}-desc`}
    font-size="12"
  >
    <title id={`${id}-title`}>{title}</title>
    <desc id={`${id}-desc`}>{description}</desc>
    {children}
  </svg>
);

/** A chart on a page: a figure whose box scrolls the chart sideways on a narrow screen, its caption below. */
export const ChartFigure: FC<{ caption?: Child; children?: Child }> = ({ caption, children }) => (
  <figure class="chart-figure">
    <div class="chart-scroll">{children}</div>
    {caption && <figcaption>{caption}</figcaption>}
  </figure>
);

// ---------------------------------------------------------------------------------------------------
// Colours

/** ColorBrewer RdBu (7 classes), from -1 (blue) through 0 (near white) to +1 (red). */
const RDBU = ["#2166ac", "#67a9cf", "#d1e5f0", "#f7f7f7", "#fddbc7", "#ef8a62", "#b2182b"];

function hex(c: string): [number, number, number] {
  return [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)) as [number, number, number];
}

/** The diverging colour of a coefficient in [-1, 1]. */
export function divergingColour(v: number): string {
  const x = (Math.max(-1, Math.min(1, v)) + 1) / 2 * (RDBU.length - 1);
  const i = Math.min(RDBU.length - 2, Math.floor(x));
  const f = x - i;
  const [a, b] = [hex(RDBU[i]), hex(RDBU[i + 1])];
  return `#${a.map((ch, k) => Math.round(ch + (b[k] - ch) * f).toString(16).padStart(2, "0")).join("")}`;
}

/** Dark or white text, whichever reads better on a cell of that coefficient. */
const inkOn = (v: number) => (Math.abs(v) > 0.6 ? "#ffffff" : "#1a202c");

// ---------------------------------------------------------------------------------------------------
// Heatmap

export interface HeatmapProps {
  /** The element id; its title and description get `<id>-title`, `<id>-desc`. */
  id: string;
  /** The accessible name, e.g. "Correlation heatmap, Pearson". */
  title: string;
  description: string;
  names: string[];
  value: (row: string, col: string) => number | null;
  /** How a value reads on hover and in a cell. */
  format: (v: number) => string;
}

/** A square matrix of coefficients in [-1, 1] as coloured cells, with a legend. */
export const Heatmap: FC<HeatmapProps> = ({ id, title, description, names, value, format }) => {
  const k = names.length;
  const cell = k <= 8 ? 52 : k <= 12 ? 42 : Math.max(14, Math.floor(520 / k));
  const labels = names.map((n) => cut(n, 24));
  const longest = Math.max(...labels.map((l) => textWidth(l)), 20);
  const left = Math.ceil(longest) + 12;
  const top = Math.ceil(longest * 0.72) + 14;
  const grid = k * cell;
  const legendX = left + grid + 22;
  const width = legendX + 62;
  const height = top + Math.max(grid, 160) + 8;
  const showText = cell >= 40;
  const legendH = Math.max(grid, 160);
  return (
    <ChartFrame id={id} kind="heatmap" width={width} height={height} title={title} description={description}>
      <defs>
        <linearGradient id={`${id}-scale`} x1="0" y1="0" x2="0" y2="1">
          {[...RDBU].reverse().map((c, i) => (
            <stop offset={`${(i / (RDBU.length - 1)) * 100}%`} stop-color={c} />
          ))}
        </linearGradient>
      </defs>
      {labels.map((l, j) => (
        <text
          x={r1(left + j * cell + cell / 2)}
          y={top - 8}
          transform={`rotate(-45 ${r1(left + j * cell + cell / 2)} ${top - 8})`}
          fill="#2d3748"
        >
          <title>{names[j]}</title>
          {l}
        </text>
      ))}
      {labels.map((l, i) => (
        <text x={left - 8} y={r1(top + i * cell + cell / 2 + 4)} text-anchor="end" fill="#2d3748">
          <title>{names[i]}</title>
          {l}
        </text>
      ))}
      {names.map((a, i) =>
        names.map((b, j) => {
          const v = value(a, b);
          const x = left + j * cell, y = top + i * cell;
          const hover = v === null
            ? `${a} × ${b}: no coefficient (a constant column, or too few complete rows)`
            : `${a} × ${b}: ${format(v)}`;
          return (
            <g>
              <title>{hover}</title>
              <rect
                x={x}
                y={y}
                width={cell - 1}
                height={cell - 1}
                fill={v === null ? "#e2e8f0" : divergingColour(v)}
              />
              {showText && (
                <text
                  x={r1(x + (cell - 1) / 2)}
                  y={r1(y + (cell - 1) / 2 + 4)}
                  text-anchor="middle"
                  font-size="11"
                  fill={v === null ? "#4a5568" : inkOn(v)}
                >
                  {v === null ? "—" : (Math.abs(v) < 0.005 ? 0 : v).toFixed(2)}
                </text>
              )}
            </g>
          );
        })
      )}
      <rect x={legendX} y={top} width={14} height={legendH} fill={`url(#${id}-scale)`} stroke="#a0aec0" />
      {[1, 0.5, 0, -0.5, -1].map((t) => (
        <text x={legendX + 20} y={r1(top + (1 - t) / 2 * legendH + 4)} fill="#2d3748">
          {t > 0 ? `+${t}` : String(t)}
        </text>
      ))}
    </ChartFrame>
  );
};

// ---------------------------------------------------------------------------------------------------
// Horizontal bars

export interface BarChartProps {
  id: string;
  title: string;
  description: string;
  bars: { label: string; value: number; highlight?: boolean }[];
  /** The value of a full-width bar (default: the largest value). */
  max?: number;
  format: (v: number) => string;
  /** Grid lines at these values. */
  ticks?: number[];
}

/** Labelled horizontal bars, the value written at the end of each. */
export const BarChart: FC<BarChartProps> = ({ id, title, description, bars, max, format, ticks }) => {
  const full = max ?? Math.max(...bars.map((b) => b.value), 1e-9);
  const labels = bars.map((b) => cut(b.label, 34));
  const left = Math.ceil(Math.max(...labels.map((l) => textWidth(l)), 30)) + 14;
  const plot = 380;
  const row = 28;
  const top = ticks ? 22 : 6;
  const width = left + plot + 64;
  const height = top + bars.length * row + 6;
  const x = (v: number) => left + Math.max(0, Math.min(1, v / full)) * plot;
  return (
    <ChartFrame id={id} kind="bars" width={width} height={height} title={title} description={description}>
      {ticks?.map((t) => (
        <g>
          <line x1={r1(x(t))} x2={r1(x(t))} y1={top - 4} y2={height - 4} stroke="#e2e8f0" />
          <text x={r1(x(t))} y={14} text-anchor="middle" fill="#4a5568" font-size="11">{format(t)}</text>
        </g>
      ))}
      {bars.map((b, i) => {
        const y = top + i * row;
        return (
          <g>
            <title>{`${b.label}: ${format(b.value)}`}</title>
            <text x={left - 8} y={y + 18} text-anchor="end" fill="#1a202c">{labels[i]}</text>
            <rect
              x={left}
              y={y + 5}
              width={r1(Math.max(1, x(b.value) - left))}
              height={row - 10}
              rx="3"
              fill={b.highlight ? "#1d4ed8" : "#60a5fa"}
            />
            <text x={r1(x(b.value) + 6)} y={y + 18} fill="#1a202c" font-weight={b.highlight ? "700" : "400"}>
              {format(b.value)}
            </text>
          </g>
        );
      })}
    </ChartFrame>
  );
};

// ---------------------------------------------------------------------------------------------------
// Time series

export interface SeriesPoint {
  row: number;
  value: number | null;
  kind: "filled" | "anomaly";
}

export interface SeriesChartProps {
  id: string;
  title: string;
  description: string;
  /** ms since the epoch, ascending. */
  times: Float64Array;
  /** NaN where a reading is missing. */
  values: Float64Array;
  marks: SeriesPoint[];
}

/** Round tick values covering [lo, hi], about `n` of them. */
export function niceTicks(lo: number, hi: number, n = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
    out.push(Math.round(v / step) * step);
  }
  return out;
}

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "2026-01-09 08:00 UTC". */
export const utcText = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC";

/** Time ticks at round UTC hours or days, about six of them, with their labels. */
export function timeTicks(t0: number, t1: number): { t: number; label: string }[] {
  const span = t1 - t0;
  if (!(span > 0)) return [{ t: t0, label: utcText(t0) }];
  const steps = [
    HOUR,
    3 * HOUR,
    6 * HOUR,
    12 * HOUR,
    DAY,
    2 * DAY,
    7 * DAY,
    14 * DAY,
    30 * DAY,
    91 * DAY,
    365 * DAY,
  ];
  const step = steps.find((s) => span / s <= 7) ?? Math.ceil(span / 7 / (365 * DAY)) * 365 * DAY;
  const out: { t: number; label: string }[] = [];
  for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
    const d = new Date(t);
    const day = `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
    const label = step >= 365 * DAY
      ? String(d.getUTCFullYear())
      : step >= DAY
      ? day
      : `${day} ${String(d.getUTCHours()).padStart(2, "0")}:00`;
    out.push({ t, label });
  }
  return out;
}

/**
 * The line's path: points in time order, a gap (NaN) lifting the pen; when there are more points than
 * pixels, each pixel column keeps its lowest and highest reading, so spikes survive the thinning.
 */
export function linePath(
  times: Float64Array,
  values: Float64Array,
  x: (t: number) => number,
  y: (v: number) => number,
  columns: number,
): string {
  const parts: string[] = [];
  let pen = false;
  const thin = times.length > 2 * columns;
  let bucket = -1;
  let lo = -1, hi = -1;
  const put = (i: number) => {
    parts.push(`${pen ? "L" : "M"}${r1(x(times[i]))} ${r1(y(values[i]))}`);
    pen = true;
  };
  const flush = () => {
    if (lo < 0) return;
    if (lo === hi) put(lo);
    else for (const i of lo < hi ? [lo, hi] : [hi, lo]) put(i);
    lo = hi = -1;
  };
  for (let i = 0; i < times.length; i++) {
    const v = values[i];
    if (Number.isNaN(v)) {
      flush();
      pen = false;
      continue;
    }
    if (!thin) {
      put(i);
      continue;
    }
    const b = Math.floor(x(times[i]));
    if (b !== bucket) {
      flush();
      bucket = b;
    }
    if (lo < 0 || v < values[lo]) lo = i;
    if (hi < 0 || v > values[hi]) hi = i;
  }
  flush();
  return parts.join("");
}

/** A reading over time as a line (gaps left open), with filled points and flagged readings marked. */
export const SeriesChart: FC<SeriesChartProps> = ({ id, title, description, times, values, marks }) => {
  const width = 1200, height = 300;
  const m = { left: 56, right: 16, top: 14, bottom: 30 };
  const t0 = times[0] ?? 0, t1 = times[times.length - 1] ?? 1;
  let lo = Infinity, hi = -Infinity;
  for (const v of values) {
    if (!Number.isNaN(v)) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  for (const mk of marks) {
    if (mk.value !== null) {
      lo = Math.min(lo, mk.value);
      hi = Math.max(hi, mk.value);
    }
  }
  if (!Number.isFinite(lo)) [lo, hi] = [0, 1];
  if (hi === lo) [lo, hi] = [lo - 1, hi + 1];
  const pad = (hi - lo) * 0.06;
  [lo, hi] = [lo - pad, hi + pad];
  const plotW = width - m.left - m.right, plotH = height - m.top - m.bottom;
  const x = (t: number) => m.left + (t1 > t0 ? (t - t0) / (t1 - t0) : 0.5) * plotW;
  const y = (v: number) => m.top + (1 - (v - lo) / (hi - lo)) * plotH;
  const yTicks = niceTicks(lo, hi, 5);
  const xTicks = timeTicks(t0, t1);
  const decimals = Math.max(0, -Math.floor(Math.log10((yTicks[1] ?? 1) - (yTicks[0] ?? 0) || 1)));
  return (
    <ChartFrame id={id} kind="series" width={width} height={height} title={title} description={description}>
      {yTicks.map((v) => (
        <g>
          <line x1={m.left} x2={width - m.right} y1={r1(y(v))} y2={r1(y(v))} stroke="#e2e8f0" />
          <text x={m.left - 6} y={r1(y(v) + 4)} text-anchor="end" fill="#4a5568">{v.toFixed(decimals)}</text>
        </g>
      ))}
      {xTicks.map(({ t, label }) => (
        <g>
          <line
            x1={r1(x(t))}
            x2={r1(x(t))}
            y1={height - m.bottom}
            y2={height - m.bottom + 5}
            stroke="#718096"
          />
          <text x={r1(x(t))} y={height - 8} text-anchor="middle" fill="#4a5568">{label}</text>
        </g>
      ))}
      <line x1={m.left} x2={width - m.right} y1={height - m.bottom} y2={height - m.bottom} stroke="#718096" />
      <path d={linePath(times, values, x, y, plotW)} fill="none" stroke="#2563eb" stroke-width="1.2" />
      {marks.map((mk) => {
        const t = times[mk.row];
        const v = mk.value ?? lo + (hi - lo) / 2;
        const cx = r1(x(t)), cy = r1(y(v));
        const what = mk.kind === "anomaly" ? "flagged as an anomaly" : "filled";
        const label = `${utcText(t)}: ${mk.value === null ? "no value" : mk.value} (${what})`;
        return mk.kind === "anomaly"
          ? (
            <g>
              <title>{label}</title>
              <circle cx={cx} cy={cy} r="5.5" fill="#dc2626" stroke="#ffffff" stroke-width="1.5" />
            </g>
          )
          : (
            <g>
              <title>{label}</title>
              <rect x={r1(cx - 3.5)} y={r1(cy - 3.5)} width="7" height="7" fill="#d97706" stroke="#ffffff" />
            </g>
          );
      })}
    </ChartFrame>
  );
};
