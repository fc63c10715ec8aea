/**
 * Streams records into a collection in batches, the store writing one while the next is read and parsed
 * (the rows so far are never held, only their ids, as runs). All or nothing: when a record or the store
 * fails midway, the documents this import inserted are deleted again before the error goes on. The importer
 * gives each record without an `_id` one of its own before writing it, so it knows every id to undo
 * whatever the store managed before failing; records that bring an `_id` are never written over.
 *
 * Crash-safe: the import holds its dataset's name through a leased journal (import_journal.ts) that logs
 * every id before it is written, so an import whose process dies is rolled back (or, once all its rows
 * are in, completed) by the next import of the name or the next start of Tessera. One import per dataset
 * name runs at a time; another is a 409 until it ends.
 */
import { nextTurn } from "../../core/turns.ts";
import { type CollectionRef, type Doc, type Store } from "../../store/store.ts";
import { type ColumnInfo, type DatasetRecord, datasetRecord } from "./registry.ts";
import { type ImportMode } from "./import_log.ts";
import { ImportJournal } from "./import_journal.ts";
import { rollForward } from "./import_recovery.ts";
import { newId } from "../../store/ids.ts";
import { BadRequestError, UnknownNameError } from "../../core/errors.ts";
import { FieldProfiler } from "../../core/ingest/field_profile.ts";
import { checkImportTarget } from "../../core/ingest/import_target.ts";
import {
  type CsvDelimiter,
  type Position,
  readRecords,
  type UploadFormat,
} from "../../core/ingest/records.ts";
import type { Config } from "../../config.ts";

import { BatchWriter, emptyBatch } from "./import_batches.ts";
import { type Claim, claimName } from "./import_claim.ts";
import { abandon } from "./import_undo.ts";
import type { Decider } from "../decisions/entry.ts";
import { importEntry, type ImportSource, INTERNAL_DECIDER } from "./dataset_decisions.ts";

export type { ImportMode } from "./import_log.ts";

export interface ImportResult {
  /** What the import did: created a dataset, replaced its rows, or appended to them. */
  mode: ImportMode;
  inserted: number;
  replaced: number;
  database: string;
  collection: string;
  dataset_id: string;
  rows: number;
  columns: ColumnInfo[];
  /** The field delimiter a CSV upload was read with (given, or detected); null for JSON formats. */
  delimiter: string | null;
  /** The dataset's recorded target column (registry.ts: the `target` option, kept, or the last column). */
  target: string | null;
}

/** The import's lease when the configuration names none (IMPORT_LEASE_SECONDS). */
export const DEFAULT_IMPORT_LEASE_MS = 15_000;

export interface ImportOptions {
  /** create (a new dataset only), replace (the old rows go once the new ones are all in) or append. */
  mode?: ImportMode;
  /** The older spelling: true is mode `replace`, false `append` (the default); `mode` wins when both are given. */
  replace?: boolean;
  batchSize?: number;
  /** The reader's position (`readRecords`), so a refused document is named by its line. */
  position?: Position;
  /** How long the import's hold on the name lasts without renewal (a crashed import is recovered after). */
  leaseMs?: number;
  /** The dataset's target column, recorded with it; must be a column of the dataset after the import. */
  targetColumn?: string;
  /** Where the caller named the target column (the loc of a refusal). */
  targetLoc?: (string | number)[];
  /** Who decided the import, for its log entry (default: `tessera:internal`, code calling directly). */
  who?: Decider;
  /** Where the rows came from, for the log entry; read when the import commits (a delimiter detected). */
  source?: () => ImportSource;
}

/** What importing text needs: the store, and the configuration naming Tessera's own database. */
export interface ImportDeps {
  store: Store;
  config: Pick<Config, "TESSERA_DB"> & Partial<Pick<Config, "IMPORT_LEASE_SECONDS">>;
}

/** An upload as text (a request body, a file), its target's names checked by the caller in its own terms. */
export interface TextImport {
  target: CollectionRef;
  format: UploadFormat;
  text: AsyncIterable<string>;
  /** What to do with a dataset of that name (default: append, or replace when `replace` says so). */
  mode?: ImportMode;
  /** The older spelling of mode replace (true) or append (false). */
  replace?: boolean;
  /** CSV: the field delimiter; absent: detected from the first lines (`,` `;` tab `|`). */
  delimiter?: CsvDelimiter;
  /** The dataset's target column (absent: kept, or the last column); where the caller named it. */
  targetColumn?: string;
  targetLoc?: (string | number)[];
  /** Who decided the import (the request's user, the console's, the command line's), for the log. */
  who: Decider;
  /** The way in (`api`, `console`, `cli`) and the file's name when known, for the log entry's facts. */
  source?: { via: string; file?: string };
}

/** The mode an import runs in, from `mode` or the older `replace` flag. */
export function importMode(mode: ImportMode | undefined, replace: boolean | undefined): ImportMode {
  return mode ?? (replace ? "replace" : "append");
}

/** Parses an upload and imports it all or nothing; one use case for the HTTP route and `deno task import`. */
export async function importText(deps: ImportDeps, input: TextImport): Promise<ImportResult> {
  const position: Position = { where: "" };
  const read = { delimiter: input.delimiter ?? null };
  const records = readRecords(input.format, input.text, position, read);
  const result = await importRecords(deps.store, deps.config.TESSERA_DB, input.target, records, {
    mode: importMode(input.mode, input.replace),
    position,
    leaseMs: deps.config.IMPORT_LEASE_SECONDS ? deps.config.IMPORT_LEASE_SECONDS * 1000 : undefined,
    targetColumn: input.targetColumn,
    targetLoc: input.targetLoc,
    who: input.who,
    source: () => ({
      ...input.source,
      format: input.format,
      delimiter: input.format === "csv" || input.format === "tsv" ? read.delimiter : undefined,
    }),
  });
  return { ...result, delimiter: input.format === "csv" || input.format === "tsv" ? read.delimiter : null };
}

