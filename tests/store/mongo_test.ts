/**
 * MongoStore beyond the shared contract: collections written by other tools (ObjectId and hex-string
 * `_id`s), and a server that goes away after the store has used it.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { MongoClient, ObjectId } from "mongodb";
import { MongoStore } from "../../store/mongo.ts";
import { newId } from "../../store/ids.ts";
import { StoreUnavailableError } from "../../store/store.ts";
import { binaryPath, startFerretDB } from "../../scripts/ferretdb.ts";

const MONGO_URL = Deno.env.get("TEST_MONGO_URL");
const DB = `tessera_mongo_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;

Deno.test({
  name: "mongo store: documents written by other tools with ObjectId or hex-string ids",
  ignore: !MONGO_URL,
}, async () => {
  const client = new MongoClient(MONGO_URL!, { serverSelectionTimeoutMS: 3000 });
  const store = await MongoStore.connect(MONGO_URL!);
  const c = { db: DB, collection: "foreign" };
  try {
    const oid = new ObjectId();
    const hexString = newId(); // 24-hex, but stored as a plain string by the other tool
    const raw = client.db(DB).collection<{ _id: ObjectId | string; a: number; seen?: boolean }>("foreign");
    await raw.insertMany([{ _id: oid, a: 1 }, { _id: hexString, a: 2 }, { _id: "plain", a: 3 }]);
    const ids = [oid.toHexString(), hexString, "plain"];

    assert.deepEqual(await store.get(c, ids[0]), { _id: ids[0], a: 1 });
    assert.deepEqual(await store.get(c, hexString), { _id: hexString, a: 2 });
    const streamed = [];
    for await (const batch of store.stream(c)) streamed.push(...batch.map((d) => d._id));
    assert.deepEqual(streamed.sort(), [...ids].sort());

    const missing = newId();
    const updates = [...ids, missing].map((id) => ({ id, set: { seen: true } }));
    assert.deepEqual(await store.updateFields(c, updates), { matched: 3, modified: 3, missing: [missing] });
    assert.deepEqual(await store.patch(c, hexString, { a: 20 }), { _id: hexString, a: 20, seen: true });
    // the other tool still finds its documents under the _id types it wrote
    assert.equal((await raw.findOne({ _id: hexString }))?.a, 20);
    assert.equal((await raw.findOne({ _id: oid }))?.seen, true);

    for (const id of ids) assert.equal(await store.delete(c, id), true);
    assert.equal(await store.count(c), 0);
  } finally {
    await store.dropCollection(c);
    await store.close();
    await client.close();
  }
});

Deno.test({
  name: "mongo store: a server that stops fails fast with StoreUnavailableError",
  ignore: !existsSync(binaryPath()), // needs the FerretDB that `deno task test` builds
}, async () => {
  const server = await startFerretDB();
  const store = await MongoStore.connect(server.url);
  const c = { db: DB, collection: "gone" };
  try {
    const [id] = await store.insertMany(c, [{ a: 1 }]);
    await server.stop();
    const t0 = performance.now();
    await assert.rejects(store.get(c, id), StoreUnavailableError);
    await assert.rejects(store.ping(), StoreUnavailableError);
    const seconds = (performance.now() - t0) / 1000;
    assert.ok(seconds < 8, `took ${seconds.toFixed(1)} s`);
  } finally {
    await store.close();
    await server.stop();
  }
});
