/** What the map and chart renderers take besides the audit's Regions and AuditResult. */

/** Individuals to draw as dots, already sampled by the caller (see samplePoints). */
export interface MapPoints {
  lon: ArrayLike<number>;
  lat: ArrayLike<number>;
  /**
   * The dot's class, 0 or 1. Distribution map: the individual's y_pred. Flips map: the prediction after
   * the flip, so 1 is a 0→1 flip and 0 a 1→0 flip.
   */
  cls: ArrayLike<number>;
}

/** Options shared by every map, HTML and PNG. All strings are user text and are escaped. */
export interface MapOptions {
  /** Heading of the page or image. */
  title?: string;
  /** Extra context lines under the heading (e.g. "y_pred field: score"); HTML only. */
  notes?: string[];
  /**
   * Colour cap in percentage points: the half-range of the rate-difference scale, from the audit before
   * mitigation so before and after share it; defaults to this audit's own (auditCap).
   */
  cap?: number;
  /** How many individuals the dots were sampled from, to say "10,000 of 206,418 drawn". */
  drawnOf?: number;
  /** The audit compares true-positive rates (equal opportunity): the labels say so. */
  equalOpp?: boolean;
  /** Regions left out of the drawing (a map draws at most MAX_MAP_REGIONS): the map says how many and why. */
  capped?: number;
  /** Region names by region id, shown next to the id where given. */
  regionNames?: Record<string, string>;
  /**
   * HTML only: a base-map tile URL template (`{z}/{x}/{y}`, optionally `{s}`) the browser loads tiles
   * from. Unset or null: the vector base map embedded in the page, and nothing loaded from outside.
   */
  tileUrl?: string | null;
}

/** Which side of the overall rate a region was on in the audit before mitigation (a bar's colour). */
export type BarCategory = "above" | "below" | "none";

/** One bar of a threshold chart. */
export interface ChartBar {
  /** The region id shown under the bar. */
  label: string | number;
  /** Bar height: the region's decision threshold. */
  value: number;
  /** Significant above / below the overall rate before mitigation, or not significant. */
  category: BarCategory;
  /** Draw a dark outline (the region is significant in the audit the chart shows). */
  outlined?: boolean;
}

/** Options of a bar chart. */
export interface ChartOptions {
  /** Height of the dashed reference line: the default_boundary t0. */
  reference: number;
  title?: string;
  xLabel?: string;
  yLabel?: string;
  /** Top of the value axis; defaults to 1 or the largest value if larger. */
  yMax?: number;
  /** The audits compare true-positive rates: the legend says so. */
  equalOpp?: boolean;
  /** What the outline means, for the legend; no outline key when absent. */
  outlineLabel?: string;
}

/** Colours of dot classes 0 and 1 (PRGn ends: distinct from the RdBu region fill, colour-blind-safe). */
export const DOT_COLORS: readonly [string, string] = ["#762a83", "#1b7837"];
