/**
 * Map rendering as a worker task: the PNGs go through resvg (WebAssembly, CPU work on every map),
 * so they are drawn off the event loop like the rest of the audit.
 */
import { distributionMapHtml, fairMapHtml, flipsMapHtml } from "../core/spatial/maps/html.ts";
import { barChartPng, distributionMapPng, fairMapPng, flipsMapPng } from "../core/spatial/maps/png.ts";
import { thresholdBars } from "../core/spatial/maps/chart_svg.ts";
import type { MapOptions, MapPoints } from "../core/spatial/maps/inputs.ts";
import type { AuditResult, Regions } from "../core/spatial/types.ts";

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

/** The four maps of an audit reply. */
async function auditMaps(p: AuditMapsPayload): Promise<AuditMaps> {
  const points = p.points ?? NO_POINTS;
  return {
    fair_map_html: fairMapHtml(p.regions, p.audit, p.options),
    fair_map_image: await fairMapPng(p.regions, p.audit, p.options),
    distribution_map_html: distributionMapHtml(p.regions, p.audit, points, p.options),
    distribution_map_image: await distributionMapPng(p.regions, p.audit, points, p.options),
  };
}

/** The flips map of a mitigation reply (regions coloured by the audit after it). */
async function flipsMaps(p: AuditMapsPayload): Promise<{ flips_map_html: string; flips_map_image: string }> {
  const points = p.points ?? NO_POINTS;
  return {
    flips_map_html: flipsMapHtml(p.regions, p.audit, points, p.options),
    flips_map_image: await flipsMapPng(p.regions, p.audit, points, p.options),
  };
}

export interface ThresholdChartsPayload {
  /** The test part's audits before and after: each chart's bars take their colours from one. */
  before: AuditResult;
  after: AuditResult;
  /** Per region idx: the threshold after mitigation. */
  thresholds: number[];
  defaultBoundary: number;
  cap: number;
}

/** Threshold charts before (t0 everywhere) and after, bars coloured by the audit map value. */
async function thresholdCharts(p: ThresholdChartsPayload) {
  const chart = (audit: AuditResult, values: number[], title: string) =>
    barChartPng(thresholdBars(audit, values, p.cap), {
      reference: p.defaultBoundary,
      title,
      xLabel: "region",
      yLabel: "decision threshold",
    });
  return {
    threshold_chart_before: await chart(
      p.before,
      p.thresholds.map(() => p.defaultBoundary),
      "Thresholds before",
    ),
    threshold_chart_after: await chart(p.after, p.thresholds, "Thresholds after"),
  };
}

/** Entries for workers/tasks.ts. */
export const MAP_TASKS = {
  "maps.audit": auditMaps,
  "maps.flips": flipsMaps,
  "maps.thresholds": thresholdCharts,
};
