/**
 * `?keep=true` of a toolkit request: its individuals become a dataset (imported as any upload is, so it
 * exports, deletes and writes back like one) with a task document naming it, so a reviewer continues in
 * the console: the run is that task's, its write-back, report and undo those of any run.
 */
import type { Individuals } from "../../core/spatial/types.ts";
import type { SetFacts } from "../../core/spatial/toolkit_individuals.ts";
import { packIds } from "../../core/spatial/doc_ids.ts";
import { newId } from "../../store/ids.ts";
import { checkImportTarget } from "../../core/ingest/import_target.ts";
import type { Store } from "../../store/store.ts";
import type { Config } from "../../config.ts";
import type { Decider } from "../decisions/entry.ts";
import { importRecords } from "../datasets/import.ts";
import { datasetVersion } from "../datasets/registry.ts";
import { assertTasksEnabled, createTaskDocument } from "../tasks/task_documents.ts";
import type { RunSource } from "../spatial/run_documents.ts";
import type { ToolkitKind } from "./read_body.ts";

/** Where a kept request's individuals went, and their document ids in the request's order. */
export interface KeptIndividuals {
  /** The dataset's (and its task's) name. */
  name: string;
  source: RunSource;
  ind: Individuals;
}

/** Rows an import batch holds: each made from the columns as the import asks for it. */
const BATCH = 1000;

/** A new dataset name: the route, the time and a random tail (`toolkit_audit_20261129T113000_k3x9q2`). */
export function keptName(kind: ToolkitKind, now = new Date()): string {
  const stamp = now.toISOString().slice(0, 19).replace(/[-:]/g, "");
  return `toolkit_${kind}_${stamp}_${crypto.randomUUID().slice(0, 6)}`;
}

/**
 * Imports `ind` (the sets `sets` one after another) into `db` as a new dataset with a task document, and
 * gives them back with the stored documents' ids. A row is an individual as the request sent it, with its
 * `idx` in its set (and the set's name, where a request has two).
 */
export async function keepIndividuals(
  deps: { store: Store; config: Config },
  input: { ind: Individuals; sets: SetFacts[]; kind: ToolkitKind; db: string; who: Decider },
): Promise<KeptIndividuals> {
  assertTasksEnabled(deps.config); // the task document is what the console continues from
  const { ind, sets } = input, name = keptName(input.kind);
  const ids = Array.from({ length: ind.n }, () => newId());
  const ref = { db: input.db, collection: name };
  checkImportTarget(ref, deps.config.TESSERA_DB, { db: ["query", "database_name"], collection: ["query"] });
  await importRecords(deps.store, deps.config.TESSERA_DB, ref, rows(ind, sets, ids), {
    mode: "create",
    who: input.who,
    source: () => ({ via: `toolkit ${input.kind}` }),
  });
  await createTaskDocument(deps, {
    pipeline_name: "spatial-fairness-toolkit",
    database_name: input.db,
    data_collection_name: name,
    status: "pending",
    component: `spatial-bias ${input.kind}`,
  });
  const { generation } = await datasetVersion(deps.store, deps.config.TESSERA_DB, ref);
  return { name, source: { ...ref, generation }, ind: { ...ind, docIds: packIds(ids) } };
}

/** The rows of `ind`, made a batch at a time as the import reads them. */
async function* rows(
  ind: Individuals,
  sets: SetFacts[],
  ids: string[],
): AsyncGenerator<Record<string, unknown>> {
  const { yPred, yTrue, lat, lon, prob, regionIds } = ind;
  for (const set of sets) {
    for (let j = 0; j < set.n; j++) {
      const i = set.offset + j;
      const row: Record<string, unknown> = { _id: ids[i], idx: j };
      if (sets.length > 1) row.set = set.field;
      row.y_pred = yPred[i];
      if (yTrue) row.y_true = yTrue[i];
      if (lat && lon) (row.lat = lat[i], row.lon = lon[i]);
      if (regionIds) {
        row.region_ids = Array.from(regionIds.ids.subarray(regionIds.start[i], regionIds.start[i + 1]));
      }
      if (prob) row.y_pred_prob = prob[i];
      yield row;
      if (j % BATCH === BATCH - 1) await Promise.resolve();
    }
  }
}
