import assert from "node:assert/strict";
import { KvStore } from "../../../store/kv.ts";
import { createWorkerPool } from "../../../workers/pool.ts";
import { readColumns } from "../../../services/datasets/column_reads.ts";
import { docIdAt, docIdCount } from "../../../core/spatial/doc_ids.ts";
import { resolveMapping } from "../../../core/spatial/mapping.ts";

Deno.test("dataset reads: an audit's columns read in a worker carry every document id, in order", async () => {
  const dir = await Deno.makeTempDir();
  const store = await KvStore.open(`${dir}/t.kv`);
  const pool = createWorkerPool(1);
  try {
    // more ids than a piece holds (8,192), of mixed lengths and characters
    const n = 20_000, ref = { db: "d", collection: "people" };
    const docs = Array.from({ length: n }, (_, i) => ({
      _id: `${String(i).padStart(6, "0")}-${"é".repeat(i % 4)}${i % 7 ? "" : "\u{1F600}"}`,
      y_pred: i % 2,
      y_true: (i >> 1) % 2,
    }));
    await store.insertMany(ref, docs);
    const read = { ref, mapping: resolveMapping({}, []), explicit: [] };
    const inWorker = await readColumns(pool, store, read);
    const inline = await readColumns(createWorkerPool(0), store, read); // the caller's own read
    for (const loaded of [inWorker, inline]) {
      assert.equal(docIdCount(loaded.ind.docIds), n);
      for (let i = 0; i < n; i++) assert.equal(docIdAt(loaded.ind.docIds, i), docs[i]._id, `position ${i}`);
    }
    assert.ok(!Array.isArray(inWorker.ind.docIds), "a worker's read sends them packed");
  } finally {
    pool.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
