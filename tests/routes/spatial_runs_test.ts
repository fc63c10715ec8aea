/**
 * Kept runs (issue 19): every audit, relabel and threshold answer carries a run_id; the task lists its
 * runs, answers one again, and serves each of its maps by URL; the last 20 are kept; include_maps false
 * leaves the maps out of an answer (the run keeps them); a run written halfway never lists.
 */
import assert from "node:assert/strict";
import { type StoreApp, storeTest } from "../support/stores.ts";
import { jsonBody } from "../support/app.ts";
import { keepRun, RunWriter } from "../../services/spatial/run_writer.ts";
import { listRuns, RUNS_KEPT } from "../../services/spatial/runs.ts";
import { prunesSettled } from "../../services/spatial/run_pruning.ts";
import type { Store } from "../../store/store.ts";

/** 40 individuals in two regions, each with coordinates, a label, a prediction and a probability. */
const docs = Array.from({ length: 40 }, (_, i) => ({
  lat: 45 + (i % 20) * 0.01,
  lon: i < 20 ? 7 : 8,
  region_ids: [i < 20 ? 0 : 1],
  y_true: i % 3 === 0 ? 1 : 0,
  y_pred: i < 20 ? (i < 16 ? 1 : 0) : (i < 24 ? 1 : 0),
  y_pred_prob: i < 20
    ? (i < 16 ? 0.6 + i * 0.01 : 0.2 + i * 0.01)
    : (i < 24 ? 0.55 + i * 0.001 : 0.1 + i * 0.005),
}));

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

async function withTask(t: StoreApp, name = "runs", rows: Record<string, unknown>[] = docs) {
  await t.store.insertMany({ db: t.db, collection: name }, rows);
  const res = await t.app.request(
    "/api/tasks/documents",
    jsonBody("POST", { database_name: t.db, data_collection_name: name }),
  );
  assert.equal(res.status, 201, await res.clone().text());
}

const post = (t: StoreApp, path: string, body: unknown, name = "runs") =>
  t.app.request(`/api/spatial-hitl/task/${name}/${path}`, jsonBody("POST", body));

const get = (t: StoreApp, path: string, name = "runs") =>
  t.app.request(`/api/spatial-hitl/task/${name}/${path}`);

async function ok(res: Response) {
  assert.equal(res.status, 200, await res.clone().text());
  return await res.json();
}

/** Every key of a JSON value, at any depth, as dotted paths. */
function keysOf(v: unknown, prefix = ""): string[] {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return [];
  return Object.entries(v).flatMap(([k, x]) => [prefix + k, ...keysOf(x, `${prefix}${k}.`)]);
}

const MAP_KEY = /(^|\.)([a-z_]+_html|[a-z_]+_image|threshold_chart_[a-z]+)$/;

/** base64 → bytes, by atob (independent of the server's decoder). */
const fromBase64 = (s: string) => Uint8Array.from(atob(s), (ch) => ch.charCodeAt(0));

const settings = { equal_opp: false, n_worlds: 20 };

/** The whole mapping of these documents, as a run records it. */
const MAPPING = {
  lat: "lat",
  lon: "lon",
  y_true: "y_true",
  y_pred: "y_pred",
  region_ids: "region_ids",
  y_pred_prob: "y_pred_prob",
};

