/**
 * The `*_image` maps and threshold charts: the SVGs of svg.ts and chart_svg.ts rasterised on the server by
 * resvg compiled to WebAssembly (no browser, no native addon), returned as base64 PNG.
 */
import { createRequire } from "node:module";
import { initWasm, Resvg } from "@resvg/resvg-wasm";
// Importing the package's metadata puts the font package in the module graph, so it is cached with the
// app (`deno cache main.ts`) and node resolution below can find its .ttf file.
import interMeta from "@expo-google-fonts/inter/metadata.json" with { type: "json" };
import type { AuditResult, Regions } from "../types.ts";
import type { ChartBar, ChartOptions, MapOptions, MapPoints } from "./inputs.ts";
import { fairMapSvg, FONT_FAMILY, pointsMapSvg } from "./svg.ts";
import { barChartSvg } from "./chart_svg.ts";
import { basemapFor } from "./basemap.ts";
import { dataBox } from "./features.ts";

const WASM = "@resvg/resvg-wasm/index_bg.wasm";
const FONTS = [
  "@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf",
  "@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf",
];

/** The renderer, initialised once per isolate: resvg's wasm and the font bytes (regular and bold). */
let ready: Promise<Uint8Array[]> | null = null;

/** Loads resvg's wasm and the fonts from their npm packages, once; later calls share the promise. */
function renderer(): Promise<Uint8Array[]> {
  ready ??= (async () => {
    if (interMeta.family !== FONT_FAMILY) {
      throw new Error(`expected font ${FONT_FAMILY}, got ${interMeta.family}`);
    }
    const require = createRequire(import.meta.url);
    const [wasm, ...fonts] = await Promise.all(
      [WASM, ...FONTS].map((path) => Deno.readFile(require.resolve(path))),
    );
    await initWasm(wasm);
    return fonts;
  })().catch((e) => {
    ready = null; // a later call may try again (e.g. after the package cache is filled)
    throw e;
  });
  return ready;
}

/** Base64 of bytes (the platform's own encoder: no binary string made first). */
function toBase64(bytes: Uint8Array): string {
  return bytes.toBase64();
}

/** Rasterises an SVG document to PNG bytes with the bundled font (no system fonts: same image everywhere). */
export async function svgToPng(svg: string): Promise<Uint8Array> {
  const fonts = await renderer();
  const resvg = new Resvg(svg, {
    font: { fontBuffers: fonts, loadSystemFonts: false, defaultFontFamily: FONT_FAMILY },
    shapeRendering: 2,
    textRendering: 1,
  });
  try {
    const image = resvg.render();
    try {
      return image.asPng();
    } finally {
      image.free();
    }
  } finally {
    resvg.free();
  }
}

/** The audit map as a base64 PNG (800×600) over the vector base map, for replies that embed an image. */
export async function fairMapPng(
  regions: Regions,
  audit: AuditResult,
  options: MapOptions = {},
): Promise<string> {
  const basemap = await basemapFor(dataBox(regions, audit));
  return toBase64(await svgToPng(fairMapSvg(regions, audit, options, basemap)));
}

/** The renderer of a dot map over the regions as a base64 PNG, of the kind svg.ts pointsMapSvg draws. */
function pointsMapPng(kind: "distribution" | "flips") {
  return async (regions: Regions, audit: AuditResult, points: MapPoints, options: MapOptions = {}) => {
    const basemap = await basemapFor(dataBox(regions, audit, points));
    return toBase64(await svgToPng(pointsMapSvg(kind, regions, audit, points, options, basemap)));
  };
}

/** The distribution map as a base64 PNG: the caller's (sampled) dots, coloured by y_pred, over the regions. */
export const distributionMapPng = pointsMapPng("distribution");

/** The flips map as a base64 PNG: flipped individuals coloured by their new prediction (direction). */
export const flipsMapPng = pointsMapPng("flips");

/** A threshold chart as a base64 PNG (800×500): bars per region, before-audit colours, reference line. */
export async function barChartPng(bars: ChartBar[], options: ChartOptions): Promise<string> {
  return toBase64(await svgToPng(barChartSvg(bars, options)));
}
