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
  /** Colour cap: the largest s of the audit before mitigation; defaults to this audit's own largest s. */
  cap?: number;
  /** How many individuals the dots were sampled from, to say "10,000 of 206,418 drawn". */
  drawnOf?: number;
  /** HTML only: base-map tile URL template, or null for none (defaults to OpenStreetMap's). */
  tileUrl?: string | null;
}

/** One bar of a threshold chart. */
export interface ChartBar {
  /** The region id shown under the bar. */
  label: string | number;
  /** Bar height: the region's decision threshold. */
  value: number;
  /** The region's audit map value in [−1, 1], which colours the bar. */
  mapValue: number;
  /** Draw a dark outline (the region was significant in the audit). */
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
}

/** Colours of dot classes 0 and 1 (PRGn ends: distinct from the RdBu region fill, colour-blind-safe). */
export const DOT_COLORS: readonly [string, string] = ["#762a83", "#1b7837"];
