/**
 * The import journal: what makes an import crash-safe. An import holds its dataset's name by a head
 * document (`imports`, id = the dataset name, so one import per name at a time) leased like a cleaning
 * job: the importer renews the lease while it works, and a process that dies stops renewing. Before each
 * batch of rows is written, the ids it will write are logged (`import_chunks`, write-ahead, as runs of
 * consecutive ids, so a batch of 1,000 new rows costs one small document); a replacing import first logs
 * the ids of the rows it replaces.
 *
 * An import that dies is finished by whoever meets its expired lease first: the next import of the name,
 * the start of a Tessera instance (`recoverImports`, which waits out a lease still running) or an instance's
 * periodic sweep (`startImportRecovery`). While its head says `writing`, it is rolled back: every logged id
 * is deleted, a first import's reservation of the name is released, an existing dataset gets a new
 * generation (a run may have read the rows meanwhile). Once its head says `committing` (every row is in;
 * the registry record to write is in the head), it is completed instead: the replaced rows are deleted and
 * the record is written. Both are idempotent, so a recovery that dies is simply done again.
 */
import { type CollectionRef, type Doc, DuplicateIdError, type Store } from "../../store/store.ts";
import { ConflictError } from "../../core/errors.ts";
import { log } from "../../core/log.ts";
import { type DatasetRecord, findDataset, registryRef, releaseDataset } from "./registry.ts";

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
  /** writing: rows are going in (a dead import is rolled back); committing: all in (it is completed). */
  state: "writing" | "committing";
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
interface IdChunk extends Doc {
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
  action: "rolled back" | "completed";
  /** Rows deleted: the dead import's own (rolled back) or the ones it replaced (completed). */
  rows_deleted: number;
}

const OBJECT_ID = /^[0-9a-f]{24}$/;
/** Ids logged per chunk: well under the embedded store's 64 KiB even when none form a run. */
const CHUNK_IDS = 1000;
const iso = (ms: number) => new Date(ms).toISOString();

