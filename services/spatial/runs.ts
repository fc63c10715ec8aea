/**
 * Kept runs: every audit, relabel and threshold answer is stored with its task, so that a reviewer can
 * list them, fetch one again, open one of its maps by URL, and write a run's final predictions back by
 * its id (services/mitigation/writeback.ts). A task keeps its last RUNS_KEPT runs; each new run removes
 * the older ones, just after its answer.
 *
 * The embedded store refuses documents over 64 KB, and a run of a large collection holds megabytes of
 * maps and one prediction per individual. So a run is a header document (`spatial_runs`: what it is, its
 * summary, and its layout) and chunk documents (`spatial_run_chunks`): the answer without its maps and
 * predictions as JSON text (with the request), each map's text, and the predictions packed in columns.
 * A chunk's id follows from the run's id and the layout, so reading a run needs no query.
 *
 * Only a run in state "complete" is read, and listed with those in state "running". Saving writes the
 * header in state "writing", then the chunks, then marks it "complete": a crash midway never leaves a run
 * that lists as complete. A mitigation's header is written at its request's start, in state "running"
 * (`begin`), with its progress and a lease its request renews (live_runs.ts); a run whose lease has run out
 * is neither listed nor read, and is removed like one left "writing". A run may be written a
 * part at a time as its answer is computed (`RunWriter`: a mitigation's before-audit maps while the solver
 * runs, its predictions while the after-audit runs); the header's layout grows before each part's chunks
 * are written, so leftovers can always be found. Removing marks the header "deleting" first, deletes the
 * chunks, then the header. Each save also finishes the removal of any run of its task that a crash left
 * "deleting", "writing" for longer than STALE_MS, or "running" past its lease.
 */
import { nextTurn, SLICE } from "../../core/turns.ts";
import type { Config } from "../../config.ts";
import { CancelledError, ConflictError, NotFoundError } from "../../core/errors.ts";
import { log } from "../../core/log.ts";
import type { Mapping } from "../../core/spatial/mapping.ts";
import type { SolveProgress } from "../../core/spatial/mitigate/status.ts";
import { newId } from "../../store/ids.ts";
import { type CollectionRef, type Doc, DuplicateIdError, type Store } from "../../store/store.ts";
import { datasetGeneration } from "../datasets/registry.ts";
import { type TaskCollection, taskCollection } from "./task_collection.ts";

/** Complete runs a task keeps; saving one more removes the oldest. */
export const RUNS_KEPT = 20;
/**
 * A run still "writing" after this long was left by a crash: a mitigation writes its run from before its
 * solver starts to its answer, and its work_limit is an hour at most.
 */
const STALE_MS = 6 * 60 * 60 * 1000;
/**
 * UTF-16 units per text chunk. V8 serialises a string at one or two bytes a unit (two when the string, or
 * the string it is a slice of, holds any character beyond Latin-1), so a chunk stays under KV's 64 KB.
 */
const TEXT_UNITS = 30_000;
/** An upper bound of the serialised bytes of one chunk's predictions. */
const PRED_BYTES = 56_000;
/** Chunk documents read at once. */
const CHUNK_BATCH = 16;
/**
 * Chunk documents per insert call: a call checks and serialises its documents in one turn of the event loop
 * (16 chunks of predictions took it, with the collections they caused, 60 ms and more at 206k).
 */
const WRITE_BATCH = 4;
/**
 * Text chunks (maps, the answer's rest) per insert call: serialising text is a copy, so a call takes as many
 * as KV commits in one or two (4 a call: 4.7 MB of text in 0.20-0.22 s; 16: 0.16 s).
 */
const TEXT_BATCH = 16;

/** What the run use cases need: the store and the configuration (Tessera's own database, the task switch). */
export interface RunDeps {
  store: Store;
  config: Config;
}

export type RunKind = "audit" | "relabel" | "threshold";

/** How a map is served: an HTML page, or a PNG the answer carries as base64. */
export type MapFormat = "html" | "png";

