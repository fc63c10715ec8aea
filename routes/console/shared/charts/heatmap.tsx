/** The correlation heatmap: a square matrix of coefficients in [-1, 1] as coloured cells, with a legend. */
import type { FC } from "hono/jsx";
import { ChartFrame, cut, r1, textWidth } from "./chart_frame.tsx";

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
