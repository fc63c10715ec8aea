/**
 * An answer cut into what a run's chunks hold (run_documents.ts): its rest as JSON text, its maps' text, and
 * its predictions packed in columns, each chunk under KV's 64 KB; and the answer as given back, its maps left
 * out on request.
 */
import { nextTurn, SLICE } from "../../core/turns.ts";
import { type MapFormat, mapFormat, type RunKind, type StoredPrediction } from "./run_documents.ts";

/**
 * UTF-16 units per text chunk. V8 serialises a string at one or two bytes a unit (two when the string, or
 * the string it is a slice of, holds any character beyond Latin-1), so a chunk stays under KV's 64 KB.
 */
const TEXT_UNITS = 30_000;
/** An upper bound of the serialised bytes of one chunk's predictions. */
const PRED_BYTES = 56_000;
/** The answer fields that are maps; the name says how each is served. */
export type MapField = `${string}_html` | `${string}_image` | `threshold_chart_${string}`;

/** An answer whose map fields (at its top level and inside its audits) may be left out. */
export type Lighter<T> =
  & {
    [K in keyof T as K extends MapField ? never : K]: T[K] extends readonly unknown[] | { toJSON(): unknown }
      ? T[K]
      : T[K] extends object ? Lighter<T[K]>
      : T[K];
  }
  & { [K in keyof T as K extends MapField ? K : never]?: T[K] };

/** An answer as audit, relabel and threshold give it: with the id of its stored run, maps on request. */
export type RunAnswer<T> = Lighter<T> & { run_id: string };

/** An array of lines, or a list that makes them a slice at a time (services/mitigation/prediction_lines.ts). */
export interface Lines<T> {
  readonly length: number;
  slice(from: number, to: number): T[];
  /** The length of line j's `doc_id`, where the list knows it without making the line. */
  idLength?(j: number): number;
  /** Lines from..to-1 as the chunk's columns, where the list makes them without making the lines. */
  columns?(from: number, to: number): PredictionColumns;
}

/**
 * Predictions as a run's chunk holds them: ids, positions, predictions, and flags when lines carry them.
 * Made without line objects where the list can (a mitigation's: its 206k lines made twice over, for the cuts
 * and the chunks, and their ids, kept the main thread's collector busy right after the solver).
 */
export interface PredictionColumns {
  ids: string[];
  idx: number[];
  y: number[];
  f: boolean[];
}

/** Whether `v` is an array or a list of lines made a slice at a time. */
const isLines = (v: unknown): v is Lines<unknown> =>
  Array.isArray(v) ||
  (typeof v === "object" && v !== null && typeof (v as Lines<unknown>).slice === "function" &&
    typeof (v as Lines<unknown>).length === "number");

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A plain object (an answer's part), not an array or an instance of a class (such as PredictionLines). */
const isPlain = (v: unknown): v is Record<string, unknown> =>
  isRecord(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v));

/** The answer without its map fields, at its top level and inside its audits. */
export function withoutMaps<T extends object>(answer: T): Lighter<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(answer)) {
    if (typeof v === "string" && mapFormat(k)) continue;
    out[k] = isPlain(v) ? withoutMaps(v) : v;
  }
  return out as Lighter<T>;
}

/** A map field of an answer, named by its path ("fair_map_html", "audit_after_mitigation.fair_map_html"). */
export interface MapPart {
  name: string;
  format: MapFormat;
  text: string;
}

/** The map of field `k` holding `v` of an object at `prefix`, or null when it is no map. */
export function mapPart(prefix: string, k: string, v: unknown): MapPart | null {
  const format = typeof v === "string" ? mapFormat(k) : null;
  return format ? { name: prefix + k, format, text: v as string } : null;
}