storeTest("runs: each answer has a run_id; the list, the stored answers and the map URLs", async (t) => {
  await withTask(t);
  const audit = await ok(await post(t, "audit", settings));
  const relabel = await ok(await post(t, "mitigate/relabel", { ...settings, approx: false }));
  const threshold = await ok(await post(t, "mitigate/threshold", settings));
  const ids = [audit.run_id, relabel.run_id, threshold.run_id];
  for (const id of ids) assert.match(id, /^[0-9a-f]{24}$/);
  assert.equal(new Set(ids).size, 3);

  // newest first, with each run's kind, summary and map names
  const list = await ok(await get(t, "runs"));
  assert.deepEqual(list.map((r: { run_id: string }) => r.run_id), [...ids].reverse());
  assert.deepEqual(list.map((r: { kind: string }) => r.kind), ["threshold", "relabel", "audit"]);
  const [th, re, au] = list;
  assert.equal(au.summary.sbi_score, audit.sbi_score);
  assert.equal(au.summary.n_individuals, 40);
  assert.equal(re.summary.n_flips, relabel.n_flips);
  assert.equal(re.summary.solver_status_code, relabel.solver_status_code);
  assert.equal(re.summary.n_predictions, relabel.mitigated_preds.length);
  assert.equal(th.summary.test_size, threshold.test_size);
  assert.equal(au.requested_by, "anonymous");
  assert.deepEqual(au.maps, [
    "fair_map_html",
    "fair_map_image",
    "distribution_map_html",
    "distribution_map_image",
  ]);
  for (const m of ["audit_after_mitigation.fair_map_html", "flips_map_html", "flips_map_image"]) {
    assert.ok(re.maps.includes(m), m);
  }
  assert.ok(th.maps.includes("threshold_chart_after"));

  // each stored answer is the answer given, field for field, with what the run was
  for (const [answer, kind] of [[audit, "audit"], [relabel, "relabel"], [threshold, "threshold"]] as const) {
    const stored = await ok(await get(t, `runs/${answer.run_id}`));
    const { run, ...rest } = stored;
    assert.deepEqual(rest, answer);
    assert.equal(run.kind, kind);
    assert.equal(run.request.n_worlds, 20);
    assert.equal(run.request.include_maps, true); // the validated body, defaults filled
  }
  const light = await ok(await get(t, `runs/${relabel.run_id}?include_maps=false`));
  assert.deepEqual(keysOf(light).filter((k) => MAP_KEY.test(k)), []);
  assert.equal(light.mitigated_preds.length, relabel.mitigated_preds.length);

  // maps: HTML as a page, images and charts as PNG bytes equal to the answer's base64
  const html = await get(t, `runs/${audit.run_id}/maps/fair_map_html`);
  assert.equal(html.status, 200);
  assert.match(html.headers.get("content-type")!, /^text\/html/);
  assert.equal(await html.text(), audit.fair_map_html);
  const pngs: [string, string][] = [
    [audit.run_id, "fair_map_image"],
    [relabel.run_id, "audit_after_mitigation.fair_map_image"],
    [relabel.run_id, "flips_map_image"],
    [threshold.run_id, "threshold_chart_after"],
  ];
  for (const [id, name] of pngs) {
    const res = await get(t, `runs/${id}/maps/${name}`);
    assert.equal(res.status, 200, name);
    assert.equal(res.headers.get("content-type"), "image/png");
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 8)], PNG_SIGNATURE, name);
    const answer = id === audit.run_id ? audit : id === relabel.run_id ? relabel : threshold;
    const b64 = name.split(".").reduce((o, k) => o[k], answer);
    assert.deepEqual(bytes, fromBase64(b64), name);
  }
  const before = await get(t, `runs/${relabel.run_id}/maps/audit_before_mitigation.fair_map_html`);
  assert.equal(await before.text(), relabel.audit_before_mitigation.fair_map_html);

  // unknown runs and maps are 404s that name them
  const noRun = await get(t, "runs/0123456789abcdef01234567");
  assert.equal(noRun.status, 404);
  assert.match((await noRun.json()).detail, /no run '0123456789abcdef01234567' for task 'runs'/);
  const noMap = await get(t, `runs/${audit.run_id}/maps/flips_map_html`);
  assert.equal(noMap.status, 404);
  assert.match((await noMap.json()).detail, /has no map 'flips_map_html'; its maps: fair_map_html, /);
  assert.equal((await get(t, `runs/${audit.run_id}/maps/nope`)).status, 404);
  // a run is listed and served only under its own task
  await withTask(t, "other");
  assert.deepEqual(await ok(await get(t, "runs", "other")), []);
  assert.equal((await get(t, `runs/${audit.run_id}`, "other")).status, 404);
  assert.equal((await get(t, `runs/${audit.run_id}/maps/fair_map_html`, "other")).status, 404);
  assert.equal((await get(t, "runs", "missing")).status, 404);
  // the task notes its last mitigation's run
  const task = await (await t.app.request("/api/tasks/document/runs")).json();
  assert.equal(task.last_mitigation.run_id, threshold.run_id);
});

