/** Annotation functions as a worker task: a run over a large table is CPU work kept off the event loop. */
import { type AnnotationResult, findProcedure } from "../../core/annotate/procedures.ts";
import { type Row, toTable } from "../../core/annotate/table.ts";
import type { DataModel } from "../../core/annotate/data_model.ts";

export interface AnnotatePayload {
  name: string;
  rows: Row[];
  columns?: string[];
  params: { columns?: string[] };
  model?: DataModel;
}

/** Runs one annotation function; returns its result and the columns it looked at. */
function annotate(p: AnnotatePayload): { result: AnnotationResult; columns: string[] } {
  const proc = findProcedure(p.name);
  if (!proc) throw new Error(`unknown annotation function '${p.name}'`);
  const table = toTable(p.rows, p.columns);
  return { result: proc.run(table, p.params, { model: p.model }), columns: table.columns.map((c) => c.name) };
}

/** Entries for workers/tasks.ts. */
export const ANNOTATE_TASKS = { "annotate.run": annotate };
