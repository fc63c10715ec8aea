/**
 * Spec 1's per-dataset records on both stores: /configuration (and POST /annotations honouring it),
 * /data_model_info and /schema: store, read back, replace without duplicating, 404 for what was never set;
 * and data models dropped into MODELS_DIR.
 */
import assert from "node:assert/strict";
import { importCsv, jsonRequest, type StoreApp, storeTest } from "../support/stores.ts";

const CSV = "station_id,date,temp\nS-01,2024-01-01,3.5\nS-02,2024-01-02,4.5\nS-03,2024-01-02,5\n";
const post = (t: StoreApp, path: string, body: unknown) => t.app.request(path, jsonRequest("POST", body));
const get = async (t: StoreApp, path: string) => {
  const res = await t.app.request(path);
  return { status: res.status, body: await res.json() };
};

storeTest("configuration: stored per dataset, replaced by a second POST, 404 before", async (t) => {
  await importCsv(t, "stations", CSV);
  assert.deepEqual(await get(t, "/configuration/stations"), {
    status: 404,
    body: { detail: "no configuration for dataset 'stations'" },
  });
  const unknown = await post(t, "/configuration", { dataset_id: "nope", methods: [] });
  assert.equal(unknown.status, 404);

  const first = await (await post(t, "/configuration", { dataset_id: "stations", methods: ["profile"] }))
    .json();
  assert.deepEqual([first.methods, first.replaced], [["profile"], false]);
  // user JSON keeps keys MongoDB would refuse as field names
  const methods = { profile: { top: 1 }, "$odd.key": true };
  const second = await (await post(t, "/configuration", { dataset_id: "stations", methods })).json();
  assert.deepEqual([second.replaced, second.created_at], [true, first.created_at]);
  const { status, body } = await get(t, "/configuration/stations");
  assert.equal(status, 200);
  assert.deepEqual([body.dataset_id, body.methods], ["stations", methods]);
  assert.equal("replaced" in body, false);
});

storeTest(
  "configuration: POST /annotations takes its params from it unless the request gives its own",
  async (t) => {
    await importCsv(t, "stations", CSV);
    await post(t, "/configuration", {
      dataset_id: "stations",
      methods: { concept_mapping: { data_model_id: "WeatherObserved", top_k: 1 }, profile: { top: 1 } },
    });
    const run = (fn: string, params?: unknown) =>
      post(t, "/annotations", { dataset_id: "stations", identifier: fn, annotation_function: fn, params });

    const mapped = await (await run("concept_mapping")).json();
    assert.deepEqual([mapped.params_source, mapped.params.data_model_id, mapped.params.top_k], [
      "configuration",
      "WeatherObserved",
      1,
    ]);
    assert.equal(mapped.result.columns[0].candidates.length, 1);
    const merged = await (await run("concept_mapping", { top_k: 2 })).json();
    assert.deepEqual([merged.params_source, merged.params.data_model_id, merged.params.top_k], [
      "request+configuration",
      "WeatherObserved",
      2,
    ]);
    // date: 2024-01-01 once, 2024-01-02 twice; top 1 keeps the most frequent
    const profile = await (await run("profile")).json();
    assert.deepEqual(profile.result.columns[1].top, [{ value: "2024-01-02", count: 2 }]);
    assert.equal((await (await run("pii_scan")).json()).params_source, "defaults");

    // the list form: names, or {name, params}
    await post(t, "/configuration", {
      dataset_id: "stations",
      methods: ["semantic_types", { name: "profile", params: { top: 2 } }],
    });
    assert.equal((await (await run("profile")).json()).params.top, 2);
    // configured params are validated like the request's
    await post(t, "/configuration", { dataset_id: "stations", methods: { profile: { top: "all" } } });
    const bad = await run("profile");
    assert.equal(bad.status, 422);
    assert.deepEqual((await bad.json()).detail[0].loc, ["body", "params", "top"]);
  },
);

storeTest(
  "configuration: a list of methods is what may run on the dataset; null or [] allows all",
  async (t) => {
    await importCsv(t, "stations", CSV);
    const run = (fn: string) =>
      post(t, "/annotations", { dataset_id: "stations", identifier: fn, annotation_function: fn });
    await post(t, "/configuration", {
      dataset_id: "stations",
      methods: ["semantic_types", { name: "profile", params: { top: 2 } }],
    });
    assert.equal((await run("semantic_types")).status, 200);
    assert.equal((await run("profile")).status, 200);
    const refused = await run("pii_scan");
    assert.deepEqual([refused.status, (await refused.json()).detail], [409, [{
      loc: ["body", "annotation_function"],
      msg:
        "annotation function 'pii_scan' is not enabled for dataset 'stations'; enabled: semantic_types, profile",
      type: "value_error",
    }]]);
    // an unknown function is still named as unknown, with every function there is
    assert.match((await (await run("ocr")).json()).detail[0].msg, /^unknown annotation function 'ocr'/);
    for (const methods of [null, []]) {
      await post(t, "/configuration", { dataset_id: "stations", methods });
      assert.equal((await run("pii_scan")).status, 200, JSON.stringify(methods));
    }
  },
);

