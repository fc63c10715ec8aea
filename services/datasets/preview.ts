/** A dataset's first rows with its registry record: what the review console shows of a dataset. */
import type { Doc, Store } from "../../store/store.ts";
import type { Config } from "../../config.ts";
import { NotFoundError } from "../../core/errors.ts";
import { type DatasetRecord, findDataset } from "./registry.ts";

export interface PreviewDeps {
  store: Store;
  config: Pick<Config, "TESSERA_DB">;
}

export interface DatasetPreview {
  /** The registry record: rows, columns with their inferred types, where the rows live. */
  dataset: DatasetRecord;
  /** The first `limit` rows in stored (import) order, without their store ids. */
  rows: Record<string, unknown>[];
}

/** The record and first rows of dataset `name`; a 404 when no dataset has that name. */
export async function previewDataset(
  deps: PreviewDeps,
  name: string,
  limit = 20,
): Promise<DatasetPreview> {
  const dataset = await findDataset(deps.store, deps.config.TESSERA_DB, name);
  if (!dataset) throw new NotFoundError(`no dataset named '${name}'`);
  const rows: Doc[] = [];
  const ref = { db: dataset.database, collection: dataset.collection };
  for await (const batch of deps.store.stream(ref, { batchSize: limit })) {
    rows.push(...batch);
    if (rows.length >= limit) break;
  }
  return { dataset, rows: rows.slice(0, limit).map(({ _id, ...rest }) => rest) };
}
