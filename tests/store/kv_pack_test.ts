/**
 * Packs (store/kv_pack.ts): a KV collection's second copy in pages. What a read gives from a pack must be
 * what the documents' own keys hold, read here straight from KV; a pack is used only while no write came
 * after it, on this handle or another one on the same file.
 */
import assert from "node:assert/strict";
import { KvStore } from "../../store/kv.ts";
import { Packs } from "../../store/kv_pack.ts";
import { jsonExact } from "../../store/kv_pack_builder.ts";
import { MIN_PACK_DOCS, type PackMeta, segmentsOf } from "../../store/kv_pack_layout.ts";
import { newId } from "../../store/ids.ts";
import type { CollectionRef, Doc, Store } from "../../store/store.ts";
import { ConflictError } from "../../core/errors.ts";
import { valuesOf } from "../../store/column_pages.ts";
import { setLogLevel } from "../../core/log.ts";

const ref: CollectionRef = { db: "d", collection: "points" };

/** Documents of an audit-like shape, ids made in order. */
function rows(n: number, from = 0): Doc[] {
  return Array.from({ length: n }, (_, i) => ({
    _id: newId(),
    lat: 40 + (from + i) / 1e5,
    y_true: (from + i) % 2,
    region_ids: [(from + i) % 7, 100 + ((from + i) % 3)],
    name: `row ${from + i} ü`, // Latin-1 and beyond stay exact
  }));
}