storeTest("runs: include_maps false answers carry no map field; the run keeps them", async (t) => {
  await withTask(t);
  for (const path of ["audit", "mitigate/relabel", "mitigate/threshold"]) {
    const light = await ok(await post(t, path, { ...settings, include_maps: false }));
    assert.deepEqual(keysOf(light).filter((k) => MAP_KEY.test(k)), [], path);
    assert.ok("stats" in light || "audit_after_mitigation" in light);
    const full = await ok(await get(t, `runs/${light.run_id}`));
    const maps = keysOf(full).filter((k) => MAP_KEY.test(k));
    assert.ok(maps.length >= 4, path);
    // without maps the stored answer is the answer given
    const { run: _run, ...rest } = await ok(await get(t, `runs/${light.run_id}?include_maps=false`));
    assert.deepEqual(rest, light);
    const name = path === "audit" ? "fair_map_html" : "flips_map_html";
    const page = await get(t, `runs/${light.run_id}/maps/${name}`);
    assert.match(await page.text(), /<html/i);
  }
  const bad = await post(t, "audit", { ...settings, include_maps: "no" });
  assert.deepEqual((await bad.json()).detail[0].loc, ["body", "include_maps"]);
});

storeTest("runs: the 21st run of a task removes the first, header and chunks", async (t) => {
  await withTask(t);
  const ids: string[] = [];
  for (let i = 0; i <= RUNS_KEPT; i++) {
    ids.push((await ok(await post(t, "audit", { ...settings, n_worlds: 1, include_maps: false }))).run_id);
    if (i === RUNS_KEPT - 1) assert.equal((await ok(await get(t, "runs"))).length, RUNS_KEPT);
  }
  // at once, the list shows the newest RUNS_KEPT, whether or not the oldest is removed yet
  const list = await ok(await get(t, "runs"));
  assert.equal(list.length, RUNS_KEPT);
  assert.deepEqual(list.map((r: { run_id: string }) => r.run_id), ids.slice(1).reverse());
  // the oldest is removed just after the answer
  await prunesSettled();
  assert.equal((await get(t, `runs/${ids[0]}`)).status, 404);
  assert.equal((await get(t, `runs/${ids[0]}/maps/fair_map_html`)).status, 404);
  const tessera = t.config.TESSERA_DB;
  assert.equal(await t.store.count({ db: tessera, collection: "spatial_runs" }), RUNS_KEPT);
  assert.equal(await t.store.count({ db: tessera, collection: "spatial_run_chunks" }, { run_id: ids[0] }), 0);
  assert.ok(await t.store.count({ db: tessera, collection: "spatial_run_chunks" }, { run_id: ids[1] }) > 0);
  // the second one is still whole
  const second = await ok(await get(t, `runs/${ids[1]}`));
  assert.match(second.fair_map_html, /<html/i);
});

storeTest(
  "runs: while the oldest of RUNS_KEPT + 1 complete runs awaits its removal, the list omits it",
  async (t) => {
    await withTask(t);
    // headers as a save leaves them, a second apart, before the pruning after the answer removed the oldest
    const headers = Array.from({ length: RUNS_KEPT + 1 }, (_, i) => ({
      _id: `run-${String(i).padStart(2, "0")}`,
      task: "runs",
      database: t.db,
      collection: "runs",
      kind: "audit",
      state: "complete",
      created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      requested_by: null,
      generation: null,
      mapping: MAPPING,
      summary: {},
      layout: { answer: 0, maps: [], preds: null },
    }));
    await t.store.insertMany({ db: t.config.TESSERA_DB, collection: "spatial_runs" }, headers);
    const listed = await ok(await get(t, "runs"));
    assert.deepEqual(
      listed.map((r: { run_id: string }) => r.run_id),
      headers.slice(1).map((h) => h._id).reverse(),
    );
  },
);

