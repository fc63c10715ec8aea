/**
 * What the annotation use cases look up before they act: the registered dataset and its distributions,
 * and a data model of the catalog; each missing one is an error that lists what exists.
 */
import type { Config } from "../../config.ts";
import type { Store } from "../../store/store.ts";
import { type DatasetRecord, type Distribution, findDataset, listDatasets } from "../datasets/registry.ts";
import { findModel, listModels } from "./data_models.ts";
import type { DataModel } from "../../core/annotate/data_model.ts";
import { NotFoundError, UnknownNameError } from "../../core/errors.ts";

/** What the annotation use cases read: the store, Tessera's own database and the extra models folder. */
export interface AnnotationDeps {
  store: Store;
  config: Pick<Config, "TESSERA_DB" | "MODELS_DIR">;
}

/** A distribution's id: its MongoDB namespace, `database.collection`. */
export const distributionId = (d: Distribution) => `${d.database}.${d.collection}`;

/** Up to 20 names of a list, for messages that say what exists. */
const some = (names: string[]) =>
  names.length === 0 ? "(none)" : names.slice(0, 20).join(", ") + (names.length > 20 ? ", …" : "");

/** The registered dataset, or a NotFoundError naming the datasets there are. */
export async function requireDataset(
  { store, config }: AnnotationDeps,
  name: string,
): Promise<DatasetRecord> {
  const found = await findDataset(store, config.TESSERA_DB, name);
  if (found) return found;
  const known = (await listDatasets(store, config.TESSERA_DB)).map((d) => d.dataset_name);
  throw new NotFoundError(`no dataset '${name}'; datasets: ${some(known)}`);
}

/** The dataset's distribution of that id, or an UnknownNameError (404) at `loc` listing its distributions. */
export function requireDistribution(
  dataset: DatasetRecord,
  id: string,
  loc: (string | number)[],
): Distribution {
  const found = dataset.distributions.find((d) => distributionId(d) === id);
  if (found) return found;
  const known = dataset.distributions.map(distributionId);
  throw new UnknownNameError(
    `dataset '${dataset.dataset_name}' has no distribution '${id}'; ` +
      `distributions: ${some(known)}`,
    loc,
  );
}

/**
 * The data model of that id. Unknown: an UnknownNameError at `loc` when a body named it, else a
 * NotFoundError; both list the models there are.
 */
export async function requireModel(
  { config }: Pick<AnnotationDeps, "config">,
  id: string,
  loc?: (string | number)[],
): Promise<DataModel> {
  const dir = config.MODELS_DIR;
  const found = await findModel(dir, id);
  if (found) return found;
  const message = `no data model '${id}'; models: ${some((await listModels(dir)).map((m) => m.id))}`;
  throw loc ? new UnknownNameError(message, loc) : new NotFoundError(message);
}
