/**
 * The decision log's entries of a dataset (services/decisions): an import (`dataset_import`, modes create
 * and append), a replacing import (`dataset_replace`) and a delete (`dataset_delete`). Each is queued in
 * the name's import journal head by the compare-and-set that makes the decision final (the move to
 * `committing`, or to `deleting`), so it is logged exactly when the decision is kept (docs/reliability.md).
 */
import type { CollectionRef } from "../../store/store.ts";
import { type Decider, type DecisionEntry, newEntry } from "../decisions/entry.ts";
import type { ImportMode } from "./import_log.ts";
import type { DatasetRecord } from "./registry.ts";

/** Who imports when a caller names no one (a test, a benchmark: code calling the service directly). */
export const INTERNAL_DECIDER: Decider = { sub: "tessera:internal", username: null };
/** Who imports the demo datasets (services/demo/seed.ts). */
export const SEED_DECIDER: Decider = { sub: "tessera:seed", username: null };

/** Who runs `deno task import`: the operating system's user, as `cli:<user>`. */
export function cliDecider(user: string | undefined): Decider {
  const name = user?.trim() || "unknown";
  return { sub: `cli:${name}`, username: name };
}

/**
 * Where an import's rows came from, for its entry's facts: the way in (`api`, `console`, `cli`, `seed`),
 * the file's name when there is one, the format and the CSV delimiter read.
 */
export interface ImportSource {
  via?: string;
  file?: string;
  format?: string;
  delimiter?: string | null;
}

/** What an import did, as its entry counts and describes it. */
export interface ImportDecision {
  target: CollectionRef;
  mode: ImportMode;
  who: Decider;
  /** Rows the import wrote, and (replace) the rows it replaced. */
  imported: number;
  replaced: number;
  /** The registry record it writes: its columns and target column. */
  record: DatasetRecord;
  source: ImportSource;
}

/** The entry of an import about to commit: `dataset_replace` for mode replace, else `dataset_import`. */
export function importEntry(d: ImportDecision): DecisionEntry {
  const replace = d.mode === "replace";
  const source = Object.fromEntries(Object.entries(d.source).filter(([, v]) => v !== undefined));
  return newEntry(replace ? "dataset_replace" : "dataset_import", d.who, {
    dataset: d.target.collection,
    database: d.target.db,
    counts: replace ? { imported: d.imported, replaced: d.replaced } : { imported: d.imported },
    facts: {
      mode: d.mode,
      ...source,
      columns: d.record.columns.map((c) => c.name),
      target: d.record.target_column ?? null,
    },
  });
}

/** The entry of a delete about to drop the collection: how many documents it held, whether registered. */
export function deleteEntry(
  target: CollectionRef,
  who: Decider,
  documents: number,
  registered: boolean,
  record: DatasetRecord | null,
): DecisionEntry {
  return newEntry("dataset_delete", who, {
    dataset: target.collection,
    database: target.db,
    counts: { deleted: documents },
    facts: {
      registered,
      ...(record && { columns: record.columns.map((c) => c.name), rows: record.rows }),
    },
  });
}
