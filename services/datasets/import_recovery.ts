/**
 * Finishing a dead import (import_journal.ts), by whoever meets its expired lease first: rolled back while
 * its head says `writing` (every logged id deleted, a first import's reservation of the name released, an
 * existing dataset given a new generation), completed once it says `committing` (the replaced rows deleted,
 * the registry record written). A dead delete whose head says `deleting` is finished (the collection and
 * its record dropped). All are idempotent, so a recovery that dies is simply done again. A head that says
 * `committing` or `deleting` carries its decision's log entry: it is drained into the log before the head
 * goes, so a kept decision is always logged, once.
 */
import { type Store } from "../../store/store.ts";
import { log } from "../../core/log.ts";
import { drainOne } from "../decisions/outbox.ts";
import { type DatasetRecord, findDataset, registryRef, releaseDataset } from "./registry.ts";
import {
  expandIds,
  type IdChunk,
  importChunksRef,
  type ImportHead,
  importsRef,
  iso,
  processName,
  type Recovered,
} from "./import_log.ts";

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

/**
 * Deletes an import's chunks, then its head; a head past `writing` first has its decision's entry drained
 * into the log (a failure here keeps the head, and a recovery drains it later).
 */
export async function removeJournal(store: Store, tesseraDb: string, head: ImportHead): Promise<void> {
  if (head.state !== "writing") await drainOne(store, tesseraDb, importsRef(tesseraDb), head._id);
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
 * Finishes a decided delete (head `deleting`): drops the collection, then the registry record when it is
 * this database's (the head holds the name: nothing else writes the record meanwhile). How many documents
 * went.
 */
export async function finishDelete(store: Store, tesseraDb: string, head: ImportHead): Promise<number> {
  const target = { db: head.database, collection: head.collection };
  const documents = await store.count(target);
  await store.dropCollection(target);
  const rec = await findDataset(store, tesseraDb, head.collection);
  if (rec && rec.database === head.database) await store.delete(registryRef(tesseraDb), rec._id);
  return documents;
}

/** What a recovery does for a head's state: complete, finish the delete, or roll back; rows deleted. */
async function finishHead(store: Store, tesseraDb: string, head: ImportHead): Promise<number> {
  if (head.state === "committing") return (await rollForward(store, tesseraDb, head)).deleted;
  if (head.state === "deleting") return await finishDelete(store, tesseraDb, head);
  return await rollBack(store, tesseraDb, head);
}

const ACTIONS = { writing: "rolled back", committing: "completed", deleting: "deleted" } as const;

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
    const rows = await finishHead(store, tesseraDb, taken);
    await removeJournal(store, tesseraDb, taken);
    return {
      dataset: taken.collection,
      database: taken.database,
      mode: taken.mode,
      owner: taken.owner,
      started_at: taken.started_at,
      action: ACTIONS[taken.state],
      rows_deleted: rows,
    };
  } finally {
    clearInterval(renew);
  }
}

/** Says in the log what a recovery did. */
export function logRecovered(r: Recovered): void {
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
