/**
 * Whole reads of a KV collection with and without its pack (store/kv_pack.ts), on the import benchmarks'
 * rows (lat, lon, y_true, y_pred and ~107 region ids; bench/import_data.ts) in a throwaway KV file:
 *
 * - insert: `KvStore.insertMany` in batches of 1,000, as an import writes (the pack's pages included);
 * - stream, pack: `KvStore.stream` of every document, from the pack;
 * - column pages, pack: `KvStore.columnPages`, every document field by field (what an audit's read takes);
 * - list, no pack: the documents' own keys listed straight from KV (what a read without a pack does);
 * - stream, list + make pack: after one write the pack is stale: the read lists, and makes a new one;
 * - stream, pack again: from that new pack.
 *
 * Each read runs in a fresh handle on the file, so nothing is kept between them but the OS's file cache.
 *
 *   deno run -A bench/kv_pack_bench.ts [--rows 206418]
 */
import { parseArgs } from "node:util";
import { benchPieces } from "./import_data.ts";
import { KvStore } from "../store/kv.ts";
import { newId } from "../store/ids.ts";
import type { Doc } from "../store/store.ts";

const { values } = parseArgs({ args: Deno.args, options: { rows: { type: "string", default: "206418" } } });
const rows = Number(values.rows);
const ref = { db: "bench", collection: "points" };
const dir = await Deno.makeTempDir({ prefix: "tessera-pack-bench-" });
const path = `${dir}/pack.kv`;

/** Seconds `fn` takes, printed under `label`. */
async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const out = await fn();
  console.log(`${label.padEnd(32)} ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  return out;
}

/** Reads every column page on a handle of its own; returns how many documents they hold. */
async function columnsAll(): Promise<number> {
  const store = await KvStore.open(path);
  let n = 0;
  try {
    for await (const page of (await store.columnPages(ref))!) n += page.n;
  } finally {
    await store.close();
  }
  return n;
}

/** Streams every document on a handle of its own; returns how many. */
async function streamAll(): Promise<number> {
  const store = await KvStore.open(path);
  let n = 0;
  try {
    for await (const batch of store.stream(ref, { batchSize: 5000 })) n += batch.length;
  } finally {
    await store.close();
  }
  return n;
}

try {
  const docs: Doc[] = [];
  for (const piece of benchPieces(rows, "ndjson")) {
    for (const line of piece.split("\n")) if (line) docs.push({ ...JSON.parse(line), _id: newId() });
  }
  console.log(
    `${rows} rows, ${(docs.reduce((s, d) => s + JSON.stringify(d).length, 0) / 1e6).toFixed(1)} MB of JSON`,
  );
  const store = await KvStore.open(path);
  await timed("insert (with the pack)", async () => {
    for (let i = 0; i < docs.length; i += 1000) {
      const batch = docs.slice(i, i + 1000);
      await store.insertMany(ref, batch, { fresh: new Set(batch.map((d) => d._id)) });
    }
  });
  await store.close();
  await timed("stream, pack", streamAll);
  await timed("column pages, pack", columnsAll);
  await timed("list, no pack", async () => {
    const kv = await Deno.openKv(path);
    let n = 0;
    for await (const _ of kv.list({ prefix: ["doc", ref.db, ref.collection] }, { batchSize: 1000 })) n++;
    kv.close();
    return n;
  });
  const writer = await KvStore.open(path);
  await writer.patch(ref, docs[0]._id, { y_pred: 1 - (docs[0].y_pred as number) });
  await writer.close();
  await timed("stream, list + make pack", streamAll);
  await timed("stream, pack again", streamAll);
  console.log(`file ${(Deno.statSync(path).size / 1e6).toFixed(0)} MB`);
} finally {
  await Deno.remove(dir, { recursive: true });
}
