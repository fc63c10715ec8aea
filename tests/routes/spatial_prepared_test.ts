/**
 * Prepared datasets (services/datasets/prepared.ts) through the app: an instance that keeps them answers
 * exactly as one that keeps nothing, and it reads the rows again after any instance's import or write.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { type StoreApp, storeTest } from "../support/stores.ts";
import { jsonBody } from "../support/app.ts";
import { servicePool } from "../support/pools.ts";
import { PreparedDatasets } from "../../services/datasets/prepared.ts";

/** 240 individuals on a 0.1° grid, 6 overlapping regions, a prediction skewed in regions 0 and 3. */
function rows(flip = false): string {
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out: string[] = [];
  for (let i = 0; i < 240; i++) {
    const region = i % 6, other = (region + 1) % 6;
    const yTrue = rand() < 0.5 ? 1 : 0;
    const skew = region === 0 ? 0.35 : region === 3 ? -0.3 : 0;
    const prob = Math.min(0.99, Math.max(0.01, 0.5 + (yTrue ? 0.2 : -0.2) + skew + (rand() - 0.5) * 0.4));
    const yPred = (prob >= 0.5 ? 1 : 0) ^ (flip && i % 3 === 0 ? 1 : 0);
    const row = {
      lat: 40 + Math.floor(i / 20) * 0.1,
      lon: -100 + (i % 20) * 0.1,
      y_true: yTrue,
      y_pred: yPred,
      y_pred_prob: yPred ? Math.max(prob, 0.5) : Math.min(prob, 0.49),
      region_ids: [region, other],
    };
    out.push(JSON.stringify(row));
  }
  return out.join("\n") + "\n";
}

const ndjson = (body: string): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/x-ndjson" },
  body,
});

/** Another instance of Tessera over the same store, with its own cache of PREPARED_CACHE_MB. */
function instance(t: StoreApp, cacheMb: number) {
  const pool = servicePool(1);
  // the tasks asked of its pool, by name
  const tasks = new Map<string, number>();
  const run = pool.run.bind(pool);
  pool.run = ((task: string, ...rest: unknown[]) => {
    tasks.set(task, (tasks.get(task) ?? 0) + 1);
    return (run as (...a: unknown[]) => unknown)(task, ...rest);
  }) as typeof pool.run;
  const prepared = new PreparedDatasets(cacheMb);
  const config = { ...t.config, PREPARED_CACHE_MB: cacheMb };
  const app = createApp({ config, store: t.store, pool, verifier: null, prepared });
  return { app, prepared, tasks, close: () => pool.close() };
}

/** An answer without what differs between two runs of the same request (its id, its timings). */
async function comparable(r: Response) {
  assert.equal(r.status, 200, await r.clone().text());
  const { run_id: _r, elapsed_ms: _e, solver_seconds: _s, phases, ...rest } = await r.json();
  assert.deepEqual(Object.keys(phases).sort(), ["load", "maps", "prepare", "solve", "worlds"]);
  return rest;
}

async function setUp(t: StoreApp) {
  const imported = await t.app.request(`/api/datasets/${t.db}/people?mode=create`, ndjson(rows()));
  assert.equal(imported.status, 200, await imported.clone().text());
  const task = await t.app.request(
    "/api/tasks/documents",
    jsonBody("POST", { database_name: t.db, data_collection_name: "people" }),
  );
  assert.ok(task.ok, await task.text());
}

const audit = { n_worlds: 60, seed: 3 };
const routes = {
  audit: ["/api/spatial-hitl/task/people/audit", audit],
  relabel: ["/api/spatial-hitl/task/people/mitigate/relabel", { ...audit, approx: true, budget_constr: 0.2 }],
  threshold: ["/api/spatial-hitl/task/people/mitigate/threshold", { ...audit, approx: true }],
} as const;

storeTest(
  "prepared datasets: audit, relabel and threshold answer the same with and without them",
  async (t) => {
    await setUp(t);
    const keeping = instance(t, 64), none = instance(t, 0);
    try {
      for (const [name, [url, body]] of Object.entries(routes)) {
        const fresh = await comparable(await none.app.request(url, jsonBody("POST", body)));
        const cold = await comparable(await keeping.app.request(url, jsonBody("POST", body)));
        const drawn = keeping.tasks.get("spatial.worlds");
        const warm = await comparable(await keeping.app.request(url, jsonBody("POST", body)));
        // the same request again: every audit in it finds its worlds drawn (the same numbers of positives)
        assert.equal(keeping.tasks.get("spatial.worlds"), drawn, `${name}: warm draws no worlds`);
        assert.deepEqual(cold, fresh, `${name}: cold`);
        assert.deepEqual(warm, fresh, `${name}: warm`);
      }
      // the second threshold of the same split found the regions of everyone and the fit kept
      for (const task of ["spatial.regions", "mitigate.split", "mitigate.fit"]) {
        assert.equal(keeping.tasks.get(task), 1, task);
        assert.equal(none.tasks.get(task), 1, task);
      }
      const stats = keeping.prepared.stats();
      assert.ok(stats.entries >= 3, JSON.stringify(stats)); // the columns twice (needs differ), two region sets
      assert.ok(stats.hits >= 6, JSON.stringify(stats));
      assert.equal(none.prepared.stats().entries, 0);
    } finally {
      keeping.close();
      none.close();
    }
  },
);

