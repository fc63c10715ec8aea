/**
 * A run written to the store (run_documents.ts), whole or a part at a time as its answer is computed: a
 * mitigation's before-audit maps while the solver runs, its predictions while the after-audit runs. Saving
 * writes the header in state "writing", then the chunks, then marks it "complete": a crash midway never
 * leaves a run that lists as complete. A mitigation's header is written at its request's start, in state
 * "running" (`begin`), with its progress and a lease its request renews (live_runs.ts). The header's layout
 * grows before each part's chunks are written, so leftovers can always be found (run_pruning.ts).
 */
import { CancelledError, ConflictError } from "../../core/errors.ts";
import type { Mapping } from "../../core/spatial/mapping.ts";
import { newId } from "../../store/ids.ts";
import { type Doc, DuplicateIdError } from "../../store/store.ts";
import {
  answerChunkId,
  chunksRef,
  type Layout,
  mapChunk,
  predChunk,
  type RunContext,
  type RunDeps,
  type RunHeader,
  type RunKind,
  type RunProgress,
  type RunSource,
  runsRef,
  type StoredPrediction,
} from "./run_documents.ts";
import {
  type Lighter,
  type Lines,
  type MapPart,
  mapPart,
  predictionChunk,
  predictionCuts,
  type RunAnswer,
  sliceText,
  splitAnswer,
  summaryOf,
  withoutMaps,
} from "./run_chunks.ts";
import { pruneAfterAnswer, removeRun } from "./run_pruning.ts";

/**
 * Chunk documents per insert call: a call checks and serialises its documents in one turn of the event loop,
 * so a few prediction chunks a call keep each turn short.
 */
const WRITE_BATCH = 4;
/**
 * Text chunks (maps, the answer's rest) per insert call: serialising text is a copy, so a call takes as many
 * as KV commits in one or two (fewer a call only adds round trips).
 */
const TEXT_BATCH = 16;

/** What a cancelled mitigation's request answers (409). */
export const cancelled = (kind: RunKind, runId: string) =>
  new CancelledError(
    `the ${kind} was cancelled before it finished (run '${runId}'): nothing of it was kept`,
    runId,
  );

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
