/**
 * An import leaves the embedded store's collection packed (store/kv_pack.ts): its batches extend one pack
 * as they are written, so the first audit after it reads column pages, not a million documents. Batches
 * written at once would each find the write count moved by the other and leave no pack.
 */
import assert from "node:assert/strict";
import { KvStore } from "../../../store/kv.ts";
import { importRecords } from "../../../services/datasets/import.ts";

async function* records() {
  for (let i = 0; i < 5_500; i++) yield { i, region_ids: [i % 7, 100 + (i % 3)] };
}

Deno.test("an import of many batches leaves its collection packed, every row in the pages in order", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tessera-import-pack-" });
  const store = await KvStore.open(`${dir}/t.kv`);
  const ref = { db: "d", collection: "points" };
  try {
    await importRecords(store, "tessera", ref, records(), { mode: "create" });
    const pages = await store.columnPages(ref);
    assert.ok(pages, "no pack after the import");
    const seen: number[] = [];
    for await (const page of pages) {
      const i = page.fields.find(([name]) => name === "i")![1];
      assert.equal(i.kind, "number");
      if (i.kind === "number") seen.push(...i.values);
    }
    assert.deepEqual(seen, Array.from({ length: 5_500 }, (_, i) => i));
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
