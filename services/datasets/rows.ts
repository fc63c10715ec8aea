/** The rows of a stored dataset that one annotation run reads, chosen by a `Selection`, at most ROW_CAP. */
import { type CollectionRef, type Doc, project, type Store } from "../../store/store.ts";
import { Reservoir, type Selection } from "../../core/annotate/sample.ts";
import { NotFoundError } from "../../core/errors.ts";

/**
 * Most rows one run annotates: without a named sample the first ROW_CAP rows in stored order (the run
 * says when it stopped there); `random:N` draws from every row.
 */
export const ROW_CAP = 100_000;

export interface LoadedRows {
  rows: Doc[];
  /** True when the dataset had more rows than the run read without a named sample. */
  truncated: boolean;
}

/** Reads the selected rows of a collection, keeping only `projection` fields when given. */
export async function loadRows(
  store: Store,
  ref: CollectionRef,
  selection: Selection,
  projection?: string[],
): Promise<LoadedRows> {
  if (selection.kind === "record") {
    const doc = await store.get(ref, selection.id);
    if (!doc) throw new NotFoundError(`no record '${selection.id}' in dataset '${ref.collection}'`);
    return { rows: [project(doc, projection)], truncated: false };
  }
  const batches = store.stream(ref, { projection, batchSize: 1000 });
  if (selection.kind === "random") {
    const sample = new Reservoir<Doc>(selection.n, selection.seed);
    for await (const batch of batches) for (const doc of batch) sample.offer(doc);
    return { rows: sample.items(), truncated: false };
  }
  const limit = selection.kind === "head" ? selection.n : ROW_CAP;
  const rows: Doc[] = [];
  for await (const batch of batches) {
    rows.push(...batch);
    if (rows.length > limit) break;
  }
  return { rows: rows.slice(0, limit), truncated: selection.kind === "all" && rows.length > limit };
}
