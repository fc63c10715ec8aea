/**
 * `DELETE /api/datasets/{database}/{collection}` on both stores: the rows and the registry record go, a
 * second delete is a 404 that changes nothing, another dataset is untouched, a delete cut off after the
 * rows is finished by the next one, a dataset under import is a 409, Tessera's own database a 422, and the
 * route needs the bearer token.
 */
import assert from "node:assert/strict";
import { importCsv, type StoreApp, storeTest } from "../support/stores.ts";
import { findDataset, listDatasets } from "../../services/datasets/registry.ts";
import { ImportJournal } from "../../services/datasets/import_journal.ts";

const remove = (t: Pick<StoreApp, "app">, path: string, headers: Record<string, string> = {}) =>
  t.app.request(`/api/datasets/${path}`, { method: "DELETE", headers });

storeTest("delete: the rows and the registry record go; a second delete is a 404", async (t) => {
  await importCsv(t, "people", "name,age\nana,31\nbo,7\n");
  await importCsv(t, "kept", "x\n1\n");
  const res = await remove(t, `${t.db}/people`);
  assert.equal(res.status, 204);
  assert.equal(await res.text(), "");
  assert.equal(await t.store.count({ db: t.db, collection: "people" }), 0);
  assert.equal(await findDataset(t.store, t.config.TESSERA_DB, "people"), null);
  // the other dataset is untouched
  assert.deepEqual((await listDatasets(t.store, t.config.TESSERA_DB)).map((d) => d.dataset_name), ["kept"]);
  assert.equal(await t.store.count({ db: t.db, collection: "kept" }), 1);
  // the export no longer finds it
  assert.equal((await t.app.request(`/api/datasets/${t.db}/people`)).status, 404);

  const again = await remove(t, `${t.db}/people`);
  assert.equal(again.status, 404);
  assert.match((await again.json()).detail, /no dataset 'people' in database/);
  assert.equal(await t.store.count({ db: t.db, collection: "kept" }), 1);
  // the name can be imported again, fresh
  await importCsv(t, "people", "z\n5\n");
  const rec = await findDataset(t.store, t.config.TESSERA_DB, "people");
  assert.deepEqual(rec?.columns.map((c) => c.name), ["z"]);
  assert.equal(rec?.rows, 1);
});

storeTest("delete: unknown names are 404s, in this database or another", async (t) => {
  assert.equal((await remove(t, `${t.db}/nothing`)).status, 404);
  await importCsv(t, "people", "a\n1\n");
  const other = await remove(t, "otherdb/people");
  assert.equal(other.status, 404);
  assert.match((await other.json()).detail, new RegExp(`is in database '${t.db}'`));
  assert.equal(await t.store.count({ db: t.db, collection: "people" }), 1);
});

storeTest("delete: cut off after the rows, the next delete removes the record", async (t) => {
  await importCsv(t, "people", "a\n1\n2\n");
  await t.store.dropCollection({ db: t.db, collection: "people" }); // as if the process died here
  assert.ok(await findDataset(t.store, t.config.TESSERA_DB, "people"));
  assert.equal((await remove(t, `${t.db}/people`)).status, 204);
  assert.equal(await findDataset(t.store, t.config.TESSERA_DB, "people"), null);
});

storeTest("delete: documents of an unregistered collection are removed", async (t) => {
  await t.store.insertMany({ db: t.db, collection: "external" }, [{ _id: "e1", a: 1 }, { _id: "e2" }]);
  assert.equal((await remove(t, `${t.db}/external`)).status, 204);
  assert.equal(await t.store.count({ db: t.db, collection: "external" }), 0);
});

storeTest("delete: a dataset under import is a 409 and stays", async (t) => {
  await importCsv(t, "people", "a\n1\n");
  const target = { db: t.db, collection: "people" };
  const journal = await ImportJournal.begin(t.store, t.config.TESSERA_DB, target, "append", 60_000);
  try {
    const res = await remove(t, `${t.db}/people`);
    assert.equal(res.status, 409);
    assert.match((await res.json()).detail, /import/);
    assert.equal(await t.store.count(target), 1);
    assert.ok(await findDataset(t.store, t.config.TESSERA_DB, "people"));
  } finally {
    await journal.remove();
  }
  assert.equal((await remove(t, `${t.db}/people`)).status, 204);
});

storeTest("delete: Tessera's own database and a bad name are 422s naming the path field", async (t) => {
  const own = await remove(t, `${t.config.TESSERA_DB}/datasets`);
  assert.equal(own.status, 422);
  assert.deepEqual((await own.json()).detail[0].loc, ["path", "database_name"]);
  const bad = await remove(t, `${t.db}/$bad`);
  assert.equal(bad.status, 422);
  assert.deepEqual((await bad.json()).detail[0].loc, ["path", "collection_name"]);
});

storeTest("delete: the bearer token is required", async (t) => {
  await importCsv(t, "people", "a\n1\n").catch(() => {}); // refused without a token too
  const anonymous = await remove(t, `${t.db}/people`);
  assert.equal(anonymous.status, 401);
  const form = { grant_type: "password", client_id: "tessera", client_secret: "tessera-secret" };
  const tokenRes = await t.app.request("/realms/tessera/protocol/openid-connect/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...form, username: "alice", password: "wonderland" }),
  });
  const { access_token } = await tokenRes.json();
  const res = await remove(t, `${t.db}/people`, { authorization: `Bearer ${access_token}` });
  assert.equal(res.status, 404); // nothing was imported without the token
}, { auth: true });
