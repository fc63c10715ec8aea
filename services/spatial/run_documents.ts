/**
 * A kept run as the store holds it. The embedded store refuses documents over 64 KB, and a run of a large
 * collection holds megabytes of maps and one prediction per individual. So a run is a header document
 * (`spatial_runs`: what it is, its summary, its state and its layout) and chunk documents
 * (`spatial_run_chunks`): the answer without its maps and predictions as JSON text (with the request),
 * each map's text, and the predictions packed in columns. A chunk's id follows from the run's id and the
 * layout, so reading a run needs no query.
 */
import type { Config } from "../../config.ts";
import type { Mapping } from "../../core/spatial/mapping.ts";
import type { SolveProgress } from "../../core/spatial/mitigate/status.ts";
import type { CollectionRef, Doc, Store } from "../../store/store.ts";

/** What the run use cases need: the store and the configuration (Tessera's own database, the task switch). */
export interface RunDeps {
  store: Store;
  config: Config;
}

export type RunKind = "audit" | "relabel" | "threshold";

/** How a map is served: an HTML page, or a PNG the answer carries as base64. */
export type MapFormat = "html" | "png";

/** The format of an answer field that is a map, or null for any other field. */
export function mapFormat(field: string): MapFormat | null {
  if (field.endsWith("_html")) return "html";
  if (field.endsWith("_image") || field.startsWith("threshold_chart_")) return "png";
  return null;
}

/** Where a run's rows came from, and their generation when it read them (see datasetGeneration). */
export interface RunSource extends CollectionRef {
  generation: string | null;
}

/** What a run is about, besides its answer. */
export interface RunContext {
  kind: RunKind;
  /** The task: its data_collection_name. */
  task: string;
  source: RunSource;
  /** The whole mapping the run read (omitted keys resolved). */
  mapping: Mapping;
  requestedBy?: string;
  /** The request body as validated (defaults filled). */
  request?: unknown;
}

/** One line of `mitigated_preds` as stored: whatever the answer listed. */
export interface StoredPrediction {
  idx: number;
  doc_id: string;
  y_pred: number;
  flipped?: boolean;
}

/** How a run's chunks are laid out: each part's number of chunks. */
export interface Layout {
  /** The answer without maps and predictions, and the request, as JSON text. */
  answer: number;
  maps: { name: string; format: MapFormat; chunks: number }[];
  /** null: the answer has no predictions (an audit). `flags`: its lines carry `flipped`. */
  preds: { count: number; chunks: number; flags: boolean } | null;
}

/** Where a mitigation is: the request's own phases around the solver's (SolveProgress). */
export type RunPhase =
  | "starting"
  | "loading"
  | "preparing"
  | "solving"
  | SolveProgress["phase"]
  | "auditing after"
  | "saving";

/** Where a running run is: its phase, and its solver's best objective and bound so far (null: none yet). */
export interface RunProgress {
  phase: RunPhase;
  objective: number | null;
  bound: number | null;
  /** When it was reported. */
  at: string;
}

/** The header document of a run. */
export interface RunHeader extends Doc {
  task: string;
  database: string;
  collection: string;
  kind: RunKind;
  state: "writing" | "running" | "complete" | "deleting";
  created_at: string;
  requested_by: string | null;
  generation: string | null;
  mapping: Mapping;
  summary: Record<string, unknown>;
  layout: Layout;
  /** A run written from its request's start (`begin`): when it started, and how far it has come. */
  started_at?: string;
  progress?: RunProgress | null;
  /** A running run is listed until then; its request renews it (live_runs.ts). */
  lease_until?: string | null;
  /** Asked to stop (live_runs.ts: cancelRun); its request then removes it. */
  cancel_requested_at?: string | null;
  cancelled_by?: string | null;
}

/** A run as the list shows it; a running one says where it is. */
export interface RunEntry {
  run_id: string;
  kind: RunKind;
  state: "running" | "complete";
  created_at: string;
  requested_by: string | null;
  summary: Record<string, unknown>;
  maps: string[];
  started_at?: string;
  phase?: RunPhase;
  objective?: number | null;
  bound?: number | null;
  updated_at?: string;
}

export const runsRef = (tesseraDb: string): CollectionRef => ({ db: tesseraDb, collection: "spatial_runs" });
export const chunksRef = (tesseraDb: string): CollectionRef => ({
  db: tesseraDb,
  collection: "spatial_run_chunks",
});

export const answerChunkId = (id: string, i: number) => `${id}:a:${i}`;
export const mapChunk = (id: string, k: number, i: number) => `${id}:m${k}:${i}`;
export const predChunk = (id: string, i: number) => `${id}:p:${i}`;

/** Every chunk id of a run. */
export function chunkIds(h: RunHeader): string[] {
  const n = (k: number, f: (i: number) => string) => Array.from({ length: k }, (_, i) => f(i));
  return [
    ...n(h.layout.answer, (i) => answerChunkId(h._id, i)),
    ...h.layout.maps.flatMap((m, k) => n(m.chunks, (i) => mapChunk(h._id, k, i))),
    ...n(h.layout.preds?.chunks ?? 0, (i) => predChunk(h._id, i)),
  ];
}

/** A run in state "running" whose request renews it no more (its process stopped): it failed. */
export const leaseExpired = (h: RunHeader, now = Date.now()) =>
  h.state === "running" && !(Date.parse(h.lease_until ?? "") > now);

/** A run its request is still computing. */
export const isRunning = (h: RunHeader, now = Date.now()) => h.state === "running" && !leaseExpired(h, now);

/** Newest first: by creation time, then by id (ids sort by creation within a process). */
export const newestFirst = (a: RunHeader, b: RunHeader) =>
  b.created_at.localeCompare(a.created_at) || b._id.localeCompare(a._id);
