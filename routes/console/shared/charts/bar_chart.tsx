/** A horizontal bar chart: labelled bars, the value written at the end of each. */
import type { FC } from "hono/jsx";
import { ChartFrame, cut, r1, textWidth } from "./chart_frame.tsx";

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
