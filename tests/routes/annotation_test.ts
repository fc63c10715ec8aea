/**
 * The annotation service of spec 1 through `app.request()`, on both stores: datasets, models, procedures,
 * running the four functions on a stored dataset and on inline rows, and reading the annotations back.
 * Validation (422) and authentication (401) of every endpoint: annotation_validation_test.ts.
 */
import assert from "node:assert/strict";
import { importCsv, jsonRequest, type StoreApp, storeTest } from "../support/stores.ts";

const STATIONS = [
  "station_id,date,temp,lat,lon,contact",
  "S-01,2024-01-01,3.5,45.1,7.6,ana@example.org",
  "S-02,2024-01-02,4.5,45.2,7.7,bo@example.org",
  "S-03,2024-01-03,,45.3,7.8,+39 011 123 4567",
].join("\n");

const annotate = (t: StoreApp, body: Record<string, unknown>) =>
  t.app.request("/annotations", jsonRequest("POST", { dataset_id: "stations", ...body }));

/** A result's per-column entries by column name (JSON of any shape). */
// deno-lint-ignore no-explicit-any
const byColumn = (xs: { column: string }[]): Record<string, any> =>
  Object.fromEntries(xs.map((x) => [x.column, x]));

storeTest("annotation: an imported CSV is listed under /dataset with its distribution", async (t) => {
  await importCsv(t, "stations", STATIONS);
  const list = await (await t.app.request("/dataset")).json();
  assert.deepEqual(list.map((d: { id: string }) => d.id), ["stations"]);
  const one = await t.app.request("/dataset/stations");
  assert.equal(one.status, 200);
  const d = await one.json();
  assert.deepEqual([d.dataset_name, d.database, d.rows], ["stations", t.db, 3]);
  assert.deepEqual(d.columns[2], { name: "temp", type: "number" });
  assert.equal(d.distributions.length, 1);
  assert.deepEqual([d.distributions[0].id, d.distributions[0].rows], [`${t.db}.stations`, 3]);
  for (const k of ["created_at", "updated_at"]) assert.ok(Date.parse(d[k]) > 0);

  const missing = await t.app.request("/dataset/nope");
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).detail, "no dataset 'nope'; datasets: stations");
});

storeTest(
  "annotation: /model lists the shipped data models; one by id; 404 names the known ones",
  async (t) => {
    const models = await (await t.app.request("/model")).json();
    assert.deepEqual(
      models.map((m: { id: string }) => m.id),
      ["AgriParcel", "AirQualityObserved", "Person", "Place", "WeatherObserved"],
    );
    const weather = await (await t.app.request("/model/WeatherObserved")).json();
    assert.equal(weather.vocabulary, "Smart Data Models");
    const temperature = weather.properties.find((p: { name: string }) => p.name === "temperature");
    assert.deepEqual([temperature.type, temperature.unit], ["number", "°C"]);
    // Smart Data Models' AirQualityObserved spec gives CO with unitCode GP (mg/m³), NO2 with GQ (µg/m³)
    const air = await (await t.app.request("/model/AirQualityObserved")).json();
    const unit = (name: string) => air.properties.find((p: { name: string }) => p.name === name).unit;
    assert.deepEqual([unit("co"), unit("no2"), unit("pm25")], ["mg/m³", "µg/m³", "µg/m³"]);
    const missing = await t.app.request("/model/Nope");
    assert.equal(missing.status, 404);
    assert.match(
      (await missing.json()).detail,
      /^no data model 'Nope'; models: AgriParcel, AirQualityObserved/,
    );
  },
);

storeTest(
  "annotation: /procedures lists the four functions with their parameters as JSON Schema",
  async (t) => {
    const procs = await (await t.app.request("/procedures")).json();
    assert.deepEqual(
      procs.map((p: { name: string }) => p.name),
      ["semantic_types", "profile", "concept_mapping", "pii_scan"],
    );
    for (const p of procs) {
      assert.ok(typeof p.description === "string" && p.description.length > 0, p.name);
      // a JSON Schema object: its keywords, with every function's shared `columns` among the properties
      assert.equal(p.parameters.type, "object", p.name);
      assert.equal(p.parameters.properties.columns.type, "array", p.name);
    }
    const mapping = procs[2];
    assert.equal(mapping.needs_data_model, true);
    assert.deepEqual(mapping.parameters.required, ["data_model_id"]);
    assert.equal(mapping.parameters.properties.top_k.default, 3);
    assert.equal(mapping.parameters.additionalProperties, false);
  },
);

