/**
 * Running annotation functions (spec 1): which there are, one run on a dataset's rows (or on inline
 * rows) stored under its identifier, and the runs stored for a dataset.
 */
import type { WorkerPool } from "../../workers/pool.ts";
import {
  type AnnotationResult,
  describeProcedures,
  findProcedure,
  type Procedure,
  PROCEDURES,
} from "../../core/annotate/procedures.ts";
import {
  configuredParams,
  enabledFunctions,
  mergeParams,
  type ParamsSource,
} from "../../core/annotate/configuration.ts";
import { inlineRows, parseSampleId, type Selection, selectRows } from "../../core/annotate/sample.ts";
import {
  DataMismatchError,
  InvalidInputError,
  InvalidInputsError,
  locateParams,
  UnknownNameError,
} from "../../core/errors.ts";
import { loadRows, ROW_CAP } from "../datasets/rows.ts";
import { type AnnotationDeps, requireDataset, requireModel } from "./lookups.ts";
import { records, save, type Stamped } from "./record_store.ts";
import { findConfiguration } from "./dataset_records.ts";

/** What a run uses besides the lookups: the worker pool the function runs in. */
export interface RunDeps extends AnnotationDeps {
  pool: WorkerPool;
}

/** One run as POST /annotations asks for it; `params` is checked here, against the function's schema. */
export interface RunInput {
  datasetId: string;
  identifier: string;
  functionName: string;
  sampleId?: string | null;
  /** Inline rows instead of the stored dataset: one record or a list (`data`), or a list (`items`). */
  data?: unknown;
  items?: unknown;
  params?: unknown;
}

export interface AnnotationRecord extends Stamped {
  dataset_id: string;
  identifier: string;
  annotation_function: string;
  params: { columns?: string[] };
  params_source: ParamsSource;
  source: "dataset" | "inline";
  sample_id: string | null;
  rows: number;
  truncated: boolean;
  columns: string[];
  result: AnnotationResult;
}

/** Every annotation function with its description and its parameters as JSON Schema. */
export const listProcedures = () => describeProcedures();

/**
 * Runs one function on the rows the input names and stores the result (replacing one stored there). A
 * parameter core refuses (sample_id, data or items, a column no row has) names its body field.
 */
export function runAnnotation(deps: RunDeps, input: RunInput): Promise<AnnotationRecord> {
  return locateParams((param) => ["body", ...param], () => annotate(deps, input));
}

async function annotate(deps: RunDeps, input: RunInput): Promise<AnnotationRecord> {
  const proc = requireProcedure(input.functionName);
  const { params, source: paramsSource } = await runParams(deps, input, proc);
  const selection = parseSampleId(input.sampleId, ROW_CAP);
  const { source, rows, truncated } = await rowsToAnnotate(deps, input, selection, params.columns);
  const model = proc.modelId
    ? await requireModel(deps, proc.modelId(params), ["body", "params", "data_model_id"])
    : undefined;
  const { result, columns } = await deps.pool.run(
    "annotate.run",
    { name: proc.name, rows, columns: params.columns, params, model },
  );
  return await save<AnnotationRecord>(deps, "annotations", [input.datasetId, input.identifier], {
    dataset_id: input.datasetId,
    identifier: input.identifier,
    annotation_function: proc.name,
    params,
    params_source: paramsSource,
    source,
    sample_id: input.sampleId ?? null,
    rows: rows.length,
    truncated,
    columns,
    result,
  });
}

/** The dataset's stored annotations; NotFoundError when it has none and is not registered either. */
export async function listAnnotations(deps: AnnotationDeps, datasetId: string): Promise<AnnotationRecord[]> {
  const found = await records<AnnotationRecord>(deps, "annotations").list({ dataset_id: datasetId });
  if (!found.length) await requireDataset(deps, datasetId);
  return found;
}

/** The procedure of that name, or an InvalidInputError naming the ones there are. */
function requireProcedure(name: string): Procedure {
  const found = findProcedure(name);
  if (found) return found;
  throw new InvalidInputError(
    `unknown annotation function '${name}'; functions: ${PROCEDURES.map((p) => p.name).join(", ")}`,
    ["body", "annotation_function"],
  );
}

/**
 * The params of a run: the request's merged over the dataset's configuration, checked by the function's
 * schema (every problem under `body.params`). A function the configuration's list of methods leaves out
 * is refused, naming the enabled ones.
 */
async function runParams(deps: AnnotationDeps, input: RunInput, proc: Procedure) {
  const configuration = await findConfiguration(deps, input.datasetId);
  const enabled = enabledFunctions(configuration?.methods);
  if (enabled && !enabled.includes(proc.name)) {
    throw new DataMismatchError(
      `annotation function '${proc.name}' is not enabled for dataset '${input.datasetId}'; enabled: ${
        enabled.join(", ") || "(none)"
      }`,
      ["body", "annotation_function"],
    );
  }
  const merged = mergeParams(input.params, configuredParams(configuration?.methods, proc.name));
  const parsed = proc.params.safeParse(merged.params, { reportInput: true });
  if (parsed.success) return { params: parsed.data, source: merged.source };
  throw new InvalidInputsError([{ loc: ["body", "params"], error: parsed.error, input: merged.params }]);
}

/** The rows a run annotates: the inline ones when the input has them, else the stored dataset's. */
async function rowsToAnnotate(
  deps: AnnotationDeps,
  input: RunInput,
  selection: Selection,
  columns?: string[],
) {
  const inline = inlineRows(input.data, input.items);
  if (inline) {
    const truncated = selection.kind === "all" && inline.length > ROW_CAP;
    return { source: "inline" as const, rows: selectRows(inline, selection, ROW_CAP), truncated };
  }
  const dataset = await requireDataset(deps, input.datasetId);
  const known = dataset.columns.map((col) => col.name);
  columns?.forEach((name, i) => {
    if (known.length && !known.includes(name)) { // a registry entry without columns cannot tell
      const msg = `no column '${name}' in dataset '${input.datasetId}'; columns: ${
        known.join(", ") || "(none)"
      }`;
      throw new UnknownNameError(msg, ["body", "params", "columns", i]);
    }
  });
  const ref = { db: dataset.database, collection: dataset.collection };
  return { source: "dataset" as const, ...await loadRows(deps.store, ref, selection, columns) };
}