/** The answer split into what the chunks hold: its rest (maps and predictions nulled), its maps, its predictions. */
export function splitAnswer(answer: object) {
  const maps: MapPart[] = [];
  let preds: Lines<StoredPrediction> | null = null;
  const strip = (obj: Record<string, unknown>, prefix: string, top: boolean) => {
    const rest: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj)) {
      const map = mapPart(prefix, k, v);
      if (map) {
        maps.push(map);
        rest[k] = null;
      } else if (top && k === "mitigated_preds" && isLines(v)) {
        preds = v as Lines<StoredPrediction>;
        rest[k] = null;
      } else rest[k] = top && isPlain(v) ? strip(v, `${k}.`, false) : v;
    }
    return rest;
  };
  const rest = strip(answer as Record<string, unknown>, "", true);
  return { rest, maps, preds: preds as Lines<StoredPrediction> | null };
}

/** Cuts text into chunks of at most TEXT_UNITS units, never between the two halves of a surrogate pair. */
export function sliceText(text: string): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + TEXT_UNITS);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last < 0xdc00) end--;
    out.push(text.slice(at, end));
    at = end;
  }
  return out.length ? out : [""];
}

/** How a run's predictions are cut into chunks: where each chunk starts, and whether lines carry `flipped`. */
export interface PredictionCuts {
  starts: number[];
  flags: boolean;
}

/**
 * As many predictions to a chunk as stay under PRED_BYTES however V8 stores their ids, found by one pass
 * over the lines, SLICE at a time with a turn of the event loop between (a million must not hold it).
 */
export async function predictionCuts(preds: Lines<StoredPrediction>): Promise<PredictionCuts> {
  const starts: number[] = [];
  let bytes = 0, flags = false;
  for (let from = 0; from < preds.length; from += SLICE) {
    if (from) await nextTurn();
    // a list that knows its ids' lengths makes no lines; its lines all carry `flipped` or none do
    const part = preds.idLength ? null : preds.slice(from, from + SLICE);
    const end = Math.min(preds.length, from + SLICE);
    for (let j = from; j < end; j++) {
      const size = 2 * (part ? part[j - from].doc_id.length : preds.idLength!(j)) + 24;
      if (!starts.length || bytes + size > PRED_BYTES) (starts.push(j), bytes = 0);
      bytes += size;
      if (part) flags ||= typeof part[j - from].flipped === "boolean";
    }
  }
  if (preds.idLength && preds.length) flags = typeof preds.slice(0, 1)[0].flipped === "boolean";
  return { starts, flags };
}

/** Chunk c of the predictions as stored: its lines' columns (`f` only when lines carry `flipped`). */
export function predictionChunk(preds: Lines<StoredPrediction>, cuts: PredictionCuts, c: number) {
  const from = cuts.starts[c], to = cuts.starts[c + 1] ?? preds.length;
  if (preds.columns) {
    const { ids, idx, y, f } = preds.columns(from, to);
    return cuts.flags ? { ids, idx, y, f } : { ids, idx, y };
  }
  const lines = preds.slice(from, to);
  const chunk = {
    ids: lines.map((p) => p.doc_id),
    idx: lines.map((p) => p.idx),
    y: lines.map((p) => p.y_pred),
  };
  return cuts.flags ? { ...chunk, f: lines.map((p) => p.flipped === true) } : chunk;
}

/** The short summary a run list shows. */
export function summaryOf(kind: RunKind, answer: Record<string, unknown>, preds: number | null) {
  const pick = (o: unknown, keys: string[], suffix = "") =>
    Object.fromEntries(
      keys.filter((k) => isRecord(o) && o[k] !== undefined).map((k) => [k + suffix, (o as never)[k]]),
    );
  const audit = ["sbi_score", "total_signif_regions", "n_individuals", "n_positives"];
  if (kind === "audit") return pick(answer, [...audit, "n_worlds", "signif_level", "regions_source"]);
  return {
    ...pick(answer, [
      "solver_status_code",
      "solver_status_message",
      "objective",
      "n_flips",
      "flip_budget",
      "positive_rate_before",
      "positive_rate_after",
      "train_size",
      "test_size",
    ]),
    ...pick(answer.audit_before_mitigation, audit.slice(0, 2), "_before"),
    ...pick(answer.audit_after_mitigation, audit.slice(0, 2), "_after"),
    ...pick(answer.metrics_before, ["accuracy"], "_before"),
    ...pick(answer.metrics_after, ["accuracy"], "_after"),
    n_predictions: preds,
  };
}
