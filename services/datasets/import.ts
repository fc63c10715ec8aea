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

import { emptyBatch, type Failed, loggable, type Pending, WrittenIds } from "./import_batches.ts";
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

/**
 * Batches being written at once, while the next is read and parsed. Two, but their rows go into the
 * store one batch after the other: a batch logs its ids in the journal (a renewal of the lease and a
 * chunk: three round trips to the store) while the one before is inserted, and inserts its rows once
 * that one has ended. With one, those round trips came between every two batches' rows (slower:
 * bench/import_bench.ts). The rows never overlap: the embedded store
 * extends its pack (store/kv_pack.ts) only while no other write to the collection lands between a
 * batch's commits, and two inserts at once left the collection unpacked (the first audit after read
 * documents, not pages, several times slower; tests/services/datasets/import_pack_test.ts).
 * A turn of the event loop is taken before each batch (in the loop below): a body already buffered is
 * otherwise read and parsed in one stretch.
 */
const WRITES_IN_FLIGHT = 2;

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
  const journal = await ImportJournal.begin(
    store,
    tesseraDb,
    target,
    mode,
    opts.leaseMs ?? DEFAULT_IMPORT_LEASE_MS,
  );
  let claim: Claim;
  try {
    claim = await claimName(store, tesseraDb, target, mode);
  } catch (e) {
    await journal.remove();
    throw e;
  }
  const { existing, reserved, occupied } = claim;
  const inserted = new WrittenIds();
  let oldIds: string[] = [];
  let pending = emptyBatch();
  /** The batches the store failed on (some of their rows may be in), with their failures, for the undo. */
  const failed: Failed[] = [];
  /** The batches being written while the next one is read, oldest first (WRITES_IN_FLIGHT at most). */
  const writing: Promise<boolean>[] = [];
  const batchSize = opts.batchSize ?? 1000;
  const profile = new FieldProfiler(mode === "replace" ? [] : existing?.columns);
  /** Whether the batch started last wrote its rows, once it ended (true before the first). */
  let rowsBefore: Promise<boolean> = Promise.resolve(true);
  /**
   * Writes a batch: write-ahead, its ids go into the journal before its rows into the store, and its
   * rows after those of the batch before (see WRITES_IN_FLIGHT). After a batch that failed, it writes
   * none: that failure is the import's (settle), and the undo deletes what was written.
   */
  const write = (batch: Pending) => {
    const before = rowsBefore;
    const written = (async () => {
      batch.logged = await loggable(store, target, batch, occupied);
      await journal.log("new", batch.logged);
      if (!await before) return false;
      try {
        await store.insertMany(target, batch.docs, { fresh: batch.fresh });
      } catch (error) {
        failed.push({ batch, error });
        throw error;
      }
      inserted.add(batch.docs.map((d) => d._id));
      return true;
    })();
    rowsBefore = written.catch(() => false);
    return written;
  };
  /** Waits until at most `left` batches are being written; the oldest one's failure is thrown. */
  const settle = async (left: number) => {
    while (writing.length > left) {
      await writing[0]; // a failure stays in `writing`, for the undo to wait for the others
      writing.shift();
    }
  };
  /**
   * Starts writing a batch, once fewer than WRITES_IN_FLIGHT are being written: the store commits it
   * while the next one is read and parsed. A batch of records bringing their own ids waits for every
   * earlier one, so a repeated id is refused at its second row, as when the batches are written one by one.
   */
  const start = async (batch: Pending) => {
    await settle(batch.fresh.size === batch.docs.length ? WRITES_IN_FLIGHT - 1 : 0);
    const w = write(batch);
    w.catch(() => {}); // its failure is taken by settle(), not left unhandled meanwhile
    writing.push(w);
  };
  try {
    if (mode === "replace") {
      oldIds = await allIds(store, target);
      await journal.log("old", oldIds);
    }
    let n = 0;
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
        // a body already buffered is read and parsed without a wait: a turn lets other requests in
        await nextTurn();
        await start(pending);
        pending = emptyBatch();
      }
    }
    if (pending.docs.length) await start(pending);
    await settle(0);
    // An empty upload would register a dataset without rows or columns (or, replacing, wipe one).
    if (!inserted.length) throw new BadRequestError("the upload holds no rows; nothing was imported");
    const columns = profile.result().map(({ name, type }) => ({ name, type }));
    if (opts.targetColumn !== undefined && !columns.some((c) => c.name === opts.targetColumn)) {
      const names = columns.map((c) => c.name).join(", ");
      throw new UnknownNameError(
        `target '${opts.targetColumn}' is not a column of the imported rows (${names})`,
        opts.targetLoc ?? ["target"],
      );
    }
    // the rows once completed, when known without counting them: the collection held none but the
    // replaced ones (no other import writes it meanwhile)
    const rows = !occupied || mode === "replace" ? inserted.length : undefined;
    // from here the import is completed, by another process if this one dies; it is logged with it
    const record = datasetRecord(target, 0, columns, reserved ? null : existing, opts.targetColumn);
    const entry = importEntry({
      target,
      mode,
      who: opts.who ?? INTERNAL_DECIDER,
      imported: inserted.length,
      replaced: oldIds.length,
      record,
      source: opts.source?.() ?? {},
    });
    await journal.commit(record, rows, entry);
  } catch (e) {
    // batches still being written: their rows are undone too, and the first of their failures (their
    // rows precede any read since) is the import's
    const outcomes = await Promise.allSettled(writing.splice(0));
    const first = outcomes.find((o) => o.status === "rejected");
    const cause = first ? first.reason : e;
    throw await abandon(store, tesseraDb, target, journal, reserved, inserted, failed, cause, mode);
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
    inserted: inserted.length,
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

/** The ids of every document of a collection. */
async function allIds(store: Store, ref: CollectionRef): Promise<string[]> {
  const ids: string[] = [];
  for await (const batch of store.stream(ref, { projection: [] })) ids.push(...batch.map((d) => d._id));
  return ids;
}