storeTest(
  "prepared datasets: a threshold after an audit without equal_opp takes that audit's regions",
  async (t) => {
    await setUp(t);
    const keeping = instance(t, 64), none = instance(t, 0);
    const [auditUrl] = routes.audit, [url, body] = routes.threshold;
    try {
      // every individual is that audit's scope, as it is the threshold fit's
      const audited = await keeping.app.request(auditUrl, jsonBody("POST", { ...audit, equal_opp: false }));
      assert.equal(audited.status, 200, await audited.clone().text());
      const kept = await comparable(await keeping.app.request(url, jsonBody("POST", body)));
      assert.equal(keeping.tasks.get("spatial.regions"), undefined);
      assert.deepEqual(kept, await comparable(await none.app.request(url, jsonBody("POST", body))));
      assert.equal(none.tasks.get("spatial.regions"), 1);
    } finally {
      keeping.close();
      none.close();
    }
  },
);

storeTest(
  "prepared datasets: an audit asked again, and a relabel that keeps the positives, draw no worlds again",
  async (t) => {
    await setUp(t);
    const keeping = instance(t, 64), none = instance(t, 0);
    const [auditUrl, auditBody] = routes.audit, [relabelUrl] = routes.relabel;
    // pr_constr 0: the flips to positive and to negative balance, so the number of positives stays
    const relabelBody = { ...routes.relabel[1], pr_constr: 0 };
    const worldsOf = (i: typeof keeping) => i.tasks.get("spatial.worlds") ?? 0;
    try {
      const fresh = await comparable(await none.app.request(auditUrl, jsonBody("POST", auditBody)));
      const cold = await comparable(await keeping.app.request(auditUrl, jsonBody("POST", auditBody)));
      assert.equal(worldsOf(keeping), 1); // one range of worlds per worker; the pool has one
      const warm = await comparable(await keeping.app.request(auditUrl, jsonBody("POST", auditBody)));
      assert.equal(worldsOf(keeping), 1, "the same audit again draws no worlds");
      assert.deepEqual(cold, fresh);
      assert.deepEqual(warm, fresh);
      // another seed is other worlds
      const seeded = { ...auditBody, seed: 4 };
      await comparable(await keeping.app.request(auditUrl, jsonBody("POST", seeded)));
      assert.equal(worldsOf(keeping), 2);

      const drawn = worldsOf(none);
      const relabeled = await comparable(await none.app.request(relabelUrl, jsonBody("POST", relabelBody)));
      assert.equal(worldsOf(none) - drawn, 2, "without the cache: the worlds before and after");
      const kept = await comparable(await keeping.app.request(relabelUrl, jsonBody("POST", relabelBody)));
      assert.equal(worldsOf(keeping), 2, "both audits of the relabel found their worlds drawn");
      assert.deepEqual(kept, relabeled);
      const before = relabeled.audit_before_mitigation, after = relabeled.audit_after_mitigation;
      assert.ok(relabeled.n_flips > 0, "flips that change the after-audit's statistics");
      assert.equal(after.n_positives, before.n_positives);
      assert.notDeepEqual(after.stats, before.stats);
      assert.equal(after.signif_thresh, before.signif_thresh, "the same worlds, so the same threshold T");
    } finally {
      keeping.close();
      none.close();
    }
  },
);