storeTest(
  "runs: a removal a crash left half done is finished just after the task's next answer",
  async (t) => {
    await withTask(t);
    const runs = { db: t.config.TESSERA_DB, collection: "spatial_runs" };
    const chunks = { db: t.config.TESSERA_DB, collection: "spatial_run_chunks" };
    // a run marked "deleting" whose chunk and header a stopped process never removed
    await t.store.put(runs, {
      _id: "left",
      task: "runs",
      state: "deleting",
      created_at: new Date(Date.UTC(2026, 0, 1)).toISOString(),
      layout: { answer: 1, maps: [], preds: null },
    });
    await t.store.put(chunks, { _id: "left:a:0", run_id: "left", text: "{}" });
    const answer = await ok(await post(t, "audit", { ...settings, n_worlds: 1, include_maps: false }));
    await prunesSettled();
    assert.equal(await t.store.get(runs, "left"), null);
    assert.equal(await t.store.get(chunks, "left:a:0"), null);
    assert.deepEqual((await ok(await get(t, "runs"))).map((r: { run_id: string }) => r.run_id), [
      answer.run_id,
    ]);
  },
);

storeTest(
  "runs: large maps and long ids are stored in chunks under the store's document limit",
  async (t) => {
    // 1,500 individuals with 200-character ids holding characters beyond Latin-1: predictions of
    // ~300 KB, maps of several hundred KB, all over many chunks (KV refuses a document over 64 KB)
    const rows = Array.from({ length: 1500 }, (_, i) => ({
      _id: `${"é…".repeat(99)}${String(i).padStart(5, "0")}`,
      region_ids: [i % 3],
      y_pred: i % 3 === 0 ? (i % 4 === 0 ? 0 : 1) : (i % 5 === 0 ? 1 : 0),
    }));
    await withTask(t, "big", rows);
    const answer = await ok(await post(t, "mitigate/relabel", settings, "big"));
    assert.equal(answer.mitigated_preds.length, 1500);
    const tessera = t.config.TESSERA_DB;
    const chunks = await t.store.count({ db: tessera, collection: "spatial_run_chunks" }, {
      run_id: answer.run_id,
    });
    assert.ok(chunks > 10, `${chunks} chunks`);
    const { run: _run, ...stored } = await ok(await get(t, `runs/${answer.run_id}`, "big"));
    assert.deepEqual(stored, answer);
  },
);

/** A store whose inserts into the run chunks fail from the `failAt`-th call on, and deletes too if asked. */
function failingStore(store: Store, failAt: number, deletesFail: boolean): Store {
  let calls = 0;
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      if (prop === "insertMany") {
        return (ref: { collection: string }, ...rest: unknown[]) => {
          if (ref.collection === "spatial_run_chunks" && ++calls >= failAt) {
            return Promise.reject(new Error("the store went away"));
          }
          return (value as (...a: unknown[]) => unknown).call(target, ref, ...rest);
        };
      }
      if (
        deletesFail && (prop === "deleteMany" || prop === "discard" || prop === "delete" || prop === "patch")
      ) {
        return () => Promise.reject(new Error("the store went away"));
      }
      return value.bind(target);
    },
  });
}

storeTest("runs: a run whose chunks could not all be written never lists, and is cleaned up", async (t) => {
  await withTask(t);
  const answer = await ok(await post(t, "audit", settings));
  // a map of a million characters: dozens of chunks, written by several insert calls
  const big = { ...answer, large_map_html: "<p>x</p>".repeat(125_000) };
  const run = {
    kind: "audit" as const,
    task: "runs",
    source: { db: t.db, collection: "runs", generation: null },
    mapping: MAPPING,
  };
  const chunks = { db: t.config.TESSERA_DB, collection: "spatial_run_chunks" };
  const before = await t.store.count(chunks);
  // the write fails after its first chunks: the save cleans up after itself
  const failing = { store: failingStore(t.store, 2, false), config: t.config };
  await assert.rejects(keepRun(failing, run, big), /went away/);
  assert.equal(await t.store.count(chunks), before);
  // a crash (nothing can be cleaned): the half-written run never lists
  const crashed = { store: failingStore(t.store, 2, true), config: t.config };
  await assert.rejects(keepRun(crashed, run, big), /went away/);
  const listed = await listRuns({ store: t.store, config: t.config }, "runs");
  assert.deepEqual(listed.map((r) => r.run_id), [answer.run_id]);
  assert.equal((await ok(await get(t, "runs"))).length, 1);
});

