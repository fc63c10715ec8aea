/**
 * What the annotation routes look up before they act: the catalogued dataset and its distributions, a
 * data model, and the collections of Tessera's database where spec 1's records are kept.
 */
import type { Context } from "hono";
import type { AppEnv } from "../../routes/http/env.ts";
import { type DatasetRecord, type Distribution, findDataset, listDatasets } from "../datasets/registry.ts";
import { findModel, listModels } from "./data_models.ts";
import { JsonRecords } from "../../store/json_records.ts";
import type { DataModel } from "../../core/annotate/data_model.ts";
import { InvalidInputError, NotFoundError } from "../../core/errors.ts";

type Ctx = Context<AppEnv>;

/** Collections of TESSERA_DB holding the records of spec 1. */
export const COLLECTIONS = {
  annotations: "annotations",
  configuration: "annotation_configurations",
  dataModelInfo: "data_model_info",
  schema: "dataset_schemas",
} as const;

/** The record store of one of those collections. */
export const records = <R extends object>(c: Ctx, name: keyof typeof COLLECTIONS) =>
  new JsonRecords<R>(c.var.deps.store, { db: c.var.deps.config.TESSERA_DB, collection: COLLECTIONS[name] });

/** A dataset's records in one collection, in id order; a 404 when it has none. */
export async function recordsOf<R extends object>(
  c: Ctx,
  name: keyof typeof COLLECTIONS,
  dataset: string,
  what: string,
): Promise<R[]> {
  const found = await records<R>(c, name).list({ dataset_id: dataset });
  if (!found.length) throw new NotFoundError(`no ${what} for dataset '${dataset}'`);
  return found;
}

/** A store id from its parts (each URI-encoded, so `/` only ever separates them). */
export const recordId = (...parts: (string | null)[]) =>
  parts.map((p) => encodeURIComponent(p ?? "")).join("/");

/** A distribution's id: its MongoDB namespace, `database.collection`. */
export const distributionId = (d: Distribution) => `${d.database}.${d.collection}`;

/** Up to 20 names of a list, for messages that say what exists. */
const some = (names: string[]) =>
  names.length === 0 ? "(none)" : names.slice(0, 20).join(", ") + (names.length > 20 ? ", …" : "");

/** The catalogued dataset, or a 404 naming the datasets there are. */
export async function requireDataset(c: Ctx, name: string): Promise<DatasetRecord> {
  const { store, config } = c.var.deps;
  const found = await findDataset(store, config.TESSERA_DB, name);
  if (found) return found;
  const known = (await listDatasets(store, config.TESSERA_DB)).map((d) => d.dataset_name);
  throw new NotFoundError(`no dataset '${name}'; datasets: ${some(known)}`);
}

/** The dataset's distribution of that id, or a 422 at `loc` listing its distributions. */
export function requireDistribution(
  dataset: DatasetRecord,
  id: string,
  loc: (string | number)[],
): Distribution {
  const found = dataset.distributions.find((d) => distributionId(d) === id);
  if (found) return found;
  const known = dataset.distributions.map(distributionId);
  throw new InvalidInputError(
    `dataset '${dataset.dataset_name}' has no distribution '${id}'; ` +
      `distributions: ${some(known)}`,
    loc,
  );
}

/**
 * The data model of that id. Unknown: a 422 at `loc` when a body named it, else a 404; both list the
 * models there are.
 */
export async function requireModel(c: Ctx, id: string, loc?: (string | number)[]): Promise<DataModel> {
  const dir = c.var.deps.config.MODELS_DIR;
  const found = await findModel(dir, id);
  if (found) return found;
  const message = `no data model '${id}'; models: ${some((await listModels(dir)).map((m) => m.id))}`;
  throw loc ? new InvalidInputError(message, loc) : new NotFoundError(message);
}

/**
 * Creates or replaces a dataset's record in one collection under the id made of `idParts`, keeping the
 * first `created_at`; says whether it replaced one.
 */
export async function save<R extends { dataset_id: string; created_at: string; updated_at: string }>(
  c: Ctx,
  name: keyof typeof COLLECTIONS,
  idParts: (string | null)[],
  fields: Omit<R, "created_at" | "updated_at">,
): Promise<R & { replaced: boolean }> {
  const repo = records<R>(c, name);
  const id = recordId(...idParts);
  const now = new Date().toISOString();
  const prev = await repo.get(id);
  const record = { ...fields, created_at: prev?.created_at ?? now, updated_at: now } as R;
  await repo.put(id, { dataset_id: record.dataset_id }, record);
  return { ...record, replaced: prev !== null };
}
