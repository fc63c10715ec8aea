/**
 * Map rendering as a worker task: the PNGs go through resvg (WebAssembly, CPU work on every map),
 * so they are drawn off the event loop like the rest of the audit.
 */
import { distributionMapHtml, fairMapHtml, flipsMapHtml } from "../../core/spatial/maps/html.ts";
import { barChartPng, distributionMapPng, fairMapPng, flipsMapPng } from "../../core/spatial/maps/png.ts";
import { thresholdBars } from "../../core/spatial/maps/chart_svg.ts";
import type { MapOptions, MapPoints } from "../../core/spatial/maps/inputs.ts";
import type { AuditResult, Regions, Ring } from "../../core/spatial/types.ts";

export interface AuditMapsPayload {
  regions: Regions;
  audit: AuditResult;
  /** Dots of the distribution map (already sampled); null when individuals have no coordinates. */
  points: MapPoints | null;
  options: MapOptions;
}

export interface AuditMaps {
  fair_map_html: string;
  fair_map_image: string;
  distribution_map_html: string;
  distribution_map_image: string;
}

const NO_POINTS: MapPoints = { lon: [], lat: [], cls: [] };

/** The fair map of an audit reply, HTML and PNG (the distribution map is another task: both run at once). */
async function fairMaps(p: Omit<AuditMapsPayload, "points">) {
  return {
    fair_map_html: await fairMapHtml(p.regions, p.audit, p.options),
    fair_map_image: await fairMapPng(p.regions, p.audit, p.options),
  };
}

/** The distribution map of an audit reply, HTML and PNG. */
async function distributionMaps(p: AuditMapsPayload) {
  const points = p.points ?? NO_POINTS;
  return {
    distribution_map_html: await distributionMapHtml(p.regions, p.audit, points, p.options),
    distribution_map_image: await distributionMapPng(p.regions, p.audit, points, p.options),
  };
}

/** The flips map of a mitigation reply (regions coloured by the audit after it). */
async function flipsMaps(p: AuditMapsPayload): Promise<{ flips_map_html: string; flips_map_image: string }> {
  const points = p.points ?? NO_POINTS;
  return {
    flips_map_html: await flipsMapHtml(p.regions, p.audit, points, p.options),
    flips_map_image: await flipsMapPng(p.regions, p.audit, points, p.options),
  };
}

export interface ThresholdChartPayload {
  /** The test part's audit before: a bar takes its colour from its region's standing there. */
  before: AuditResult;
  /** Per region idx: the threshold after mitigation; null for the chart before (t0 everywhere). */
  thresholds: number[] | null;
  /** The audit after, whose significant regions are outlined; null for the chart before. */
  after: AuditResult | null;
  defaultBoundary: number;
  /** The audits compare true-positive rates (equal opportunity): the legend says so. */
  equalOpp?: boolean;
}

/** `value` for every region of an audit, by region idx. */
function everywhere(audit: AuditResult, value: number): number[] {
  const size = audit.stats.reduce((most, st) => Math.max(most, st.idx + 1), 0);
  return new Array(size).fill(value);
}

/**
 * One threshold chart: before (t0 everywhere) or after. In both, a bar's colour is its region's standing
 * before mitigation (significant above or below the overall rate, or not significant), so a region keeps
 * its colour; the after chart outlines the regions still significant after mitigation. One task a chart,
 * so the one before is drawn beside the solver.
 */
function thresholdChart(p: ThresholdChartPayload): Promise<string> {
  const common = {
    reference: p.defaultBoundary,
    xLabel: "region",
    yLabel: "decision threshold",
    equalOpp: p.equalOpp,
  };
  if (p.thresholds === null) {
    return barChartPng(
      thresholdBars(p.before, everywhere(p.before, p.defaultBoundary)),
      { ...common, title: "Thresholds before mitigation (default boundary everywhere)" },
    );
  }
  return barChartPng(
    thresholdBars(p.before, p.thresholds, p.after),
    { ...common, title: "Thresholds after mitigation", outlineLabel: "still significant after mitigation" },
  );
}

/** A square ring of side `d` from its south-west corner. */
const square = (
  lon: number,
  lat: number,
  d: number,
): Ring => [[lon, lat], [lon + d, lat], [lon + d, lat + d], [lon, lat + d]];

/**
 * Makes this isolate ready to draw, so the first audit after a start does not pay for it: resvg's WebAssembly and the fonts, both base maps (the 1:110m world with the U.S. states, the
 * 1:50m one) and the drawing code itself, by drawing a small fair map and distribution map at each scale.
 */
export async function warmMaps(): Promise<void> {
  // a span of 50° draws on the 1:110m base map, one of 0.5° on the 1:50m one (basemapFor)
  for (const [lon, lat, d] of [[-120, 28, 25], [23.4, 37.7, 0.25]]) {
    const regions: Regions = {
      source: "polygons",
      ids: [0, 1],
      members: [Int32Array.of(0), Int32Array.of(1)],
      polygons: [square(lon, lat, d), square(lon + d, lat, d)],
      unassigned: 0,
    };
    const line = (idx: number, p: number) => ({
      idx,
      region_id: idx,
      n: 2,
      p,
      rate: p / 2,
      raw_stat: 0,
      stat: 0,
      p_value: 1,
      is_signif: false,
    });
    const audit: AuditResult = {
      sbi_score: 0,
      signif_thresh: 1,
      total_signif_regions: 0,
      stats: [line(0, 1), line(1, 1)],
      n_individuals: 4,
      n_positives: 2,
    };
    const points = {
      lon: Float64Array.of(lon + d / 2, lon + d / 3, lon + 1.5 * d, lon + 1.2 * d),
      lat: Float64Array.of(lat + d / 2, lat + d / 3, lat + d / 2, lat + d / 3),
      cls: Uint8Array.of(0, 1, 0, 1),
    };
    const options = { title: "warm-up", drawnOf: 4 };
    await Promise.all([
      fairMaps({ regions, audit, options }),
      distributionMaps({ regions, audit, points, options }),
    ]);
  }
}

/** Entries for workers/tasks.ts. */
export const MAP_TASKS = {
  "maps.fair": fairMaps,
  "maps.distribution": distributionMaps,
  "maps.flips": flipsMaps,
  "maps.threshold_chart": thresholdChart,
};