storeTest(
  "runs: a run written a part at a time leaves nothing when the request gives up on it or a part fails",
  async (t) => {
    await withTask(t);
    const relabel = await ok(await post(t, "mitigate/relabel", { ...settings, approx: false }));
    const { run_id: _id, ...answer } = relabel;
    const run = {
      kind: "relabel" as const,
      task: "runs",
      source: { db: t.db, collection: "runs", generation: null },
      mapping: MAPPING,
    };
    const tessera = t.config.TESSERA_DB;
    const counts = async () => [
      await t.store.count({ db: tessera, collection: "spatial_runs" }),
      await t.store.count({ db: tessera, collection: "spatial_run_chunks" }),
    ];
    const before = await counts();
    const deps = { store: t.store, config: t.config };

    // the before-audit's maps and the predictions handed over, then the request fails: all removed
    const abandoned = new RunWriter(deps, run);
    abandoned.writeMaps(answer.audit_before_mitigation, "audit_before_mitigation.");
    abandoned.writePredictions(answer.mitigated_preds);
    await abandoned.abandon();
    await abandoned.abandon(); // a second caller giving up changes nothing
    assert.deepEqual(await counts(), before);

    // a part handed over fails to write in the background: keeping the run reports it and cleans up
    const failing = new RunWriter({ store: failingStore(t.store, 2, false), config: t.config }, run);
    failing.writeMaps({ large_map_html: "<p>x</p>".repeat(125_000) }, "");
    failing.writePredictions(answer.mitigated_preds);
    await assert.rejects(
      failing.keep({ ...answer, large_map_html: "<p>x</p>".repeat(125_000) }),
      /went away/,
    );
    assert.deepEqual(await counts(), before);

    // the header removed meanwhile (another run's save found it stale): keeping it fails, and cleans up
    const removed = new RunWriter(deps, run);
    removed.writeMaps(answer.audit_before_mitigation, "audit_before_mitigation.");
    removed.writePredictions(answer.mitigated_preds);
    for (
      let i = 0;
      i < 100 && !(await t.store.get({ db: tessera, collection: "spatial_runs" }, removed.id));
      i++
    ) {
      await new Promise((r) => setTimeout(r, 5));
    }
    await t.store.delete({ db: tessera, collection: "spatial_runs" }, removed.id);
    await assert.rejects(removed.keep(answer), /was removed while it was written/);
    assert.deepEqual(await counts(), before);

    // written a part at a time, the run reads back as the whole answer
    const parts = new RunWriter(deps, run);
    parts.writeMaps(answer.audit_before_mitigation, "audit_before_mitigation.");
    parts.writePredictions(answer.mitigated_preds);
    const kept = await parts.keep(answer);
    const { run: stored, ...back } = await ok(await get(t, `runs/${kept.run_id}`));
    assert.deepEqual(back, { run_id: kept.run_id, ...answer });
    assert.equal(stored.summary.n_predictions, 40);
    // the same maps as the route's run of the same answer, the before-audit's first (written first)
    const listed = await ok(await get(t, "runs"));
    assert.deepEqual(listed.map((r: { run_id: string }) => r.run_id), [kept.run_id, relabel.run_id]);
    assert.deepEqual(new Set(stored.maps), new Set(listed[1].maps));
    assert.ok(stored.maps[0].startsWith("audit_before_mitigation."));
  },
);