async function withKv(fn: (store: KvStore, path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "tessera-pack-" });
  const path = `${dir}/pack.kv`;
  const store = await KvStore.open(path);
  try {
    await fn(store, path);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The collection as its documents' own keys hold it, in key order: what any read must give. */
async function byKeys(path: string): Promise<Doc[]> {
  const kv = await Deno.openKv(path);
  try {
    const out: Doc[] = [];
    for await (const e of kv.list<Doc>({ prefix: ["doc", ref.db, ref.collection] })) out.push(e.value);
    return out;
  } finally {
    kv.close();
  }
}

async function streamed(store: Store, batchSize = 700): Promise<Doc[]> {
  const out: Doc[] = [];
  for await (const b of store.stream(ref, { batchSize })) out.push(...b);
  return out;
}

/** The pack that holds the collection now, or null (read with a handle of its own). */
async function readyPack(path: string) {
  const kv = await Deno.openKv(path);
  try {
    return (await new Packs(kv).state(ref)).ready;
  } finally {
    kv.close();
  }
}

/** The pages a pack names, over its segments. */
const pagesOf = (pack: PackMeta) => segmentsOf(pack).reduce((sum, s) => sum + s.pages, 0);

/** Keys under ["colpage", db, collection]: a pack's pages. */
async function pageKeys(path: string): Promise<number> {
  const kv = await Deno.openKv(path);
  let n = 0;
  for await (const _ of kv.list({ prefix: ["colpage", ref.db, ref.collection] })) n++;
  kv.close();
  return n;
}

Deno.test("an import in batches in id order makes a pack; reads from it equal the documents' keys", async () => {
  await withKv(async (store, path) => {
    for (let b = 0; b < 3; b++) {
      const docs = rows(MIN_PACK_DOCS, b * MIN_PACK_DOCS);
      await store.insertMany(ref, docs, { fresh: new Set(docs.map((d) => d._id)) });
    }
    const pack = await readyPack(path);
    assert.equal(pack?.docs, 3 * MIN_PACK_DOCS);
    const keys = await byKeys(path);
    assert.equal(keys.length, 3 * MIN_PACK_DOCS);
    assert.deepEqual(await streamed(store), keys);
    assert.equal(await store.count(ref), 3 * MIN_PACK_DOCS);
    const projected = [];
    for await (const b of store.stream(ref, { projection: ["y_true"], batchSize: 999 })) projected.push(...b);
    assert.deepEqual(projected, keys.map((d) => ({ _id: d._id, y_true: d.y_true })));
  });
});

Deno.test("a write after the pack is seen by the next read, which makes a new pack and sweeps the old", async () => {
  await withKv(async (store, path) => {
    await store.insertMany(ref, rows(2 * MIN_PACK_DOCS));
    const first = await readyPack(path);
    assert.ok(first);
    const keys = await byKeys(path);
    const updates = keys.slice(0, 50).map((d) => ({ id: d._id, set: { y_pred: 1 } }));
    await store.updateFields(ref, updates);
    assert.equal(await readyPack(path), null);
    const after = await streamed(store);
    assert.deepEqual(after, await byKeys(path));
    assert.equal(after.filter((d) => d.y_pred === 1).length, 50);
    const second = await readyPack(path);
    assert.ok(second && second.segments !== first.segments);
    assert.equal(await pageKeys(path), pagesOf(second)); // the first pack's pages are gone
    assert.deepEqual(await streamed(store), after); // now from the new pack
    // every other kind of write moves the count too
    for (
      const write of [
        () => store.put(ref, { ...after[3], lat: 0 }),
        () => store.patch(ref, after[4]._id, { lat: 1 }),
        () => store.compareAndSet(ref, after[5]._id, { y_true: after[5].y_true as number }, { lat: 2 }),
        () => store.delete(ref, after[6]._id),
        () => store.deleteMany(ref, [after[7]._id]),
        () => store.insertMany(ref, [{ _id: "0-before-every-id", lat: 3 }]),
      ]
    ) {
      await streamed(store); // a pack of the collection as it is
      assert.ok(await readyPack(path));
      await write();
      assert.equal(await readyPack(path), null);
      assert.deepEqual(await streamed(store), await byKeys(path));
    }
  });
});

Deno.test("a write from another handle on the same file is seen: the count is in the file", async () => {
  await withKv(async (store, path) => {
    await store.insertMany(ref, rows(MIN_PACK_DOCS));
    assert.ok(await readyPack(path));
    const other = await KvStore.open(path);
    try {
      const [doc] = await other.list(ref, undefined, { limit: 1 });
      await other.patch(ref, doc._id, { lat: -1 });
    } finally {
      await other.close();
    }
    const read = await streamed(store);
    assert.equal(read[0].lat, -1);
    assert.deepEqual(read, await byKeys(path));
  });
});

Deno.test("a write while a read makes a pack leaves that pack unused", async () => {
  await withKv(async (store, path) => {
    await store.insertMany(ref, rows(3 * MIN_PACK_DOCS));
    const [doc] = await store.list(ref, undefined, { limit: 1 });
    await store.patch(ref, doc._id, { lat: 0 }); // no pack now
    let wrote = false;
    for await (const _ of store.stream(ref, { batchSize: 500 })) {
      if (!wrote) await store.patch(ref, doc._id, { lat: 5 });
      wrote = true;
    }
    assert.equal(await readyPack(path), null);
    assert.equal((await streamed(store))[0].lat, 5);
  });
});

Deno.test("a read left early declares no pack; appends out of id order or from the past stop extending it", async () => {
  await withKv(async (store, path) => {
    await store.insertMany(ref, rows(2 * MIN_PACK_DOCS));
    await store.put(ref, { _id: "zzzz", lat: 1 }); // pack no longer current
    for await (const _ of store.stream(ref, { batchSize: 100 })) break;
    assert.equal(await readyPack(path), null);
    await streamed(store);
    assert.ok(await readyPack(path));
    await store.insertMany(ref, [{ _id: "zzzz0", lat: 2 }, { _id: "zzzy", lat: 3 }]); // not ascending
    assert.equal(await readyPack(path), null);
    const read = await streamed(store);
    assert.deepEqual(read.slice(-3).map((d) => d._id), ["zzzy", "zzzz", "zzzz0"]);
    assert.deepEqual(read, await byKeys(path));
  });
});

Deno.test("small collections and documents JSON would change are never packed", async () => {
  setLogLevel("silent"); // the pack not made is logged at warn
  try {
    await withKv(async (store, path) => {
      await store.insertMany(ref, rows(MIN_PACK_DOCS - 1));
      await streamed(store);
      assert.equal(await readyPack(path), null);
      const odd = rows(MIN_PACK_DOCS).map((d, i) => i === 10 ? { ...d, lat: NaN } : d);
      await store.dropCollection(ref);
      await store.insertMany(ref, odd);
      assert.equal(await readyPack(path), null);
      const read = await streamed(store);
      assert.ok(Number.isNaN(read[10].lat));
      assert.equal(await readyPack(path), null);
    });
  } finally {
    setLogLevel("info");
  }
});

Deno.test("dropCollection takes the pack and its pages too", async () => {
  await withKv(async (store, path) => {
    await store.insertMany(ref, rows(MIN_PACK_DOCS));
    assert.ok(await pageKeys(path) > 0);
    await store.dropCollection(ref);
    assert.equal(await pageKeys(path), 0);
    assert.equal(await store.count(ref), 0);
    assert.deepEqual(await streamed(store), []);
  });
});

Deno.test("a read whose pages went meanwhile is a 409, never a short answer", async () => {
  await withKv(async (store, path) => {
    const first = rows(2 * MIN_PACK_DOCS);
    await store.insertMany(ref, first);
    await store.insertMany(ref, rows(2 * MIN_PACK_DOCS, 2 * MIN_PACK_DOCS)); // a second segment
    const kv = await Deno.openKv(path);
    try {
      const packs = new Packs(kv);
      const pack = (await packs.state(ref)).ready!;
      const segments = segmentsOf(pack);
      assert.equal(segments.length, 2);
      // the second segment's pages go before the read reaches them (a newer pack was declared meanwhile)
      await packs.sweep(ref, [segments[1].token]);
      const seen: Doc[] = [];
      await assert.rejects(async () => {
        for await (const page of packs.pages(ref, pack)) seen.push(...page);
      }, ConflictError);
      assert.deepEqual(seen.map((d) => d._id), first.map((d) => d._id)); // the first segment was read
      await packs.sweep(ref, null); // none left: the read fails at once
      await assert.rejects(async () => {
        for await (const _ of packs.pages(ref, pack));
      }, ConflictError);
    } finally {
      kv.close();
    }
  });
});

/** Every document as its column pages give it back, fields as `valuesOf` reads them (missing: null). */
async function fromColumns(store: Store, fields: string[]): Promise<Record<string, unknown>[] | null> {
  const pages = await store.columnPages(ref);
  if (!pages) return null;
  const out: Record<string, unknown>[] = [];
  for await (const page of pages) {
    const cols = new Map(page.fields);
    const values = fields.map((f) => valuesOf(cols.get(f), page.n));
    for (let j = 0; j < page.n; j++) {
      out.push(Object.fromEntries([["_id", page.ids[j]], ...fields.map((f, k) => [f, values[k][j]])]));
    }
  }
  return out;
}

/** The documents with every one of `fields`, a missing one as null. */
const withFields = (docs: Doc[], fields: string[]) =>
  docs.map((d) => Object.fromEntries([["_id", d._id], ...fields.map((f) => [f, d[f] ?? null])]));

Deno.test("column pages: an import in batches keeps them with the pack; they give every document's fields", async () => {
  await withKv(async (store, path) => {
    const fields = ["lat", "y_true", "region_ids", "name", "extra"];
    const docs = rows(5 * MIN_PACK_DOCS).map((d, i) => i % 7 === 0 ? { ...d, extra: { deep: [i] } } : d);
    for (let i = 0; i < docs.length; i += 1200) await store.insertMany(ref, docs.slice(i, i + 1200));
    const pack = (await readyPack(path))!;
    assert.ok(segmentsOf(pack).length >= 5 && segmentsOf(pack).every((s) => s.pages > 0), pack.segments);
    assert.deepEqual(await fromColumns(store, fields), withFields(await byKeys(path), fields));
    // a write: no current pack, no column pages; the next whole read makes both again
    await store.patch(ref, docs[3]._id as string, { lat: 1 });
    assert.equal(await store.columnPages(ref), null);
    await streamed(store);
    assert.deepEqual(await fromColumns(store, fields), withFields(await byKeys(path), fields));
    await store.dropCollection(ref);
    assert.equal(await pageKeys(path), 0);
  });
});

Deno.test("an older pack (JSON pages, no format) is never read: the next whole read replaces it", async () => {
  await withKv(async (store, path) => {
    const docs = rows(2 * MIN_PACK_DOCS);
    await store.insertMany(ref, docs);
    const kv = await Deno.openKv(path);
    try {
      const key = ["packmeta", ref.db, ref.collection];
      const { format: _, ...older } = (await kv.get<PackMeta>(key)).value!;
      await kv.set(key, { ...older, segments: "old:1" }); // its one JSON page:
      await kv.set(["packpage", ref.db, ref.collection, "old", 0], "[]");
      assert.equal(await store.columnPages(ref), null);
      assert.deepEqual(await streamed(store), await byKeys(path)); // listed, and packed anew
      assert.ok(await store.columnPages(ref));
      assert.equal((await kv.get(["packpage", ref.db, ref.collection, "old", 0])).value, null); // swept
    } finally {
      kv.close();
    }
  });
});

Deno.test("a pack of format 2 (pages under packcol) is never read: the next whole read replaces it", async () => {
  await withKv(async (store, path) => {
    await store.insertMany(ref, rows(2 * MIN_PACK_DOCS));
    const kv = await Deno.openKv(path);
    try {
      const key = ["packmeta", ref.db, ref.collection];
      const pack = (await kv.get<PackMeta>(key)).value!;
      // the same pack as format 2 recorded it, its one page where format 2 kept pages
      const page = (await kv.get(["colpage", ref.db, ref.collection, segmentsOf(pack)[0].token, 0])).value;
      await kv.set(key, { ...pack, format: 2, segments: "old:1" });
      await kv.set(["packcol", ref.db, ref.collection, "old", 0], page);
      assert.equal(await store.columnPages(ref), null);
      assert.deepEqual(await streamed(store), await byKeys(path)); // listed, and packed anew
      assert.equal((await kv.get<PackMeta>(key)).value!.format, 3);
      assert.equal((await kv.get(["packcol", ref.db, ref.collection, "old", 0])).value, null); // swept
    } finally {
      kv.close();
    }
  });
});

Deno.test("a pack's pages sort before every document, so the rows after a document KV writes are small", async () => {
  await withKv(async (store, path) => {
    await store.insertMany(ref, rows(2 * MIN_PACK_DOCS));
    await store.insertMany({ db: "a", collection: "b" }, rows(MIN_PACK_DOCS));
    const kv = await Deno.openKv(path);
    try {
      const kinds: string[] = [];
      for await (const e of kv.list({ prefix: [] })) kinds.push(String(e.key[0]));
      const lastPage = kinds.lastIndexOf("colpage"), firstDoc = kinds.indexOf("doc");
      assert.ok(lastPage >= 0 && firstDoc >= 0);
      assert.ok(lastPage < firstDoc, `a page is listed after a document: ${[...new Set(kinds)]}`);
    } finally {
      kv.close();
    }
  });
});

Deno.test("a document too large for a page leaves the collection unpacked, its reads whole", async () => {
  await withKv(async (store) => {
    const big = rows(MIN_PACK_DOCS);
    big[500] = { ...big[500], name: "x".repeat(40_000) }; // fits KV as a document, not a page
    const ids = await store.insertMany(ref, big);
    assert.equal(await store.columnPages(ref), null);
    assert.deepEqual((await streamed(store)).map((d) => d._id), ids);
    assert.equal(await store.columnPages(ref), null);
  });
});

Deno.test("column pages: a read whose pages went meanwhile is a 409", async () => {
  await withKv(async (store, path) => {
    await store.insertMany(ref, rows(3 * MIN_PACK_DOCS));
    const pages = (await store.columnPages(ref))!;
    const kv = await Deno.openKv(path);
    try {
      await new Packs(kv).sweep(ref, null);
    } finally {
      kv.close();
    }
    await assert.rejects(async () => {
      for await (const _ of pages);
    }, ConflictError);
  });
});

Deno.test("jsonExact: what JSON keeps and what it does not", () => {
  assert.equal(jsonExact({ a: [1, "x", null, true, { b: 2.5 }] }), true);
  for (const v of [NaN, Infinity, -0, undefined, new Date(0), 1n, [1, , 2], { a: undefined }, () => 1]) {
    assert.equal(jsonExact({ v }), false, String(v));
    assert.equal(jsonExact({ list: [3, 2, v, 1] }), false, `in a list: ${String(v)}`); // a list's own check
  }
  assert.equal(jsonExact({ list: [0, -1.5, 2 ** 31, Number.MAX_VALUE, -Number.MIN_VALUE] }), true);
});

Deno.test("writes on one handle wait out another handle's pack commits, never failing on its lock", async () => {
  await withKv(async (store, path) => {
    await store.insertMany(ref, rows(20 * MIN_PACK_DOCS));
    assert.equal((await readyPack(path))?.docs, 20 * MIN_PACK_DOCS); // one insert, many commits of pages
    const [first] = await store.list(ref, undefined, { limit: 1 });
    await store.patch(ref, first._id, { lat: 0 }); // no pack: the next whole read makes one
    const reader = await KvStore.open(path); // as a worker opens the store for itself
    try {
      const read = streamed(reader);
      for (let k = 1; k <= 40; k++) {
        assert.ok(await store.compareAndSet(ref, first._id, { lat: k - 1 }, { lat: k }));
        await store.put(ref, { _id: `zz${k}`, k });
      }
      assert.equal((await read).length >= 20 * MIN_PACK_DOCS, true);
    } finally {
      await reader.close();
    }
    const now = await streamed(store);
    assert.equal(now[0].lat, 40);
    assert.deepEqual(now, await byKeys(path));
  });
});

Deno.test("inserts racing to extend the same pack never mix their pages; the loser's pages go", async () => {
  await withKv(async (store, path) => {
    await store.insertMany(ref, rows(MIN_PACK_DOCS));
    const a = rows(3 * MIN_PACK_DOCS), b = rows(3 * MIN_PACK_DOCS); // b's ids after a's
    await Promise.all([store.insertMany(ref, a), store.insertMany(ref, b)]);
    assert.deepEqual(await streamed(store), await byKeys(path));
    const now = await readyPack(path);
    if (now) assert.equal(await pageKeys(path), pagesOf(now)); // nothing but the declared pack's pages
    await streamed(store); // a current pack, whatever the race left
    const pack = (await readyPack(path))!;
    assert.equal(pack.docs, 7 * MIN_PACK_DOCS);
    // an insert refused on an id that exists (its first commits written) leaves the reads right
    const again = [...rows(MIN_PACK_DOCS), { _id: a[0]._id, lat: 0 }];
    await assert.rejects(store.insertMany(ref, again));
    assert.deepEqual(await streamed(store), await byKeys(path));
    const last = (await readyPack(path))!;
    assert.equal(await pageKeys(path), pagesOf(last));
  });
});

Deno.test("an import in many batches is one pack of many segments, read in order", async () => {
  await withKv(async (store, path) => {
    for (let b = 0; b < 12; b++) await store.insertMany(ref, rows(MIN_PACK_DOCS, b * MIN_PACK_DOCS));
    const pack = (await readyPack(path))!;
    assert.equal(segmentsOf(pack).length, 12);
    assert.equal(pack.docs, 12 * MIN_PACK_DOCS);
    assert.deepEqual(await streamed(store), await byKeys(path));
  });
});
