/**
 * The worker task "toolkit.read": a toolkit request's body (its chunks as they came, moved here, not copied) parsed and
 * read into typed columns in shared memory (core/spatial/toolkit_individuals.ts), so the event loop never
 * parses it; what comes back is the columns, their facts and the body's few other fields.
 */
import { readToolkitBody } from "../../core/spatial/toolkit_individuals.ts";
import { sharedAlloc } from "../../core/memory.ts";

/** Entries for workers/tasks.ts. */
export const TOOLKIT_TASKS = {
  "toolkit.read": (p: { chunks: Uint8Array[]; fields: string[]; needProb: string[] }) =>
    readToolkitBody(p.chunks, p.fields, p.needProb, sharedAlloc),
};
