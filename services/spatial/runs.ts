/**
 * Kept runs: every audit, relabel and threshold answer is stored with its task (run_writer.ts), so that a
 * reviewer can list them, fetch one again and open one of its maps by URL. A task keeps its last RUNS_KEPT
 * runs (run_pruning.ts). Only a run in state "complete" is read, and listed with those in state "running";
 * a run whose lease has run out is neither listed nor read.
 */
import { ConflictError, NotFoundError } from "../../core/errors.ts";
import type { Doc } from "../../store/store.ts";
import {
  answerChunkId,
  chunksRef,
  isRunning,
  mapChunk,
  newestFirst,
  predChunk,
  type RunDeps,
  type RunEntry,
  type RunHeader,
  type RunKind,
  runsRef,
  type StoredPrediction,
} from "./run_documents.ts";
import { taskCollection } from "./task_collection.ts";

/** Complete runs a task keeps; saving one more removes the oldest. */
export const RUNS_KEPT = 20;
/** Chunk documents read at once. */
const CHUNK_BATCH = 16;
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
export async function findRun(deps: RunDeps, runId: string): Promise<RunHeader | null> {
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

/**
 * A task's run as it answered, rebuilt from its chunks (404 naming an unknown run); `includePreds` false
 * leaves out a mitigation's line per individual (a report needs only its counts).
 */
export async function getRun(
  deps: RunDeps,
  task: string,
  runId: string,
  includeMaps = true,
  includePreds = true,
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
  if (h.layout.preds && includePreds) {
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