storeTest(
  "prepared datasets: another instance's import or write-back makes the rows be read again",
  async (t) => {
    await setUp(t);
    const a = instance(t, 64), b = instance(t, 0);
    const [url, body] = routes.audit;
    const post = (app: typeof a.app) => app.request(url, jsonBody("POST", body));
    try {
      const first = await comparable(await post(a.app));
      // another instance (t.app) replaces the rows: a third of the predictions flip
      const replaced = await t.app.request(`/api/datasets/${t.db}/people?mode=replace`, ndjson(rows(true)));
      assert.equal(replaced.status, 200, await replaced.clone().text());
      const missesBefore = a.prepared.stats().misses;
      const after = await comparable(await post(a.app));
      assert.ok(a.prepared.stats().misses > missesBefore, "the new rows are read, not the kept ones");
      assert.deepEqual(after, await comparable(await post(b.app)));
      assert.notEqual(after.n_positives, first.n_positives);
      // a write-back adds a field to every row: what was kept is read again after it
      await comparable(await post(a.app));
      const kept = a.prepared.stats().misses;
      const run = await (await t.app.request(routes.relabel[0], jsonBody("POST", routes.relabel[1]))).json();
      const wrote = await t.app.request(
        "/api/spatial-hitl/task/people/mitigate/writeback",
        jsonBody("POST", { new_field: "y_fair", run_id: run.run_id }),
      );
      assert.equal(wrote.status, 200, await wrote.clone().text());
      await comparable(await post(a.app));
      assert.ok(a.prepared.stats().misses > kept, "a write-back renews the dataset's revision");
    } finally {
      a.close();
      b.close();
    }
  },
);

Deno.test("prepared datasets: the budget holds, least recently used first out, too large never kept", async () => {
  const cache = new PreparedDatasets(1); // 1 MiB
  const key = { ref: { db: "d", collection: "c" }, version: "v1" };
  const mb = (n: number) => ({ value: n, bytes: n * 1024 * 1024 });
  await cache.get(key, "a", () => Promise.resolve(mb(0.4)));
  await cache.get(key, "b", () => Promise.resolve(mb(0.4)));
  assert.equal(cache.peek(key, "a"), 0.4); // a is now the most recently used
  await cache.get(key, "c", () => Promise.resolve(mb(0.4))); // over 1 MiB: b goes
  assert.equal(cache.peek(key, "b"), undefined);
  assert.equal(cache.stats().evictions, 1);
  assert.ok(cache.stats().bytes <= cache.budgetBytes);
  assert.equal(await cache.get(key, "huge", () => Promise.resolve(mb(2))), 2); // answered, not kept
  assert.equal(cache.peek(key, "huge"), undefined);
  // a new version of the dataset drops the older version's entries
  assert.equal(cache.peek({ ...key, version: "v2" }, "a"), undefined);
  assert.equal(cache.stats().entries, 0);
  // one build for concurrent requests of the same entry
  let builds = 0;
  const slow = () => new Promise<{ value: number; bytes: number }>((ok) => setTimeout(() => ok(mb(0.1)), 5));
  await Promise.all([1, 2, 3].map(() => cache.get(key, "x", () => (builds++, slow()))));
  assert.equal(builds, 1);
  // a dataset without a version is never kept
  await cache.get({ ...key, version: null }, "y", () => Promise.resolve(mb(0.1)));
  assert.equal(cache.peek({ ...key, version: null }, "y"), undefined);
});

storeTest(
  "prepared datasets: correlations answer the same from a kept frame, and see another instance's import",
  async (t) => {
    await setUp(t);
    const keeping = instance(t, 64), none = instance(t, 0);
    const url = "/api/correlations/analyze?dataset-id=people";
    const post = (app: typeof keeping.app) => app.request(url, jsonBody("POST", { include_kendall: true }));
    const json = async (r: Response) => (assert.equal(r.status, 200, await r.clone().text()), await r.json());
    try {
      const fresh = await json(await post(none.app));
      assert.deepEqual(await json(await post(keeping.app)), fresh);
      const hits = keeping.prepared.stats().hits;
      assert.deepEqual(await json(await post(keeping.app)), fresh);
      // the frame and the columns' rankings were both kept
      assert.equal(keeping.prepared.stats().hits, hits + 2);
      // Spearman alone, from the rankings Kendall's request kept, as without them
      const spearman = (app: typeof keeping.app) =>
        app.request(url, jsonBody("POST", { include_pearson: false, include_spearman: true }));
      const alone = await json(await spearman(keeping.app));
      assert.equal(keeping.prepared.stats().hits, hits + 4);
      assert.deepEqual(alone, await json(await spearman(none.app)));
      assert.equal(alone.kendall, null);
      assert.equal(alone.spearman.y_pred.y_pred, 1);
      const replaced = await t.app.request(`/api/datasets/${t.db}/people?mode=replace`, ndjson(rows(true)));
      assert.equal(replaced.status, 200);
      const after = await json(await post(keeping.app));
      assert.deepEqual(after, await json(await post(none.app)));
      assert.notDeepEqual(after.pearson.y_pred, fresh.pearson.y_pred);
    } finally {
      keeping.close();
      none.close();
    }
  },
);