/** The answer fields that are maps; the name says how each is served. */
export type MapField = `${string}_html` | `${string}_image` | `threshold_chart_${string}`;

/** The format of an answer field that is a map, or null for any other field. */
export function mapFormat(field: string): MapFormat | null {
  if (field.endsWith("_html")) return "html";
  if (field.endsWith("_image") || field.startsWith("threshold_chart_")) return "png";
  return null;
}

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
 * and the chunks, and their ids, held the main thread's collector 100 ms and more right after the solver).
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

/** How a run's chunks are laid out: each part's number of chunks. */
interface Layout {
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
const chunksRef = (tesseraDb: string): CollectionRef => ({ db: tesseraDb, collection: "spatial_run_chunks" });

const answerChunkId = (id: string, i: number) => `${id}:a:${i}`;
const mapChunk = (id: string, k: number, i: number) => `${id}:m${k}:${i}`;
const predChunk = (id: string, i: number) => `${id}:p:${i}`;

/** Every chunk id of a run. */
function chunkIds(h: RunHeader): string[] {
  const n = (k: number, f: (i: number) => string) => Array.from({ length: k }, (_, i) => f(i));
  return [
    ...n(h.layout.answer, (i) => answerChunkId(h._id, i)),
    ...h.layout.maps.flatMap((m, k) => n(m.chunks, (i) => mapChunk(h._id, k, i))),
    ...n(h.layout.preds?.chunks ?? 0, (i) => predChunk(h._id, i)),
  ];
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A run in state "running" whose request renews it no more (its process stopped): it failed. */
export const leaseExpired = (h: RunHeader, now = Date.now()) =>
  h.state === "running" && !(Date.parse(h.lease_until ?? "") > now);

/** A run its request is still computing. */
export const isRunning = (h: RunHeader, now = Date.now()) => h.state === "running" && !leaseExpired(h, now);

/** What a cancelled mitigation's request answers (409). */
export const cancelled = (kind: RunKind, runId: string) =>
  new CancelledError(
    `the ${kind} was cancelled before it finished (run '${runId}'): nothing of it was kept`,
    runId,
  );

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

/**
 * Stores the run of an answer and gives the answer its `run_id`, without the maps unless `includeMaps`
 * (the stored run keeps them). Then removes the task's runs beyond the last RUNS_KEPT.
 */
export function keepRun<T extends object>(
  deps: RunDeps,
  run: RunContext,
  answer: T,
  includeMaps = true,
): Promise<RunAnswer<T>> {
  return new RunWriter(deps, run).keep(answer, includeMaps);
}

/** A map field of an answer, named by its path ("fair_map_html", "audit_after_mitigation.fair_map_html"). */
interface MapPart {
  name: string;
  format: MapFormat;
  text: string;
}

/** The map of field `k` holding `v` of an object at `prefix`, or null when it is no map. */
function mapPart(prefix: string, k: string, v: unknown): MapPart | null {
  const format = typeof v === "string" ? mapFormat(k) : null;
  return format ? { name: prefix + k, format, text: v as string } : null;
}

/** The answer split into what the chunks hold: its rest (maps and predictions nulled), its maps, its predictions. */
function splitAnswer(answer: object) {
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
function summaryOf(kind: RunKind, answer: Record<string, unknown>, preds: number | null) {
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

/**
 * A run written a part at a time (see the module comment): `writeMaps` and `writePredictions` hand over
 * parts of the answer while the rest is computed, and write them in the background, one after another;
 * `keep` writes what is left once the answer is whole, marks the run complete and starts the pruning of its
 * task's runs. A request that fails after handing over a part calls `abandon`, which removes what was
 * written, and nothing is written after it. A mitigation lists its run from its start (`begin`, then
 * `describe` once its rows are read); such a run completes only if nobody cancelled it meanwhile.
 */
export class RunWriter {
  readonly id: string;
  private layout: Layout = { answer: 0, maps: [], preds: null };
  private header: RunHeader | null = null;
  /** The parts handed over, written in order; rejects with the first failure. */
  private written: Promise<void> = Promise.resolve();
  /** Writes under way besides the parts (the header's start, its description, keep's): abandon awaits them. */
  private pending = new Set<Promise<unknown>>();
  /** The predictions handed over, so `keep` knows the answer's are written. */
  private preds: Lines<StoredPrediction> | null = null;
  /** Listed while it runs (`begin`). */
  private running = false;
  /** Abandoned: nothing more is written. */
  private closed = false;

  /** A run with a new id, or `id` (one the console made for its Cancel button: begin refuses it if taken). */
  constructor(private deps: RunDeps, private run: RunContext, id = newId()) {
    this.id = id;
  }

  get kind(): RunKind {
    return this.run.kind;
  }

  /**
   * Writes the header now, in state "running" (listed from now on), with `progress` and a lease until
   * `leaseUntil` that the request renews (live_runs.ts). A 409 when the id is taken.
   */
  begin(progress: RunProgress, leaseUntil: string): Promise<void> {
    const header: RunHeader = {
      ...this.headerOf(this.layout),
      state: "running",
      started_at: new Date().toISOString(),
      progress,
      lease_until: leaseUntil,
      cancel_requested_at: null,
      cancelled_by: null,
    };
    this.running = true;
    return this.track((async () => {
      try {
        await this.deps.store.insertMany(runsRef(this.deps.config.TESSERA_DB), [header]);
      } catch (e) {
        if (e instanceof DuplicateIdError) throw new ConflictError(`run id '${this.id}' is taken`);
        throw e;
      }
      this.header = header;
    })());
  }

  /** Where the run's rows came from and the mapping read, once known (a run that began before its rows). */
  describe(source: RunSource, mapping: Mapping): void {
    this.run = { ...this.run, source, mapping };
    if (!this.header || this.closed) return;
    const { db: database, collection, generation } = source;
    this.track(this.patchHeader({ database, collection, generation, mapping })).catch(() => {});
  }

  /** Writes the map fields of `part`, the answer's field at `prefix` ("audit_before_mitigation."). */
  writeMaps(part: object, prefix: string): void {
    const maps = Object.entries(part).map(([k, v]) => mapPart(prefix, k, v)).filter((m) => m !== null);
    this.then(() => this.putMaps(maps));
  }

  /** Writes the answer's `mitigated_preds`: the very list the answer will hold (`keep` writes it no more). */
  writePredictions(preds: Lines<StoredPrediction>): void {
    this.preds = preds;
    this.then(() => this.putPredictions(preds));
  }

  /**
   * Writes the answer's parts not handed over, marks the run complete, starts pruning its task's runs (done
   * after the answer: pruneAfterAnswer), and gives the answer its `run_id` (without the maps unless
   * `includeMaps`: the run keeps them). Failing, it removes what was written.
   */
  async keep<T extends object>(answer: T, includeMaps = true): Promise<RunAnswer<T>> {
    try {
      await this.track(this.writeRest(answer));
    } catch (e) {
      await this.abandon();
      throw e;
    }
    pruneAfterAnswer(this.deps, this.run.task);
    const shown = includeMaps ? answer as Lighter<T> : withoutMaps(answer);
    return { run_id: this.id, ...shown };
  }

  /** keep's writes: the parts not handed over, then the run marked complete. */
  private async writeRest(answer: object): Promise<void> {
    await this.written;
    const { rest, maps, preds } = splitAnswer(answer);
    const done = new Set(this.layout.maps.map((m) => m.name));
    await this.putMaps(maps.filter((m) => !done.has(m.name)));
    if (preds !== this.preds) {
      if (this.preds) throw new Error("the answer's predictions are not those written");
      if (preds) await this.putPredictions(preds);
    }
    const texts = sliceText(JSON.stringify({ answer: rest, request: this.run.request ?? null }));
    const answerChunk = (i: number) => ({ _id: answerChunkId(this.id, i), text: texts[i] });
    await this.put({ ...this.layout, answer: texts.length }, texts.length, answerChunk, TEXT_BATCH);
    await this.complete(summaryOf(this.run.kind, rest, preds?.length ?? null));
  }

  /** Marks the run complete; a running one only while nobody asked to cancel it (else a CancelledError). */
  private async complete(summary: Record<string, unknown>): Promise<void> {
    if (!this.running) return await this.patchHeader({ state: "complete", summary });
    const { store, config } = this.deps, runs = runsRef(config.TESSERA_DB);
    const expected = { state: "running", cancel_requested_at: null };
    const set = { state: "complete", summary, progress: null, lease_until: null };
    if (await store.compareAndSet(runs, this.id, expected, set)) return;
    const h = (await store.get(runs, this.id)) as RunHeader | null;
    if (h?.cancel_requested_at) throw cancelled(this.run.kind, this.id);
    throw new Error(`run ${this.id} was removed while it was written`);
  }

  /**
   * Removes whatever was written of the run (after the writes under way have settled); nothing is written
   * after it.
   */
  async abandon(): Promise<void> {
    this.closed = true;
    await this.written.catch(() => {});
    while (this.pending.size) await Promise.allSettled([...this.pending]);
    const header = this.header;
    this.header = null; // removed once, however many callers give up on the run
    if (header) await removeRun(this.deps, { ...header, layout: this.layout }).catch(() => {});
  }

  /** A write besides the parts, awaited by abandon. */
  private track<T>(write: Promise<T>): Promise<T> {
    this.pending.add(write);
    const drop = () => this.pending.delete(write);
    write.then(drop, drop);
    return write;
  }

  /** Queues a write after those handed over before it (a failure skips the rest; `keep` reports it). */
  private then(write: () => Promise<void>): void {
    if (this.closed) return;
    this.written = this.written.then(write);
    this.written.catch(() => {}); // reported by keep, or ignored by abandon
  }

  /** Writes maps as text chunks, their layout recorded first (one header write for them all). */
  private async putMaps(maps: MapPart[]): Promise<void> {
    if (!maps.length) return;
    const from = this.layout.maps.length, texts = maps.map((m) => sliceText(m.text));
    const added = maps.map((m, j) => ({ name: m.name, format: m.format, chunks: texts[j].length }));
    const chunks = texts.flatMap((parts, j) =>
      parts.map((text, i) => ({ _id: mapChunk(this.id, from + j, i), text }))
    );
    await this.put(
      { ...this.layout, maps: [...this.layout.maps, ...added] },
      chunks.length,
      (i) => chunks[i],
      TEXT_BATCH,
    );
  }

  /**
   * Writes predictions packed in columns, WRITE_BATCH chunks made at a time (all of them at once would
   * outlive the young generation: see services/mitigation/prediction_lines.ts).
   */
  private async putPredictions(preds: Lines<StoredPrediction>): Promise<void> {
    const cuts = await predictionCuts(preds);
    const count = cuts.starts.length;
    const layout = { ...this.layout, preds: { count: preds.length, chunks: count, flags: cuts.flags } };
    await this.put(
      layout,
      count,
      (c) => ({ _id: predChunk(this.id, c), ...predictionChunk(preds, cuts, c) }),
    );
  }

  /**
   * Records `layout` in the header (written "writing" the first time), then writes the run's chunks
   * `chunk(0)` … `chunk(count - 1)`, made `batch` at a time.
   */
  private async put(
    layout: Layout,
    count: number,
    chunk: (i: number) => Doc,
    batch = WRITE_BATCH,
  ): Promise<void> {
    const { store, config } = this.deps, runs = runsRef(config.TESSERA_DB);
    const open = () => {
      if (this.closed) throw new Error(`run ${this.id} was abandoned`);
    };
    open();
    this.layout = layout;
    if (this.header) await this.patchHeader({ layout });
    else {
      this.header = this.headerOf(layout);
      await store.put(runs, this.header);
    }
    for (let i = 0; i < count; i += batch) {
      open();
      const part = Array.from({ length: Math.min(batch, count - i) }, (_, j) => ({
        ...chunk(i + j),
        run_id: this.id,
      }));
      await store.insertMany(chunksRef(config.TESSERA_DB), part, { fresh: new Set(part.map((c) => c._id)) });
    }
  }

  /** Sets fields of the run's header, which must still be there. */
  private async patchHeader(set: Partial<RunHeader>): Promise<void> {
    const { store, config } = this.deps;
    if (!await store.patch(runsRef(config.TESSERA_DB), this.id, set)) {
      throw new Error(`run ${this.id} was removed while it was written`);
    }
  }

  /** The header of the run in state "writing"; its summary comes with "complete". */
  private headerOf(layout: Layout): RunHeader {
    const { run } = this;
    return {
      _id: this.id,
      task: run.task,
      database: run.source.db,
      collection: run.source.collection,
      kind: run.kind,
      state: "writing",
      created_at: new Date().toISOString(),
      requested_by: run.requestedBy ?? null,
      generation: run.source.generation,
      mapping: run.mapping,
      summary: {},
      layout,
    };
  }
}

/** Removes a run: marked "deleting" (no longer listed or read), its chunks deleted, then its header. */
async function removeRun(deps: RunDeps, h: RunHeader): Promise<void> {
  const runs = runsRef(deps.config.TESSERA_DB);
  await deps.store.patch(runs, h._id, { state: "deleting" });
  await deps.store.discard(chunksRef(deps.config.TESSERA_DB), chunkIds(h));
  await deps.store.delete(runs, h._id);
}

/** Newest first: by creation time, then by id (ids sort by creation within a process). */
const newestFirst = (a: RunHeader, b: RunHeader) =>
  b.created_at.localeCompare(a.created_at) || b._id.localeCompare(a._id);

/** The prunes under way (pruneAfterAnswer); each leaves the set when it is done. */
const pruning = new Set<Promise<void>>();

/**
 * Prunes a task's runs after the answer rather than before it (at 206k a relabel's run is hundreds of
 * chunks, and removing one took 50-130 ms the reviewer waited for). Meanwhile the list shows the newest
 * RUNS_KEPT; a prune that fails or never runs (the process stopped) is finished by the task's next save.
 */
function pruneAfterAnswer(deps: RunDeps, task: string): void {
  const done = pruneRuns(deps, task)
    .catch((e) => log("warn", "could not remove a task's older runs", { task, error: String(e) }))
    .finally(() => pruning.delete(done));
  pruning.add(done);
}

/** Resolves once the prunes started so far are done: the server waits for them before closing the store. */
export async function prunesSettled(): Promise<void> {
  while (pruning.size) await Promise.all(pruning);
}

/**
 * Keeps a task's last RUNS_KEPT complete runs and finishes what crashes left half written or removed (or
 * running past its lease).
 */
async function pruneRuns(deps: RunDeps, task: string): Promise<void> {
  const all = (await deps.store.list(runsRef(deps.config.TESSERA_DB), { task })) as RunHeader[];
  const now = Date.now();
  const complete = all.filter((h) => h.state === "complete").sort(newestFirst);
  const left = all.filter((h) =>
    h.state === "deleting" || (h.state === "writing" && now - Date.parse(h.created_at) > STALE_MS) ||
    leaseExpired(h, now)
  );
  for (const h of [...complete.slice(RUNS_KEPT), ...left]) await removeRun(deps, h);
}

/** A run as the list shows it: a running one with its start and its progress. */
export function runEntry(h: RunHeader): RunEntry {
  const entry: RunEntry = {
    run_id: h._id,
    kind: h.kind,
    state: h.state === "running" ? "running" : "complete",
    created_at: h.created_at,
    requested_by: h.requested_by,
    summary: h.summary,
    maps: h.layout.maps.map((m) => m.name),
  };
  if (h.state !== "running") return entry;
  const p = h.progress;
  return {
    ...entry,
    started_at: h.started_at ?? h.created_at,
    phase: p?.phase ?? "starting",
    objective: p?.objective ?? null,
    bound: p?.bound ?? null,
    updated_at: p?.at ?? h.created_at,
  };
}

/** The runs of a task: those running (past their lease: no more), then the complete, newest first. */
export async function listRuns(deps: RunDeps, task: string): Promise<RunEntry[]> {
  await taskCollection(deps, task);
  const runs = runsRef(deps.config.TESSERA_DB);
  const [complete, running] = await Promise.all([
    deps.store.list(runs, { task, state: "complete" }),
    deps.store.list(runs, { task, state: "running" }),
  ]) as RunHeader[][];
  const now = Date.now();
  // the newest RUNS_KEPT: the oldest may outlive its removal by a moment (pruneAfterAnswer)
  return [
    ...running.filter((h) => isRunning(h, now)).sort(newestFirst),
    ...complete.sort(newestFirst).slice(0, RUNS_KEPT),
  ].map(runEntry);
}

/** A complete run's header by id, or null; a 409 for one still running. */
async function findRun(deps: RunDeps, runId: string): Promise<RunHeader | null> {
  const h = (await deps.store.get(runsRef(deps.config.TESSERA_DB), runId)) as RunHeader | null;
  if (h && isRunning(h)) {
    const phase = h.progress?.phase ? ` (${h.progress.phase})` : "";
    throw new ConflictError(`run '${runId}' is still running${phase}: its answer is kept once it completes`);
  }
  return h?.state === "complete" ? h : null;
}

export const noRun = (runId: string, task: string) =>
  new NotFoundError(
    `no run '${runId}' for task '${task}' (a task keeps its last ${RUNS_KEPT} runs; its list shows them)`,
  );

/** A complete run of the task (404 naming it when there is none, or it is another task's). */
async function taskRun(deps: RunDeps, task: string, runId: string): Promise<RunHeader> {
  await taskCollection(deps, task);
  const h = await findRun(deps, runId);
  if (!h || h.task !== task) throw noRun(runId, task);
  return h;
}

/** Reads chunks by id, CHUNK_BATCH at a time; a missing one means the run was removed meanwhile (404). */
async function readChunks(deps: RunDeps, h: RunHeader, ids: string[]): Promise<Doc[]> {
  const out: Doc[] = [];
  for (let i = 0; i < ids.length; i += CHUNK_BATCH) {
    const ref = chunksRef(deps.config.TESSERA_DB);
    const got = await Promise.all(ids.slice(i, i + CHUNK_BATCH).map((id) => deps.store.get(ref, id)));
    if (got.some((d) => d === null)) throw noRun(h._id, h.task);
    out.push(...got as Doc[]);
  }
  return out;
}

const joined = (docs: Doc[]) => docs.map((d) => String(d.text)).join("");

/** A map's text as stored (HTML, or the PNG in base64). */
async function mapText(deps: RunDeps, h: RunHeader, k: number): Promise<string> {
  const ids = Array.from({ length: h.layout.maps[k].chunks }, (_, i) => mapChunk(h._id, k, i));
  return joined(await readChunks(deps, h, ids));
}

/** A run's final predictions, one chunk at a time. */
export async function* runPredictions(deps: RunDeps, h: RunHeader): AsyncIterable<StoredPrediction[]> {
  const chunks = h.layout.preds?.chunks ?? 0;
  for (let i = 0; i < chunks; i += CHUNK_BATCH) {
    const ids = Array.from({ length: Math.min(CHUNK_BATCH, chunks - i) }, (_, j) => predChunk(h._id, i + j));
    for (const c of await readChunks(deps, h, ids)) {
      const { ids: docIds, idx, y, f } = c as Doc & {
        ids: string[];
        idx: number[];
        y: number[];
        f?: boolean[];
      };
      yield docIds.map((doc_id, j) => ({
        idx: idx[j],
        doc_id,
        y_pred: y[j],
        ...(f && { flipped: f[j] }),
      }));
    }
  }
}

/** What a stored run answers: the answer as given (maps unless left out), and what the run was. */
export interface StoredRun {
  run_id: string;
  answer: Record<string, unknown>;
  run: {
    kind: RunKind;
    created_at: string;
    requested_by: string | null;
    request: unknown;
    summary: Record<string, unknown>;
    maps: string[];
  };
}

/** A task's run as it answered, rebuilt from its chunks (404 naming an unknown run). */
export async function getRun(
  deps: RunDeps,
  task: string,
  runId: string,
  includeMaps = true,
): Promise<StoredRun> {
  const h = await taskRun(deps, task, runId);
  const ids = Array.from({ length: h.layout.answer }, (_, i) => answerChunkId(h._id, i));
  const { answer, request } = JSON.parse(joined(await readChunks(deps, h, ids)));
  for (const [k, m] of h.layout.maps.entries()) {
    const path = m.name.split(".");
    const holder = path.length === 1 ? answer : answer[path[0]];
    const key = path.at(-1)!;
    if (includeMaps) holder[key] = await mapText(deps, h, k);
    else delete holder[key];
  }
  if (h.layout.preds) {
    const preds: StoredPrediction[] = [];
    for await (const part of runPredictions(deps, h)) preds.push(...part);
    answer.mitigated_preds = preds;
  }
  return {
    run_id: h._id,
    answer,
    run: {
      kind: h.kind,
      created_at: h.created_at,
      requested_by: h.requested_by,
      request,
      summary: h.summary,
      maps: h.layout.maps.map((m) => m.name),
    },
  };
}

/** One map of a run: an HTML page, or PNG bytes. */
export type RunMap = { format: "html"; text: string } | { format: "png"; bytes: Uint8Array<ArrayBuffer> };

/** One map of a task's run by its field name (404 naming an unknown run or map). */
export async function getRunMap(deps: RunDeps, task: string, runId: string, name: string): Promise<RunMap> {
  const h = await taskRun(deps, task, runId);
  const k = h.layout.maps.findIndex((m) => m.name === name);
  if (k < 0) {
    const names = h.layout.maps.map((m) => m.name).join(", ");
    throw new NotFoundError(`run '${runId}' has no map '${name}'; its maps: ${names || "(none)"}`);
  }
  const text = await mapText(deps, h, k);
  if (h.layout.maps[k].format === "html") return { format: "html", text };
  return { format: "png", bytes: Uint8Array.fromBase64(text) };
}

/** A run whose predictions may be written into the task's collection, with its predictions' count. */
export interface WritableRun {
  header: RunHeader;
  count: number;
}

/**
 * The run a write-back by `run_id` writes: 404 when unknown; 409 naming why when it belongs to another
 * task or collection, has no predictions (an audit), or was computed on rows that were imported,
 * replaced or appended to since (the dataset's generation changed).
 */
export async function runForWriteback(
  deps: RunDeps,
  ref: TaskCollection,
  task: string,
  runId: string,
): Promise<WritableRun> {
  const h = await findRun(deps, runId);
  if (!h) throw noRun(runId, task);
  const where = (db: string, coll: string) => `collection '${coll}' of database '${db}'`;
  if (h.task !== task) {
    throw new ConflictError(
      `run '${runId}' belongs to task '${h.task}' (${where(h.database, h.collection)}), not to '${task}'`,
    );
  }
  if (h.database !== ref.db || h.collection !== ref.collection) {
    throw new ConflictError(
      `run '${runId}' was computed on ${where(h.database, h.collection)}; the task now names ` +
        where(ref.db, ref.collection),
    );
  }
  if (!h.layout.preds) {
    throw new ConflictError(`run '${runId}' is an ${h.kind}: it has no predictions to write`);
  }
  const now = await datasetGeneration(deps.store, deps.config.TESSERA_DB, ref);
  if (now !== h.generation) {
    throw new ConflictError(
      `the rows of ${where(ref.db, ref.collection)} were imported again, replaced or appended to ` +
        `since run '${runId}' was computed (${h.created_at}): its predictions may not match them; run the ` +
        `mitigation again`,
    );
  }
  return { header: h, count: h.layout.preds.count };
}

/** The mapping a run read, whose fields a write-back of it must not overwrite. */
export const runMapping = (run: WritableRun): Mapping => run.header.mapping;