storeTest(
  "data_model_info: per distribution; checked against the catalogue; replaced, never duplicated",
  async (t) => {
    await importCsv(t, "stations", CSV);
    const distribution_id = `${t.db}.stations`;
    const info = {
      dataset_id: "stations",
      distribution_id,
      data_model_id: "WeatherObserved",
      concept_name: null,
    };
    assert.equal((await get(t, "/data_model_info/stations")).status, 404);

    const wrongDist = await post(t, "/data_model_info", { ...info, distribution_id: "other.stations" });
    assert.equal(wrongDist.status, 404);
    assert.deepEqual((await wrongDist.json()).detail, [{
      loc: ["body", "distribution_id"],
      msg: `dataset 'stations' has no distribution 'other.stations'; distributions: ${distribution_id}`,
      type: "value_error",
    }]);
    const wrongModel = await post(t, "/data_model_info", { ...info, data_model_id: "Nope" });
    assert.deepEqual((await wrongModel.json()).detail[0].loc, ["body", "data_model_id"]);
    assert.equal((await post(t, "/data_model_info", { ...info, dataset_id: "nope" })).status, 404);

    const first = await (await post(t, "/data_model_info", info)).json();
    assert.deepEqual([first.concept_name, first.replaced], [null, false]);
    const second = await (await post(t, "/data_model_info", { ...info, concept_name: "WeatherObserved" }))
      .json();
    assert.equal(second.replaced, true);
    const { status, body } = await get(t, "/data_model_info/stations");
    assert.equal(status, 200);
    assert.equal(body.length, 1);
    assert.deepEqual(
      [body[0].distribution_id, body[0].data_model_id, body[0].concept_name],
      [distribution_id, "WeatherObserved", "WeatherObserved"],
    );
  },
);

storeTest("schema: dataset-wide (distribution null) and per distribution, dataset-wide first", async (t) => {
  await importCsv(t, "stations", CSV);
  const distribution_id = `${t.db}.stations`;
  assert.deepEqual(await get(t, "/schema/stations"), {
    status: 404,
    body: { detail: "no schema for dataset 'stations'" },
  });
  const fields = [{ name: "temp", type: "number", unit: "°C" }, { name: "station_id", type: "string" }];
  await post(t, "/schema", { dataset_id: "stations", distribution_id, fields: [] });
  const whole = await (await post(t, "/schema", { dataset_id: "stations", distribution_id: null, fields }))
    .json();
  assert.deepEqual([whole.distribution_id, whole.replaced], [null, false]);
  const again =
    await (await post(t, "/schema", { dataset_id: "stations", distribution_id, fields: fields.slice(0, 1) }))
      .json();
  assert.equal(again.replaced, true);
  const { body } = await get(t, "/schema/stations");
  assert.deepEqual(
    body.map((s: { distribution_id: string | null; fields: unknown[] }) => [s.distribution_id, s.fields]),
    [
      [null, fields],
      [distribution_id, fields.slice(0, 1)],
    ],
  );
  assert.equal(
    (await post(t, "/schema", { dataset_id: "stations", distribution_id: "x.y", fields })).status,
    404,
  );
  const unknown = await post(t, "/schema", { dataset_id: "nope", distribution_id: null, fields });
  assert.deepEqual([unknown.status, await unknown.json()], [404, {
    detail: "no dataset 'nope'; datasets: stations",
  }]);
});

const MODELS_DIR = Deno.makeTempDirSync({ prefix: "tessera-models-" });
const lake = {
  id: "Lake",
  name: "Lake",
  description: "A body of water",
  vocabulary: "test",
  properties: [{ name: "depth", type: "number", description: "Depth of the lake", unit: "m" }],
};

storeTest(
  "MODELS_DIR: a model dropped into the folder is served at once; one may replace a shipped model",
  async (t) => {
    await Deno.remove(MODELS_DIR, { recursive: true }).then(() => Deno.mkdir(MODELS_DIR));
    const ids = async () => (await get(t, "/model")).body.map((m: { id: string }) => m.id);
    assert.equal((await ids()).includes("Lake"), false);
    await Deno.writeTextFile(`${MODELS_DIR}/lake.json`, JSON.stringify(lake));
    await Deno.writeTextFile(
      `${MODELS_DIR}/place.json`,
      JSON.stringify({ ...lake, id: "Place", name: "Place" }),
    );
    const broken = `broken-${crypto.randomUUID()}.json`; // a file new to this process, so it warns
    await Deno.writeTextFile(`${MODELS_DIR}/${broken}`, "{ not json");
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void warnings.push(args.join(" "));
    try {
      const res = await t.app.request("/model", { headers: { "x-request-id": "catalogue-probe" } });
      assert.equal(res.status, 200);
      assert.deepEqual((await res.json()).map((m: { id: string }) => m.id), [
        "AgriParcel",
        "AirQualityObserved",
        "Lake",
        "Person",
        "Place",
        "WeatherObserved",
      ]);
    } finally {
      console.warn = warn;
    }
    const line = warnings.map((w) => JSON.parse(w)).find((w) => w.file?.includes(broken));
    assert.equal(line?.request_id, "catalogue-probe"); // the warning names the request that met the file
    assert.equal((await get(t, "/model/Place")).body.description, "A body of water");

    await importCsv(t, "lakes", "depth_m,name\n12.5,Garda\n");
    const run = await post(t, "/annotations", {
      dataset_id: "lakes",
      identifier: "m",
      annotation_function: "concept_mapping",
      params: { data_model_id: "Lake" },
    });
    // name: Dice(depthm, depth) = 2·4/(5 + 4) = 8/9 (over Jaccard 1/2); float fits number (1); of the
    // words {depth, m}, "depth" is in "Depth of the lake" (1/2): 0.6·8/9 + 0.3 + 0.1·0.5 = 0.8833
    const { mapping } = (await run.json()).result;
    assert.deepEqual(mapping, [{ column: "depth_m", property: "depth", score: 0.8833 }]);
  },
  { env: { MODELS_DIR, LOG_LEVEL: "warn" } },
);