/** The process, readable in a head (like a job's lease owner). */
function processName(): string {
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

/**
 * The journal of one import (or of the recovery of one): holds the name's head, renews its lease on a
 * timer, logs ids before they are written. `lost` turns true once another process took the lease over
 * (this one stalled past it): the holder must stop writing.
 */
export class ImportJournal {
  lost = false;
  private timer: ReturnType<typeof setInterval> | null = null;
  private seq = { new: 0, old: 0 };

  private constructor(
    readonly store: Store,
    readonly tesseraDb: string,
    public head: ImportHead,
    readonly leaseMs: number,
  ) {}

  /**
   * Takes the name `target.collection` for an import: a head is inserted, or, when one exists and its lease
   * has expired, that dead import is recovered first. A live import of the name is a 409.
   */
  static async begin(
    store: Store,
    tesseraDb: string,
    target: CollectionRef,
    mode: ImportMode,
    leaseMs: number,
  ): Promise<ImportJournal> {
    const token = crypto.randomUUID();
    for (;;) {
      const now = Date.now();
      const head: ImportHead = {
        _id: target.collection,
        token,
        holder: token,
        owner: processName(),
        database: target.db,
        collection: target.collection,
        mode,
        state: "writing",
        started_at: iso(now),
        lease_expires_at: iso(now + leaseMs),
        record: null,
      };
      try {
        await store.insertMany(importsRef(tesseraDb), [head]);
        const journal = new ImportJournal(store, tesseraDb, head, leaseMs);
        journal.keepAlive();
        return journal;
      } catch (e) {
        if (!(e instanceof DuplicateIdError)) throw e;
      }
      const other = (await store.get(importsRef(tesseraDb), target.collection)) as ImportHead | null;
      if (!other) continue; // it finished meanwhile
      if (Date.parse(other.lease_expires_at) > Date.now()) {
        const rec = await findDataset(store, tesseraDb, target.collection);
        throw runningConflict(other, rec?.importing === true); // a reservation made under that head
      }
      const done = await recoverHead(store, tesseraDb, other, leaseMs);
      if (done) logRecovered(done);
    }
  }

  /** Renews the lease every third of it; a renewal refused means the lease was taken over. */
  private keepAlive(): void {
    this.timer = setInterval(() => this.renew().catch(() => {}), Math.max(20, this.leaseMs / 3));
  }

  /** Extends the lease while this journal holds it (false, and `lost`, once it does not). */
  async renew(set: Partial<ImportHead> = {}): Promise<boolean> {
    if (this.lost) return false;
    const next = { ...set, lease_expires_at: iso(Date.now() + this.leaseMs) };
    const ok = await this.store.compareAndSet(importsRef(this.tesseraDb), this.head._id, {
      holder: this.head.holder,
    }, next);
    if (!ok) this.lost = true;
    else this.head = ok as ImportHead;
    return !!ok;
  }

  /** Throws when the lease was lost: the import stalled so long that another process rolled it back. */
  checkHeld(): void {
    if (this.lost) {
      throw new ConflictError(
        `the import into '${this.head.collection}' stalled for longer than its lease ` +
          `(${this.leaseMs / 1000} s, IMPORT_LEASE_SECONDS) and was rolled back by another process`,
      );
    }
  }

  /**
   * Logs ids before they are written: `new` rows of this import, or `old` rows a replace deletes. The
   * lease is renewed first, so an importer that lost it writes no further batch.
   */
  async log(kind: "new" | "old", ids: readonly string[]): Promise<void> {
    if (!await this.renew()) this.checkHeld();
    for (let i = 0; i < ids.length; i += CHUNK_IDS) {
      const seq = this.seq[kind]++;
      const chunk: IdChunk = {
        _id: `${this.head.token}.${kind}.${seq}`,
        token: this.head.token,
        kind,
        seq,
        ids: encodeIds(ids.slice(i, i + CHUNK_IDS)),
      };
      await this.store.put(importChunksRef(this.tesseraDb), chunk);
    }
  }

  /**
   * Every row is in: from here the import is completed, never rolled back. The head takes the record to
   * write (a record too large for the store fails here, while the import can still be rolled back), and
   * the rows it will hold when the importer knows them (else they are counted then: on the embedded store,
   * a count reads every document).
   */
  async commit(record: DatasetRecord, rows?: number): Promise<void> {
    this.checkHeld();
    const known = rows === undefined ? {} : { rows };
    if (!await this.renew({ state: "committing", record, ...known })) this.checkHeld();
  }

  /** Stops renewing the lease (the import ended, or failed and leaves its rollback to a recovery). */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Removes the journal of an import that ended (committed, or rolled back here). */
  async remove(): Promise<void> {
    this.close();
    if (this.lost) return;
    await removeJournal(this.store, this.tesseraDb, this.head);
  }
}

/** The 409 for a name whose import is running (`first`: the dataset's first import). */
function runningConflict(head: ImportHead, first: boolean): ConflictError {
  const what = first ? "the first import" : `an import (mode ${head.mode})`;
  return new ConflictError(
    `${what} of '${head.collection}' into '${head.database}' is still running (since ${head.started_at}); ` +
      "try again when it has finished",
  );
}

/** The logged chunks of an import, of one kind, in order. */
async function chunksOf(
  store: Store,
  tesseraDb: string,
  token: string,
  kind: "new" | "old",
): Promise<IdChunk[]> {
  const chunks = (await store.list(importChunksRef(tesseraDb), { token, kind })) as IdChunk[];
  return chunks.sort((a, b) => a.seq - b.seq);
}

/** Deletes the rows a kind of chunk names; how many there were. */
async function deleteLogged(store: Store, tesseraDb: string, head: ImportHead, kind: "new" | "old") {
  let n = 0;
  const target = { db: head.database, collection: head.collection };
  for (const chunk of await chunksOf(store, tesseraDb, head.token, kind)) {
    n += await store.deleteMany(target, expandIds(chunk.ids));
  }
  return n;
}

/** Deletes an import's chunks, then its head. */
async function removeJournal(store: Store, tesseraDb: string, head: ImportHead): Promise<void> {
  const chunks = await store.list(importChunksRef(tesseraDb), { token: head.token });
  await store.deleteMany(importChunksRef(tesseraDb), chunks.map((c) => c._id));
  await store.delete(importsRef(tesseraDb), head._id);
}

/**
 * Rolls back what a `writing` import wrote: its logged rows, its reservation of a new name (a registry
 * record still `importing`: only an import holding the name's head makes one, and the head is ours now), or,
 * for an existing dataset, a new generation. How many rows went.
 */
export async function rollBack(store: Store, tesseraDb: string, head: ImportHead): Promise<number> {
  const removed = await deleteLogged(store, tesseraDb, head, "new");
  const rec = await findDataset(store, tesseraDb, head.collection);
  if (rec?.importing) await releaseDataset(store, tesseraDb, rec._id);
  else if (rec && rec.database === head.database) {
    await store.patch(registryRef(tesseraDb), rec._id, { generation: crypto.randomUUID() });
  }
  return removed;
}

/**
 * Completes a `committing` import: deletes the rows it replaces, counts the rows (unless the head says
 * them) and writes its registry record with a new generation. The record written, and how many replaced
 * rows went.
 */
export async function rollForward(
  store: Store,
  tesseraDb: string,
  head: ImportHead,
): Promise<{ record: DatasetRecord; deleted: number }> {
  const deleted = await deleteLogged(store, tesseraDb, head, "old");
  const rows = head.rows ?? await store.count({ db: head.database, collection: head.collection });
  const r = head.record!;
  const record: DatasetRecord = {
    ...r,
    rows,
    distributions: r.distributions.map((d) => ({ ...d, rows })),
    generation: crypto.randomUUID(),
  };
  await store.put(registryRef(tesseraDb), record);
  return { record, deleted };
}

/**
 * Recovers one dead import whose head was read as `head` (lease expired): takes its lease over (null when
 * someone else did, or it moved on meanwhile), rolls it back or completes it, removes its journal.
 */
export async function recoverHead(
  store: Store,
  tesseraDb: string,
  head: ImportHead,
  leaseMs: number,
): Promise<Recovered | null> {
  const me = `recovery:${processName()}:${crypto.randomUUID().slice(0, 8)}`;
  const taken = (await store.compareAndSet(importsRef(tesseraDb), head._id, {
    holder: head.holder,
    lease_expires_at: head.lease_expires_at,
  }, { holder: me, lease_expires_at: iso(Date.now() + leaseMs) })) as ImportHead | null;
  if (!taken) return null;
  // the recovery renews the lease too: deleting a million rows takes a while
  const renew = setInterval(() => {
    store.compareAndSet(importsRef(tesseraDb), head._id, { holder: me }, {
      lease_expires_at: iso(Date.now() + leaseMs),
    }).catch(() => {});
  }, Math.max(20, leaseMs / 3));
  try {
    let rows: number;
    if (taken.state === "committing") rows = (await rollForward(store, tesseraDb, taken)).deleted;
    else rows = await rollBack(store, tesseraDb, taken);
    await removeJournal(store, tesseraDb, taken);
    return {
      dataset: taken.collection,
      database: taken.database,
      mode: taken.mode,
      owner: taken.owner,
      started_at: taken.started_at,
      action: taken.state === "committing" ? "completed" : "rolled back",
      rows_deleted: rows,
    };
  } finally {
    clearInterval(renew);
  }
}

function logRecovered(r: Recovered): void {
  log("warn", `an unfinished import was ${r.action}`, { ...r });
}

export interface RecoverOptions {
  leaseMs: number;
  /**
   * Wait out the leases still running (start-up: the process that held one may have died a moment ago)
   * and recover those not renewed meanwhile; false: recover only the expired ones.
   */
  wait?: boolean;
}

/** Recovers every dead import of the store; what was done. */
export async function recoverImports(
  store: Store,
  tesseraDb: string,
  opts: RecoverOptions,
): Promise<Recovered[]> {
  const heads = (await store.list(importsRef(tesseraDb))) as ImportHead[];
  const done = await Promise.all(heads.map(async (seen) => {
    let head: ImportHead | null = seen;
    const left = Date.parse(seen.lease_expires_at) - Date.now();
    if (left > 0) {
      if (!opts.wait) return null;
      await new Promise((r) => setTimeout(r, left + 20));
      head = (await store.get(importsRef(tesseraDb), seen._id)) as ImportHead | null;
      // gone (it ended) or renewed (alive, elsewhere): not ours to touch
      if (!head || head.holder !== seen.holder || head.lease_expires_at !== seen.lease_expires_at) {
        return null;
      }
    }
    return await recoverHead(store, tesseraDb, head, opts.leaseMs);
  }));
  const recovered = done.filter((r): r is Recovered => r !== null);
  recovered.forEach(logRecovered);
  return recovered;
}

/**
 * What a service does: recover at start (waiting out running leases, so a restart after a crash never
 * serves a dead import's rows), then sweep every lease for imports of instances that died. `stop` ends it.
 */
export async function startImportRecovery(
  store: Store,
  tesseraDb: string,
  leaseMs: number,
): Promise<{ stop(): void }> {
  await recoverImports(store, tesseraDb, { leaseMs, wait: true });
  const timer = setInterval(() => {
    recoverImports(store, tesseraDb, { leaseMs }).catch((e) => {
      log("warn", "import recovery: cannot sweep", { error: String(e) });
    });
  }, leaseMs);
  return { stop: () => clearInterval(timer) };
}