storeTest(
  "annotation: semantic_types runs on the stored rows, is stored, and a rerun replaces it",
  async (t) => {
    await importCsv(t, "stations", STATIONS);
    // catalogued but never annotated: an empty list (the spec's response is a list); unknown: 404
    const none = await t.app.request("/annotations/stations");
    assert.deepEqual([none.status, await none.json()], [200, []]);
    const res = await annotate(t, { identifier: "types", annotation_function: "semantic_types" });
    assert.equal(res.status, 200);
    const run = await res.json();
    assert.deepEqual(
      [run.source, run.rows, run.truncated, run.replaced, run.params_source, run.sample_id],
      ["dataset", 3, false, false, "defaults", null],
    );
    assert.deepEqual(run.params, { min_share: 0.9, max_categories: 20 });
    const types = byColumn(run.result.columns);
    // contact: 2 of 3 are e-mails (< 0.9), distinct, no digits in the addresses: text
    assert.deepEqual(
      Object.values(types).map((c) => [c.column, c.type, c.confidence]),
      [
        ["station_id", "identifier", 1],
        ["date", "datetime", 1],
        ["temp", "float", 1],
        ["lat", "latitude", 1],
        ["lon", "longitude", 1],
        ["contact", "text", 1],
      ],
    );

    const again = await (await annotate(t, {
      identifier: "types",
      annotation_function: "semantic_types",
      params: { min_share: 0.6 },
    })).json();
    assert.equal(again.replaced, true);
    assert.equal(again.created_at, run.created_at);
    // at min_share 0.6, 2 of 3 e-mails (0.6667) are enough
    const contact = byColumn(again.result.columns).contact;
    assert.deepEqual([contact.type, contact.confidence], ["email", 0.6667]);

    await annotate(t, { identifier: "a-profile", annotation_function: "profile" });
    const stored = await (await t.app.request("/annotations/stations")).json();
    assert.deepEqual(stored.map((a: { identifier: string }) => a.identifier), ["a-profile", "types"]);
    assert.equal(stored[1].params.min_share, 0.6);
    assert.equal((await t.app.request("/annotations/nope")).status, 404);
  },
);

storeTest("annotation: profile and pii_scan on the stored rows", async (t) => {
  await importCsv(t, "stations", STATIONS);
  const prof = await (await annotate(t, { identifier: "p", annotation_function: "profile" })).json();
  const temp = byColumn(prof.result.columns).temp;
  // 3.5 and 4.5 (one missing): mean 4, sample std √(0.25 + 0.25) = √0.5
  assert.deepEqual(temp.numeric, {
    min: 3.5,
    max: 4.5,
    mean: 4,
    std: Math.sqrt(0.5),
    q1: 3.75,
    median: 4,
    q3: 4.25,
  });

  const pii = await (await annotate(t, { identifier: "pii", annotation_function: "pii_scan" })).json();
  assert.deepEqual(pii.result.flagged, ["contact"]);
  assert.deepEqual(byColumn(pii.result.columns).contact.findings, [
    { kind: "email", count: 2, share: 0.6667, examples: ["a**@e******.org", "b*@e******.org"] },
    { kind: "phone", count: 1, share: 0.3333, examples: ["+** *** *** **67"] },
  ]);
});

storeTest(
  "annotation: concept_mapping ranks WeatherObserved properties and proposes a mapping",
  async (t) => {
    await importCsv(t, "stations", STATIONS);
    const res = await annotate(t, {
      identifier: "mapping",
      annotation_function: "concept_mapping",
      params: { data_model_id: "WeatherObserved" },
    });
    assert.equal(res.status, 200);
    const { result } = await res.json();
    // temp = temperature by name, fit and description (1); date: max(Dice 6/14, Jaccard 1/2) · 0.6 + 0.3 + 0.1
    // ("Date of the observation"); station_id: Jaccard {station,id}~{id} 0.5 · 0.6 + 0.3 = 0.6; lat, lon:
    // GeoJSON location fits both, names share 2 bigrams each: 0.6·4/14 + 0.3, 0.6·4/15 + 0.3
    assert.deepEqual(result.mapping, [
      { column: "temp", property: "temperature", score: 1 },
      { column: "date", property: "dateObserved", score: 0.7 },
      { column: "station_id", property: "id", score: 0.6 },
      { column: "lat", property: "location", score: 0.4714 },
      { column: "lon", property: "location", score: 0.46 },
    ]);
    assert.deepEqual(result.unmapped, ["contact"]);
    assert.equal(byColumn(result.columns).temp.candidates[0].unit, "°C");

    const unknown = await annotate(t, {
      identifier: "m2",
      annotation_function: "concept_mapping",
      params: { data_model_id: "Nope" },
    });
    assert.equal(unknown.status, 404);
    const [d] = (await unknown.json()).detail;
    assert.deepEqual(d.loc, ["body", "params", "data_model_id"]);
    assert.match(d.msg, /^no data model 'Nope'; models: AgriParcel/);
  },
);

