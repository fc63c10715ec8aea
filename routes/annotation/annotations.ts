/**
 * Running annotation functions: `GET /procedures` lists them, `POST /annotations` runs one on a dataset
 * (or on inline rows) and stores the result under its identifier, `GET /annotations/{dataset_id}` lists
 * what is stored.
 */
import { newRouter } from "../http/router.ts";
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../http/env.ts";
import { json } from "../http/schemas.ts";
import { annotationRoute as route, jsonBody, notFound } from "./openapi.ts";
import { zodToDetail } from "../http/errors.ts";
import {
  describeProcedures,
  findProcedure,
  type Procedure,
  PROCEDURES,
} from "../../core/annotate/procedures.ts";
import { configuredParams, enabledFunctions, mergeParams } from "../../core/annotate/configuration.ts";
import { inlineRows, parseSampleId, type Selection, selectRows } from "../../core/annotate/sample.ts";
import { InvalidInputError } from "../../core/errors.ts";
import { loadRows, ROW_CAP } from "../../services/datasets/rows.ts";
import {
  AnnotateItem,
  AnnotationRecord,
  ConfigurationRecord,
  PathName,
  ProcedureOut,
  Replaced,
} from "./schemas.ts";
import { recordId, records, requireDataset, requireModel, save } from "../../services/annotation/lookups.ts";

type AnnotationRecord = z.infer<typeof AnnotationRecord>;
type ConfigurationRecord = z.infer<typeof ConfigurationRecord>;
type Item = z.infer<typeof AnnotateItem>;

const missing = notFound("Unknown dataset or record");

/** The procedure of that name, or a 422 naming the ones there are. */
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
 * schema; a 422 with every problem under `body.params`. A function the configuration's list of methods
 * leaves out is a 422 naming the enabled ones.
 */
async function runParams(c: Context<AppEnv>, item: Item, proc: Procedure) {
  const configuration = await records<ConfigurationRecord>(c, "configuration").get(recordId(item.dataset_id));
  const enabled = enabledFunctions(configuration?.methods);
  if (enabled && !enabled.includes(proc.name)) {
    throw new InvalidInputError(
      `annotation function '${proc.name}' is not enabled for dataset '${item.dataset_id}'; enabled: ${
        enabled.join(", ") || "(none)"
      }`,
      ["body", "annotation_function"],
    );
  }
  const merged = mergeParams(item.params, configuredParams(configuration?.methods, proc.name));
  const parsed = proc.params.safeParse(merged.params, { reportInput: true });
  if (parsed.success) return { params: parsed.data, source: merged.source };
  const detail = zodToDetail(parsed.error, "params").map((d) => ({ ...d, loc: ["body", ...d.loc] }));
  throw new HTTPException(422, { res: Response.json({ detail }, { status: 422 }) });
}

/** The rows a run annotates: the inline ones when the request has them, else the stored dataset's. */
async function rowsToAnnotate(c: Context<AppEnv>, item: Item, selection: Selection, columns?: string[]) {
  const inline = inlineRows(item.data, item.items);
  if (inline) {
    const truncated = selection.kind === "all" && inline.length > ROW_CAP;
    return { source: "inline" as const, rows: selectRows(inline, selection, ROW_CAP), truncated };
  }
  const dataset = await requireDataset(c, item.dataset_id);
  const known = dataset.columns.map((col) => col.name);
  columns?.forEach((name, i) => {
    if (known.length && !known.includes(name)) { // a catalogue entry without columns cannot tell
      const msg = `no column '${name}' in dataset '${item.dataset_id}'; columns: ${
        known.join(", ") || "(none)"
      }`;
      throw new InvalidInputError(msg, ["body", "params", "columns", i]);
    }
  });
  const ref = { db: dataset.database, collection: dataset.collection };
  return { source: "dataset" as const, ...await loadRows(c.var.deps.store, ref, selection, columns) };
}

export function annotationRunRoutes() {
  const app = newRouter();

  app.openapi(
    route({
      method: "get",
      path: "/procedures",
      summary: "List procedures",
      responses: { 200: json(z.array(ProcedureOut), "Every annotation function with its parameters") },
    }),
    (c) => c.json(describeProcedures() as z.infer<typeof ProcedureOut>[], 200),
  );

  app.openapi(
    route({
      method: "post",
      path: "/annotations",
      summary: "Execute an annotation",
      description: "Runs `annotation_function` on the dataset's rows (up to the first 100,000 unless " +
        "`sample_id` names a sample), or on inline `data`/`items`, with `params` merged over the dataset's " +
        "configuration; stores the result under `identifier` (replacing one stored there: `replaced`).",
      request: jsonBody(AnnotateItem),
      responses: { 200: json(AnnotationRecord.extend(Replaced), "The stored annotation"), 404: missing },
    }),
    async (c) => {
      const item = c.req.valid("json");
      const proc = requireProcedure(item.annotation_function);
      const { params, source: paramsSource } = await runParams(c, item, proc);
      const selection = parseSampleId(item.sample_id, ROW_CAP);
      const { source, rows, truncated } = await rowsToAnnotate(c, item, selection, params.columns);
      const model = proc.modelId
        ? await requireModel(c, proc.modelId(params), ["body", "params", "data_model_id"])
        : undefined;
      const { result, columns } = await c.var.deps.pool.run<{ result: unknown; columns: string[] }>(
        "annotate.run",
        { name: proc.name, rows, columns: params.columns, params, model },
      );
      const saved = await save<AnnotationRecord>(c, "annotations", [item.dataset_id, item.identifier], {
        dataset_id: item.dataset_id,
        identifier: item.identifier,
        annotation_function: proc.name,
        params,
        params_source: paramsSource,
        source,
        sample_id: item.sample_id ?? null,
        rows: rows.length,
        truncated,
        columns,
        result,
      });
      return c.json(saved, 200);
    },
  );

  app.openapi(
    route({
      method: "get",
      path: "/annotations/{dataset_id}",
      summary: "Get the annotations of a dataset",
      description: "Every stored annotation of the dataset, by identifier; 404 when the dataset is " +
        "neither catalogued nor annotated.",
      request: { params: z.object({ dataset_id: PathName }) },
      responses: { 200: json(z.array(AnnotationRecord), "The stored annotations"), 404: missing },
    }),
    async (c) => {
      const { dataset_id } = c.req.valid("param");
      const found = await records<AnnotationRecord>(c, "annotations").list({ dataset_id });
      if (!found.length) await requireDataset(c, dataset_id);
      return c.json(found, 200);
    },
  );
  return app;
}
