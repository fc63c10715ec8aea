/**
 * The checks of a run or approve request that need the cleaning methods and the dataset: each problem
 * names its request field (`loc`) and says what is allowed, and all of them are reported at once
 * (InvalidInputsError, which the cleaning routes answer with 400).
 */
import {
  type Dtype,
  findMethod,
  methodNames,
  type MethodSpec,
  paramNames,
  type Task,
} from "../../core/cleaning/methods.ts";
import {
  DataMismatchError,
  InvalidInputError,
  InvalidInputsError,
  UnknownNameError,
} from "../../core/errors.ts";
import { findDataset, listDatasets } from "../datasets/registry.ts";
import type { Store } from "../../store/store.ts";
import type { JobRecord, NewJob } from "./job_queue.ts";
import { parseDate } from "./job_data.ts";
import { own } from "../../core/data_keys.ts";
import type { WriteBackPlan } from "./writeback_plan.ts";

/** A job as a run request asks for it, its shape already checked. */
export interface RunInput {
  /** The dataset id (its collection name). */
  data: string;
  task: Task;
  dtype: Dtype;
  method: string;
  dateCol: string | null;
  params: Record<string, unknown>;
}

/** A run request's job, checked against its method and dataset: what the queue stores. */
export type ResolvedRun = Omit<NewJob, "created_by" | "client_id">;

const NUMERIC = new Set(["integer", "number"]);
const FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;
const list = (xs: string[], max = 30) => xs.slice(0, max).join(", ") + (xs.length > max ? ", …" : "");

/** Checks a run request against its method and the dataset: the job's fields, or every problem at once. */
export async function resolveRun(store: Store, tesseraDb: string, body: RunInput): Promise<ResolvedRun> {
  const problems: InvalidInputsError["problems"] = [];
  const bad = (field: string | (string | number)[], msg: string, type = "value_error") =>
    problems.push(new InvalidInputError(msg, ["body", ...(Array.isArray(field) ? field : [field])], type));
  // what the stored dataset decides: a name it lacks (404), columns that do not fit (409)
  const unknown = (field: string | (string | number)[], msg: string) =>
    problems.push(new UnknownNameError(msg, ["body", ...(Array.isArray(field) ? field : [field])]));
  const unfit = (field: string | (string | number)[], msg: string) =>
    problems.push(new DataMismatchError(msg, ["body", ...(Array.isArray(field) ? field : [field])]));
  const refused = () => new InvalidInputsError(problems);
  const spec = findMethod(body.task, body.dtype, body.method);
  if (!spec) {
    bad(
      "method",
      `unknown method '${body.method}' for task '${body.task}' on dtype '${body.dtype}'; allowed: ${
        list(methodNames(body.task, body.dtype))
      }`,
      "enum",
    );
  }
  const parsed = spec?.params.safeParse(body.params);
  if (spec && parsed && !parsed.success) {
    problems.push({
      loc: ["body", "params"],
      error: parsed.error,
      input: body.params,
      allowed: paramNames(spec),
    });
  }
  const dataset = await findDataset(store, tesseraDb, body.data);
  if (!dataset) {
    const known = (await listDatasets(store, tesseraDb)).map((d) => d._id);
    unknown("data", `unknown dataset '${body.data}'; known datasets: ${list(known) || "none"}`);
    throw refused();
  }
  const columns = new Map(dataset.columns.map((c) => [c.name, c.type]));
  const dateCol = body.dateCol;
  if (body.dtype === "tabular" && dateCol) {
    bad("date_col", "date_col is only for dtype 'timeseries'; leave it out");
  }
  if (body.dtype === "timeseries") {
    if (!dateCol) bad("date_col", "Field required for dtype 'timeseries': the datetime column", "missing");
    else if (!columns.has(dateCol)) {
      unknown("date_col", `no column '${dateCol}' in '${body.data}'; columns: ${list([...columns.keys()])}`);
    } else {
      const problem = await dateProblem(store, dataset.database, dataset.collection, dateCol);
      if (problem) unfit("date_col", problem);
    }
  }
  if (!spec || !parsed?.success) throw refused();
  const params = parsed.data as Record<string, unknown>;
  const chosen = (params.columns as string[] | undefined) ?? defaultColumns(spec, columns, dateCol);
  if (!chosen.length) {
    unfit(["params", "columns"], `'${body.data}' has no column this method can use; give params.columns`);
  }
  chosen.forEach((name, i) => {
    const type = columns.get(name);
    const loc = ["params", "columns", i];
    if (type === undefined) {
      unknown(loc, `no column '${name}' in '${body.data}'; columns: ${list([...columns.keys()])}`);
    } else if (name === dateCol) bad(loc, `'${name}' is the date column`);
    else if (spec.numericOnly && !NUMERIC.has(type)) {
      unfit(loc, `column '${name}' is ${type}; '${spec.name}' needs numbers`);
    } else if (type === "array" || type === "object") {
      unfit(loc, `column '${name}' holds ${type}s, not values`);
    }
  });
  if (problems.length) throw refused();
  const { database, collection, rows } = dataset;
  return {
    task: body.task,
    dtype: body.dtype,
    method: spec.name,
    params,
    date_col: dateCol,
    data: body.data,
    database,
    collection,
    columns: chosen,
    rows,
  };
}