storeTest(
  "annotation: inline data and items, sample_id by record and by named sample, columns",
  async (t) => {
    const rows = [{ id: "a", n: 1 }, { id: "b", n: 2 }, { id: "c", n: 30 }];
    const one = await (await annotate(t, {
      dataset_id: "scratch",
      identifier: "i1",
      annotation_function: "profile",
      data: rows[1],
    })).json();
    assert.deepEqual([one.source, one.rows, one.result.columns[1].numeric.mean], ["inline", 1, 2]);
    const picked = await (await annotate(t, {
      dataset_id: "scratch",
      identifier: "i2",
      annotation_function: "profile",
      items: rows,
      sample_id: "c",
      params: { columns: ["n"] },
    })).json();
    assert.deepEqual([picked.rows, picked.columns, picked.result.columns[0].numeric.max], [1, ["n"], 30]);
    // an inline-only dataset id still lists its annotations
    assert.equal((await (await t.app.request("/annotations/scratch")).json()).length, 2);

    await importCsv(t, "stations", STATIONS);
    const head =
      await (await annotate(t, { identifier: "h", annotation_function: "profile", sample_id: "head:2" }))
        .json();
    assert.deepEqual([head.rows, head.result.columns[2].numeric.max], [2, 4.5]);
    const random =
      await (await annotate(t, { identifier: "r", annotation_function: "profile", sample_id: "random:2:7" }))
        .json();
    assert.equal(random.rows, 2);
    const docs = [];
    for await (const b of t.store.stream({ db: t.db, collection: "stations" })) docs.push(...b);
    const record = await (await annotate(t, {
      identifier: "one",
      annotation_function: "semantic_types",
      sample_id: docs[2]._id,
    })).json();
    assert.deepEqual([record.rows, record.result.columns[0].evidence.examples], [1, ["S-03"]]);
    const gone = await annotate(t, { identifier: "x", annotation_function: "profile", sample_id: "nope" });
    assert.equal(gone.status, 404);
    assert.equal((await gone.json()).detail, "no record 'nope' in dataset 'stations'");
  },
);

storeTest("annotation: an unknown function or dataset is refused, naming what exists", async (t) => {
  await importCsv(t, "stations", STATIONS);
  const fn = await annotate(t, { identifier: "x", annotation_function: "ocr" });
  assert.equal(fn.status, 422);
  assert.deepEqual((await fn.json()).detail, [{
    loc: ["body", "annotation_function"],
    msg: "unknown annotation function 'ocr'; functions: semantic_types, profile, concept_mapping, pii_scan",
    type: "value_error",
  }]);
  const ds = await annotate(t, { dataset_id: "nope", identifier: "x", annotation_function: "profile" });
  assert.equal(ds.status, 404);
  assert.equal((await ds.json()).detail, "no dataset 'nope'; datasets: stations");
});

storeTest("annotation: a result larger than one stored document (64 KiB on KV) round-trips", async (t) => {
  const header = Array.from({ length: 400 }, (_, i) => `measurement_number_${i}`).join(",");
  const row = (k: number) => Array.from({ length: 400 }, (_, i) => i * k + 0.5).join(",");
  await importCsv(t, "wide", [header, row(1), row(2), row(3)].join("\n"));
  const run = await t.app.request(
    "/annotations",
    jsonRequest("POST", { dataset_id: "wide", identifier: "types", annotation_function: "semantic_types" }),
  );
  assert.equal(run.status, 200);
  const sent = await run.json();
  assert.ok(JSON.stringify(sent.result).length > 64 * 1024);
  const [stored] = await (await t.app.request("/annotations/wide")).json();
  assert.deepEqual(stored.result, sent.result);
  assert.equal(stored.result.columns[399].type, "float");
});
