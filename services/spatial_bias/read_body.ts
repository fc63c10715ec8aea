/**
 * A toolkit request's body read in a worker (core/spatial/toolkit_individuals.ts): its chunks, as the
 * request's stream gave them, are moved there, never joined or copied here, and come back as typed columns
 * in shared memory, so the event loop neither copies nor parses 25 MB of JSON, nor holds 200,000 objects.
 */
import type { ToolkitRead } from "../../core/spatial/toolkit_individuals.ts";
import type { WorkerPool } from "../../workers/pool.ts";

/** Which of the toolkit's routes a body is for: the sets of individuals each reads. */
export type ToolkitKind = "audit" | "relabel" | "threshold";

/**
 * The lists of individuals a kind's body holds, in the order their columns follow one another: the
 * threshold's predict set first, so an individual's position among everyone is its `idx` in it.
 */
export const TOOLKIT_SETS: Record<ToolkitKind, readonly string[]> = {
  audit: ["indiv_info"],
  relabel: ["indiv_info"],
  threshold: ["predict_indiv_info", "fit_indiv_info"],
};

/** Parses and checks `chunks` (the body of a `kind` request) in a worker; their buffers are moved there. */
export function readToolkitBody(
  pool: WorkerPool,
  chunks: Uint8Array[],
  kind: ToolkitKind,
): Promise<ToolkitRead> {
  const fields = [...TOOLKIT_SETS[kind]];
  const needProb = kind === "threshold" ? fields : [];
  return pool.run("toolkit.read", { chunks, fields, needProb }, { transfer: true });
}
