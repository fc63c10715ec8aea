/**
 * A time series as a line with marked points. A series of many readings keeps each pixel column's lowest
 * and highest reading, so a spike survives the thinning.
 */
import type { FC } from "hono/jsx";
import { ChartFrame, niceTicks, r1 } from "./chart_frame.tsx";

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
