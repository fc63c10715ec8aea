/**
 * The budget frontier's chart (the style of shared/charts/): x the flip budget, two series, SBI after (left axis)
 * and accuracy after (right axis). Each point is a link to its relabel run, so the svg is a group of
 * links rather than an image; the same numbers, with the same links, are in the table beside it.
 */
import type { FC } from "hono/jsx";
import { niceTicks } from "../../shared/charts/chart_frame.tsx";

export interface FrontierChartPoint {
  flipBudget: number;
  sbi: number;
  accuracy: number | null;
  href: string;
}

const r1 = (v: number) => Math.round(v * 10) / 10;
const SBI = "#2563eb", ACC = "#d97706";

/** [lo, hi] of the values, widened a little (and around a single value). */
function span(values: number[]): [number, number] {
  let lo = Math.min(...values), hi = Math.max(...values);
  if (!Number.isFinite(lo)) [lo, hi] = [0, 1];
  if (hi === lo) [lo, hi] = [lo - (Math.abs(lo) * 0.1 || 0.5), hi + (Math.abs(hi) * 0.1 || 0.5)];
  const pad = (hi - lo) * 0.08;
  return [lo - pad, hi + pad];
}

export const FrontierChart: FC<{ id: string; points: FrontierChartPoint[] }> = ({ id, points }) => {
  const width = 760, height = 320;
  const m = { left: 64, right: 64, top: 16, bottom: 44 };
  const plotW = width - m.left - m.right, plotH = height - m.top - m.bottom;
  const [x0, x1] = span(points.map((p) => p.flipBudget));
  const [s0, s1] = span(points.map((p) => p.sbi));
  const accs = points.flatMap((p) => (p.accuracy === null ? [] : [p.accuracy]));
  const [a0, a1] = span(accs);
  const x = (v: number) => m.left + ((v - x0) / (x1 - x0)) * plotW;
  const ys = (v: number) => m.top + (1 - (v - s0) / (s1 - s0)) * plotH;
  const ya = (v: number) => m.top + (1 - (v - a0) / (a1 - a0)) * plotH;
  const line = (ps: [number, number][]) =>
    ps.map(([px, py], i) => `${i ? "L" : "M"}${r1(px)} ${r1(py)}`).join("");
  const withAcc = points.filter((p) => p.accuracy !== null);
  const label = (p: FrontierChartPoint) =>
    `Flip budget ${p.flipBudget}: SBI after ${p.sbi.toFixed(4)}` +
    (p.accuracy === null ? "" : `, accuracy after ${(p.accuracy * 100).toFixed(2)} %`) +
    ". Open this relabel";
  const bottom = height - m.bottom;
  return (
    <svg
      id={id}
      class="chart frontier"
      viewBox={`0 0 ${width} ${height}`}
      width={width}
      height={height}
      role="group"
      aria-labelledby={`${id}-title`}
      font-size="12"
    >
      <title id={`${id}-title`}>Budget frontier: SBI after and accuracy after by flip budget</title>
      {niceTicks(s0, s1, 5).map((v) => (
        <g>
          <line x1={m.left} x2={width - m.right} y1={r1(ys(v))} y2={r1(ys(v))} stroke="#e2e8f0" />
          <text x={m.left - 6} y={r1(ys(v) + 4)} text-anchor="end" fill={SBI}>
            {Number(v.toPrecision(6))}
          </text>
        </g>
      ))}
      {accs.length > 0 &&
        niceTicks(a0, a1, 5).map((v) => (
          <text x={width - m.right + 6} y={r1(ya(v) + 4)} fill={ACC}>
            {`${Number((v * 100).toPrecision(6))} %`}
          </text>
        ))}
      {niceTicks(x0, x1, 6).filter((v) => v >= 0).map((v) => (
        <g>
          <line x1={r1(x(v))} x2={r1(x(v))} y1={bottom} y2={bottom + 5} stroke="#718096" />
          <text x={r1(x(v))} y={bottom + 18} text-anchor="middle" fill="#4a5568">
            {v.toLocaleString("en-US")}
          </text>
        </g>
      ))}
      <line x1={m.left} x2={width - m.right} y1={bottom} y2={bottom} stroke="#718096" />
      <text x={m.left + plotW / 2} y={height - 6} text-anchor="middle" fill="#4a5568">
        Flip budget (most flips allowed)
      </text>
      <text x={m.left} y={m.top - 4} fill={SBI}>SBI after</text>
      <text x={width - m.right} y={m.top - 4} text-anchor="end" fill={ACC}>Accuracy after</text>
      <path
        d={line(points.map((p) => [x(p.flipBudget), ys(p.sbi)]))}
        fill="none"
        stroke={SBI}
        stroke-width="1.5"
      />
      <path
        d={line(withAcc.map((p) => [x(p.flipBudget), ya(p.accuracy!)]))}
        fill="none"
        stroke={ACC}
        stroke-width="1.5"
        stroke-dasharray="5 3"
      />
      {points.map((p) => (
        <a href={p.href} aria-label={label(p)}>
          <title>{label(p)}</title>
          <circle
            cx={r1(x(p.flipBudget))}
            cy={r1(ys(p.sbi))}
            r="6"
            fill={SBI}
            stroke="#ffffff"
            stroke-width="1.5"
          />
          {p.accuracy !== null && (
            <rect
              x={r1(x(p.flipBudget) - 5)}
              y={r1(ya(p.accuracy) - 5)}
              width="10"
              height="10"
              fill={ACC}
              stroke="#ffffff"
              stroke-width="1.5"
            />
          )}
        </a>
      ))}
    </svg>
  );
};
