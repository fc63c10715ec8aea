/**
 * Both stores refuse a document nested deeper than MAX_JSON_DEPTH levels below its fields with a typed
 * 400 (DocumentTooDeepError) before writing any of the call's documents, on every write: their
 * serialisers (V8's for KV, BSON for MongoDB) would otherwise overflow the stack a few thousand levels
 * down (a 500), and MongoDB refuses past 100 levels.
 */
import assert from "node:assert/strict";
import { storeTest } from "../support/stores.ts";
import { DocumentTooDeepError, DocumentTooLargeError } from "../../store/store.ts";
import { BadRequestError } from "../../core/errors.ts";

/** `levels` objects, each under key k, around 1 (FerretDB stores no array directly inside an array). */
function objects(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { k: v };
  return v;
}

storeTest("store depth: every write refuses a field nested past 64 levels and writes nothing", async (t) => {
  const ref = { db: t.db, collection: "deep" };
  const refused = async (what: string, p: Promise<unknown>, field: string, index = 0) => {
    await assert.rejects(p, (e: unknown) => {
      assert.ok(e instanceof DocumentTooDeepError, `${what}: ${e}`);
      assert.ok(e instanceof DocumentTooLargeError && e instanceof BadRequestError);
      assert.equal(e.index, index, what);
      assert.equal(e.written, 0, what);
      assert.equal(e.field, field, what);
      assert.match(e.message, new RegExp(`^field '${field}' nests objects and arrays more than 64 levels`));
      return true;
    });
  };
  const deep = objects(5_000);
  await refused("insertMany", t.store.insertMany(ref, [{ a: 1 }, { a: 2, x: deep }]), "x", 1);
  assert.equal(await t.store.count(ref), 0); // the first document was not written either
  await refused("insertMany at 65", t.store.insertMany(ref, [{ a: 1, y: objects(65) }]), "y");
  await refused("put", t.store.put(ref, { _id: "p", x: deep }), "x");
  assert.equal(await t.store.get(ref, "p"), null);

  const [id] = await t.store.insertMany(ref, [{ a: 1, x: objects(64) }]); // 64 levels: stored
  assert.deepEqual((await t.store.get(ref, id))!.x, objects(64));
  await refused("patch", t.store.patch(ref, id, { z: deep }), "z");
  await refused("compareAndSet", t.store.compareAndSet(ref, id, { a: 1 }, { z: deep }), "z");
  await refused(
    "updateFields",
    t.store.updateFields(ref, [{ id, set: { z: 1 } }, { id, set: { z: deep } }]),
    "z",
    1,
  );
  const doc = (await t.store.get(ref, id))!;
  assert.equal(doc.z, undefined); // no write of any of them happened
  assert.equal(await t.store.count(ref), 1);
});
