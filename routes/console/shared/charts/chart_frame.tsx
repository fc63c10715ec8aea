/**
 * What every chart of the console shares: the `<svg role="img">` frame named by its own `<title>` and
 * described by its `<desc>` (every mark carries a `<title>`: its value on hover), the figure that holds
 * it on a page, round tick values, and coordinate and label helpers. Charts are drawn on the server as SVG
 * (docs/console.md says why); their numbers are always also in a table beside them. Sizes are in the
 * viewBox; the stylesheet scales a chart down to the width it has, never wider than drawn.
 */
import type { Child, FC } from "hono/jsx";

/** A coordinate with at most one decimal: enough for a screen, and short markup. */
export const r1 = (v: number) => Math.round(v * 10) / 10;

/** Width of a text in the charts' 12 px system font, roughly (for margins; the SVG does not measure). */
export const textWidth = (s: string, px = 12) => s.length * px * 0.58;

/** A label cut to `max` characters with an ellipsis. */
export const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** The frame every chart shares: an `<svg role="img">` named by its title and described by its text. */
export const ChartFrame: FC<
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
