/**
 * The import journal as the store keeps it (import_journal.ts holds it, import_recovery.ts finishes a dead
 * one): a head document per dataset name being imported (`imports`) and the ids logged before each batch is
 * written (`import_chunks`), as runs of consecutive ids.
 */
import { type CollectionRef, type Doc } from "../../store/store.ts";
import { type DatasetRecord } from "./registry.ts";

/** create: a new dataset (refuses a name that exists); replace: new rows for old; append: rows added. */
export type ImportMode = "create" | "replace" | "append";
export const IMPORT_MODES: readonly ImportMode[] = ["create", "replace", "append"];

/** Where the heads and the logged ids live (Tessera's own database). */
export const importsRef = (tesseraDb: string): CollectionRef => ({ db: tesseraDb, collection: "imports" });
export const importChunksRef = (tesseraDb: string): CollectionRef => ({
  db: tesseraDb,
  collection: "import_chunks",
});

/** The head of a running import: who holds its name, until when, and how far it got. */
export interface ImportHead extends Doc {
  /** This import attempt (its chunks carry it). */
  token: string;
  /** Who holds the lease now: the importer (its token) or a recovery. */
  holder: string;
  /** The importing process, for people reading the record (host:pid). */
  owner: string;
  database: string;
  collection: string;
  mode: ImportMode;
  /**
   * writing: rows are going in (a dead import is rolled back); committing: all in (it is completed);
   * deleting: a delete of the dataset was decided (a dead one is finished: collection and record dropped).
   * The move to committing or deleting queues the decision's log entry in the head (decision_outbox).
   */
  state: "writing" | "committing" | "deleting";
  started_at: string;
  lease_expires_at: string;
  /** At `committing`: the registry record to write (its `rows` are counted when it is written). */
  record: DatasetRecord | null;
  /**
   * At `committing`: the rows the dataset holds once completed, when the importer knows them without
   * counting (the collection held none at the start but the replaced ones); absent: they are counted.
   */
  rows?: number;
}

/** One logged batch of ids: `new` (rows this import writes) or `old` (rows a replace deletes at the end). */
export interface IdChunk extends Doc {
  token: string;
  kind: "new" | "old";
  seq: number;
  /** The ids, in runs (`encodeIds`). */
  ids: EncodedIds;
}

/**
 * Ids as few strings: `runs` holds `<first>*<n>`, n ObjectId-style ids counting up from `first` (what a
 * batch of ids made by store/ids.ts is), `single` any other id as it is. (Plain strings: FerretDB stores
 * no nested arrays.)
 */
export interface EncodedIds {
  runs: string[];
  single: string[];
}

/** What a recovery did to a dead import. */
export interface Recovered {
  dataset: string;
  database: string;
  mode: ImportMode;
  owner: string;
  started_at: string;
  action: "rolled back" | "completed" | "deleted";
  /** Rows deleted: the dead import's own (rolled back), the ones it replaced (completed), or the dataset's. */
  rows_deleted: number;
}

const OBJECT_ID = /^[0-9a-f]{24}$/;
export const iso = (ms: number) => new Date(ms).toISOString();

/** The process, readable in a head (like a job's lease owner). */
export function processName(): string {
  try {
    return `${Deno.hostname()}:${Deno.pid}`;
  } catch {
    return "unknown"; // no --allow-sys, or a host (Deno Deploy) without them
  }
}

/** Ids as runs: consecutive ObjectId-style ids (same second and process part, counter + 1) share an entry. */
export function encodeIds(ids: readonly string[]): EncodedIds {
  const out: EncodedIds = { runs: [], single: [] };
  let first = "", n = 0, prefix = "", counter = -2;
  const close = () => n && out.runs.push(`${first}*${n}`);
  for (const id of ids) {
    if (!OBJECT_ID.test(id)) {
      out.single.push(id);
      continue;
    }
    const p = id.slice(0, 18), c = parseInt(id.slice(18), 16);
    if (n && p === prefix && c === counter + 1) {
      n++;
      counter = c;
      continue;
    }
    close();
    [first, n, prefix, counter] = [id, 1, p, c];
  }
  close();
  return out;
}

/** The ids an `encodeIds` value stands for (the runs' first, then the single ones). */
export function expandIds(encoded: EncodedIds): string[] {
  const out: string[] = [];
  for (const run of encoded.runs) {
    const [first, count] = run.split("*");
    const prefix = first.slice(0, 18), c = parseInt(first.slice(18), 16);
    for (let i = 0; i < Number(count); i++) out.push(prefix + (c + i).toString(16).padStart(6, "0"));
  }
  out.push(...encoded.single);
  return out;
}