/** Every numeric column (or every value column, for methods that fill categories), never the date column. */
function defaultColumns(spec: MethodSpec, columns: Map<string, string>, dateCol: string | null): string[] {
  return [...columns].filter(([name, type]) =>
    name !== dateCol && name !== "_id" &&
    (spec.numericOnly ? NUMERIC.has(type) : type !== "array" && type !== "object")
  ).map(([name]) => name);
}

/** Why a column does not hold dates (judged on a sample of 50 rows), or null when it does. */
async function dateProblem(
  store: Store,
  db: string,
  collection: string,
  field: string,
): Promise<string | null> {
  const values = (await store.sample({ db, collection }, 50)).map((d) => own(d, field)).filter((v) =>
    v !== null && v !== undefined
  );
  if (!values.length) return `column '${field}' holds no dates`;
  const bad = values.find((v) => Number.isNaN(parseDate(v)));
  return bad === undefined
    ? null
    : `column '${field}' does not hold dates (e.g. ${
      JSON.stringify(bad)
    }); use ISO 8601 or whole ms since the epoch`;
}

/**
 * Reads the approval_info keys Tessera acts on (everything else is kept as given): the write-back they
 * describe, null for none, or every problem at once.
 */
export function writeBackPlan(job: JobRecord, info: Record<string, unknown>): WriteBackPlan | null {
  const problems: InvalidInputError[] = [];
  const bad = (key: string, msg: string) =>
    problems.push(new InvalidInputError(msg, ["body", "approval_info", key]));
  // the job's own columns decide these (the schema holds suffix and the fields to their patterns)
  const unfit = (key: string, msg: string) =>
    problems.push(new DataMismatchError(msg, ["body", "approval_info", key]));
  const str = (key: string, fallback: string | null) => {
    const v = info[key];
    if (v === undefined || v === null) return fallback;
    if (typeof v === "string") return v;
    bad(key, "Input should be a valid string");
    return fallback;
  };
  const writeBack = info.write_back ?? true;
  if (typeof writeBack !== "boolean") bad("write_back", "Input should be a valid boolean");
  const target = str("target", "same_fields");
  if (target !== "same_fields" && target !== "new_fields") {
    bad("target", "Input should be 'same_fields' or 'new_fields'");
  }
  const plan: WriteBackPlan = {
    target: target === "new_fields" ? "new_fields" : "same_fields",
    suffix: str("suffix", "_imputed") ?? "_imputed",
    flagField: str("flag_field", "is_anomaly") ?? "is_anomaly",
    scoreField: str("score_field", null),
  };
  const fields = job.task === "impute"
    ? (plan.target === "new_fields" ? job.columns.map((c) => ["suffix", `${c}${plan.suffix}`]) : [])
    : [["flag_field", plan.flagField], ...(plan.scoreField ? [["score_field", plan.scoreField]] : [])];
  for (const [key, name] of fields) {
    if (!FIELD.test(name) || name === "_id") {
      (key === "suffix" ? unfit : bad)(
        key,
        `'${name}' is not a field name Tessera writes: ^[A-Za-z_][A-Za-z0-9_]*$, not _id`,
      );
    } else if (job.task === "detect" && (job.columns.includes(name) || name === job.date_col)) {
      unfit(key, `'${name}' is a column the job read; pick a new field`);
    }
  }
  if (problems.length) throw new InvalidInputsError(problems);
  return writeBack === false ? null : plan;
}