/** Imports `records` into `target`, keeps the registry in step, and undoes itself on failure. */
export async function importRecords(
  store: Store,
  tesseraDb: string,
  target: CollectionRef,
  records: AsyncIterable<Record<string, unknown>>,
  opts: ImportOptions = {},
): Promise<ImportResult> {
  // the callers check the names in their own terms first; this is the safety net for any other caller
  checkImportTarget(target, tesseraDb, { db: ["target", "db"], collection: ["target", "collection"] });
  const mode = importMode(opts.mode, opts.replace);
  const leaseMs = opts.leaseMs ?? DEFAULT_IMPORT_LEASE_MS;
  const journal = await ImportJournal.begin(store, tesseraDb, target, mode, leaseMs);
  let claim: Claim;
  try {
    claim = await claimName(store, tesseraDb, target, mode);
  } catch (e) {
    await journal.remove();
    throw e;
  }
  const writer = new BatchWriter(store, target, journal, claim.occupied);
  let oldIds: string[] = [];
  try {
    if (mode === "replace") {
      oldIds = await allIds(store, target);
      await journal.log("old", oldIds);
    }
    const columns = await writeAll(records, writer, mode, claim, opts);
    await commitImport(journal, target, mode, claim, columns, writer.inserted.length, oldIds.length, opts);
  } catch (e) {
    const cause = await writer.failure(e);
    const { reserved } = claim;
    throw await abandon(
      store,
      tesseraDb,
      target,
      journal,
      reserved,
      writer.inserted,
      writer.failed,
      cause,
      mode,
    );
  }
  let record: DatasetRecord;
  try {
    record = (await rollForward(store, tesseraDb, journal.head)).record;
  } catch (e) {
    journal.close(); // its lease runs out and a recovery completes the import
    throw e;
  }
  await journal.remove().catch(() => {}); // left behind, a recovery completes it once more: no harm
  return {
    mode,
    inserted: writer.inserted.length,
    replaced: oldIds.length,
    database: target.db,
    collection: target.collection,
    dataset_id: target.collection,
    rows: record.rows,
    columns: record.columns,
    delimiter: null,
    target: record.target_column ?? null,
  };
}

/**
 * Reads `records` into batches of `opts.batchSize` (1,000) and writes them all, each record without an
 * `_id` given one made here; the columns the rows have (with the existing ones unless replacing).
 * A turn of the event loop is taken before each batch: a body already buffered is otherwise read and
 * parsed in one stretch.
 */
async function writeAll(
  records: AsyncIterable<Record<string, unknown>>,
  writer: BatchWriter,
  mode: ImportMode,
  { existing }: Claim,
  opts: ImportOptions,
): Promise<ColumnInfo[]> {
  const batchSize = opts.batchSize ?? 1000;
  const profile = new FieldProfiler(mode === "replace" ? [] : existing?.columns);
  let pending = emptyBatch(), n = 0;
  for await (const rec of records) {
    profile.add(rec);
    n++;
    pending.places.push(opts.position?.where || `record ${n}`);
    if (typeof rec._id === "string") pending.docs.push(rec as Doc);
    else {
      const _id = newId();
      pending.fresh.add(_id);
      pending.docs.push({ ...rec, _id });
    }
    if (pending.docs.length >= batchSize) {
      await nextTurn();
      await writer.start(pending);
      pending = emptyBatch();
    }
  }
  if (pending.docs.length) await writer.start(pending);
  await writer.settle(0);
  return profile.result().map(({ name, type }) => ({ name, type }));
}

/**
 * Every row in: the journal moves to committing with the registry record and the log entry, so that from
 * here the import is completed, by another process if this one dies. An empty upload would register a
 * dataset without rows or columns (or, replacing, wipe one), and a target column must be one of the rows'.
 */
async function commitImport(
  journal: ImportJournal,
  target: CollectionRef,
  mode: ImportMode,
  { existing, reserved, occupied }: Claim,
  columns: ColumnInfo[],
  inserted: number,
  replaced: number,
  opts: ImportOptions,
): Promise<void> {
  if (!inserted) throw new BadRequestError("the upload holds no rows; nothing was imported");
  if (opts.targetColumn !== undefined && !columns.some((c) => c.name === opts.targetColumn)) {
    const names = columns.map((c) => c.name).join(", ");
    throw new UnknownNameError(
      `target '${opts.targetColumn}' is not a column of the imported rows (${names})`,
      opts.targetLoc ?? ["target"],
    );
  }
  // the rows once completed, when known without counting them: the collection held none but the
  // replaced ones (no other import writes it meanwhile)
  const rows = !occupied || mode === "replace" ? inserted : undefined;
  const record = datasetRecord(target, 0, columns, reserved ? null : existing, opts.targetColumn);
  const who = opts.who ?? INTERNAL_DECIDER, source = opts.source?.() ?? {};
  const entry = importEntry({ target, mode, who, imported: inserted, replaced, record, source });
  await journal.commit(record, rows, entry);
}

/** The ids of every document of a collection. */
async function allIds(store: Store, ref: CollectionRef): Promise<string[]> {
  const ids: string[] = [];
  for await (const batch of store.stream(ref, { projection: [] })) ids.push(...batch.map((d) => d._id));
  return ids;
}
