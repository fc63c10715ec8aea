/**
 * Running mitigations (issue 35, item 6): a relabel or threshold is listed from its start with state
 * "running", its phase and its solver's progress; POST .../runs/{run_id}/cancel stops it within a second
 * (its worker replaced), its own request answers 409 at once, nothing of its run remains, and the next
 * mitigation gets a worker. A run whose server stopped drops out of the list once its lease ends.
 *
 * Cancelling needs workers: with WORKERS=0 a task holds the event loop until it ends (docs/reliability.md),
 * so these tests are not run inline.
 */
import assert from "node:assert/strict";
import { type StoreApp, storeTest } from "../support/stores.ts";
import { jsonBody } from "../support/app.ts";
import { unfinishedExactRows } from "../support/long_mitigation.ts";
import { prunesSettled } from "../../services/spatial/run_pruning.ts";
import { RunWriter } from "../../services/spatial/run_writer.ts";

const inline = Deno.env.get("WORKERS") === "0";

/** An exact relabel of `unfinishedExactRows()` that would run for its whole work limit of 30 s. */
const LONG = { equal_opp: false, approx: false, work_limit: 30, n_worlds: 19, include_maps: false };

/** The solver's own phases, as the worker reports them (core/spatial/mitigate/status.ts). */
const SOLVER_PHASES = ["zero gap", "column generation", "integer D", "exact search"];

async function withTask(t: StoreApp, name: string, rows: Record<string, unknown>[]) {
  await t.store.insertMany({ db: t.db, collection: name }, rows);
  const res = await t.app.request(
    "/api/tasks/documents",
    jsonBody("POST", { database_name: t.db, data_collection_name: name }),
  );
  assert.equal(res.status, 201, await res.clone().text());
}

const path = (task: string, rest: string) => `/api/spatial-hitl/task/${task}/${rest}`;
const post = (t: StoreApp, task: string, rest: string, body: unknown = {}) =>
  t.app.request(path(task, rest), jsonBody("POST", body));
const get = (t: StoreApp, task: string, rest: string) => t.app.request(path(task, rest));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Entry {
  run_id: string;
  kind: string;
  state: string;
  phase?: string;
  objective?: number | null;
  bound?: number | null;
  started_at?: string;
  updated_at?: string;
  requested_by: string | null;
}

/** The task's listed runs. */
async function list(t: StoreApp, task: string): Promise<Entry[]> {
  const res = await get(t, task, "runs");
  assert.equal(res.status, 200, await res.clone().text());
  return await res.json();
}

/** Waits (up to 30 s) until the task lists a running run in one of the solver's own phases. */
async function solving(t: StoreApp, task: string): Promise<Entry> {
  const until = Date.now() + 30_000;
  for (;;) {
    const running = (await list(t, task)).find((r) => r.state === "running");
    if (running?.phase && SOLVER_PHASES.includes(running.phase)) return running;
    assert.ok(Date.now() < until, `no run was listed solving: ${JSON.stringify(running)}`);
    await sleep(50);
  }
}

/** What remains of a run in Tessera's database: its header and its chunks. */
async function leftOf(t: StoreApp, runId: string) {
  const db = t.config.TESSERA_DB;
  return {
    header: await t.store.get({ db, collection: "spatial_runs" }, runId),
    chunks: await t.store.count({ db, collection: "spatial_run_chunks" }, { run_id: runId }),
  };
}

storeTest(
  "cancel: a long exact relabel lists as running, stops within 1 s of its cancel, leaves nothing; the next runs",
  async (t) => {
    await withTask(t, "long", unfinishedExactRows());
    const started = Date.now();
    const pending = post(t, "long", "mitigate/relabel", LONG);
    const running = await solving(t, "long");
    assert.equal(running.kind, "relabel");
    assert.equal(running.requested_by, "anonymous");
    assert.ok(Math.abs(Date.parse(running.started_at!) - started) < 5_000, running.started_at);
    assert.ok(Date.parse(running.updated_at!) >= Date.parse(running.started_at!));
    assert.ok("objective" in running && "bound" in running);
    // not kept yet: its answer is a 409, as is its map
    assert.equal((await get(t, "long", `runs/${running.run_id}`)).status, 409);

    const asked = performance.now();
    const cancel = await post(t, "long", `runs/${running.run_id}/cancel`);
    const res = await pending;
    const answered = performance.now() - asked;
    assert.ok(answered < 1000, `the relabel answered ${answered.toFixed(0)} ms after the cancel`);
    assert.equal(res.status, 409);
    const body = await res.json();
    assert.equal(body.run_id, running.run_id);
    assert.equal(body.state, "cancelled");
    assert.match(body.detail, /^the relabel was cancelled before it finished/);
    assert.equal(cancel.status, 200, await cancel.clone().text());
    assert.deepEqual(
      { ...await cancel.json(), cancelled_at: "" },
      { run_id: running.run_id, kind: "relabel", state: "cancelled", cancelled_at: "" },
    );

    // nothing of it remains, listed or stored
    assert.deepEqual(await list(t, "long"), []);
    assert.deepEqual(await leftOf(t, running.run_id), { header: null, chunks: 0 });
    assert.equal((await post(t, "long", `runs/${running.run_id}/cancel`)).status, 404);

    // the solver's worker was replaced: the next mitigation does not wait for the cancelled search
    const t0 = performance.now();
    const next = await post(t, "long", "mitigate/relabel", { ...LONG, approx: true, work_limit: 10 });
    assert.equal(next.status, 200, await next.clone().text());
    const kept = await next.json();
    assert.ok([0, 1].includes(kept.solver_status_code));
    assert.ok(performance.now() - t0 < 15_000, `${performance.now() - t0} ms`);
    const listed = await list(t, "long");
    assert.deepEqual(listed.map((r) => [r.run_id, r.state]), [[kept.run_id, "complete"]]);
    assert.equal(listed[0].phase, undefined);
    // a finished run cannot be cancelled; an unknown one is not found
    const finished = await post(t, "long", `runs/${kept.run_id}/cancel`);
    assert.equal(finished.status, 409);
    assert.match((await finished.json()).detail, /has finished/);
    const unknown = await post(t, "long", "runs/0123456789abcdef01234567/cancel");
    assert.equal(unknown.status, 404);
    assert.match((await unknown.json()).detail, /no run '0123456789abcdef01234567' for task 'long'/);
    assert.equal((await post(t, "nope", `runs/${kept.run_id}/cancel`)).status, 404);
  },
  { ignore: inline },
);

storeTest(
  "cancel: a threshold asked to stop by another instance stops within a second; the cancel answers once",
  async (t) => {
    const rows = unfinishedExactRows().map((r, i) => ({ ...r, y_pred_prob: ((i * 7919) % 1000) / 1000 }));
    await withTask(t, "long", rows);
    const pending = post(t, "long", "mitigate/threshold", { ...LONG, train_ratio: 0.9 });
    const running = await solving(t, "long");
    assert.equal(running.kind, "threshold");
    // another instance's cancelRun marks the header; this instance's run reads it within a tick
    const runs = { db: t.config.TESSERA_DB, collection: "spatial_runs" };
    const asked = performance.now();
    const marked = await t.store.compareAndSet(runs, running.run_id, { state: "running" }, {
      cancel_requested_at: new Date().toISOString(),
      cancelled_by: "elsewhere",
    });
    assert.ok(marked);
    const res = await pending;
    const answered = performance.now() - asked;
    assert.ok(answered < 1000, `the threshold answered ${answered.toFixed(0)} ms after the mark`);
    assert.equal(res.status, 409);
    assert.equal((await res.json()).state, "cancelled");
    assert.deepEqual(await leftOf(t, running.run_id), { header: null, chunks: 0 });
  },
  { ignore: inline },
);

storeTest(
  "cancel: a run whose server stopped is not listed, cannot be cancelled, and is removed",
  async (t) => {
    await withTask(t, "small", unfinishedExactRows().slice(0, 200));
    const runs = { db: t.config.TESSERA_DB, collection: "spatial_runs" };
    const chunks = { db: t.config.TESSERA_DB, collection: "spatial_run_chunks" };
    const header = (id: string, leaseUntil: number) => ({
      _id: id,
      task: "small",
      database: t.db,
      collection: "small",
      kind: "relabel",
      state: "running",
      created_at: new Date(Date.now() - 60_000).toISOString(),
      started_at: new Date(Date.now() - 60_000).toISOString(),
      requested_by: "bob",
      generation: null,
      mapping: {},
      summary: {},
      layout: {
        answer: 0,
        maps: [{ name: "audit_before_mitigation.fair_map_html", format: "html", chunks: 1 }],
      },
      progress: { phase: "exact search", objective: null, bound: null, at: new Date().toISOString() },
      lease_until: new Date(leaseUntil).toISOString(),
      cancel_requested_at: null,
      cancelled_by: null,
    });
    // one whose lease ran out a second ago (its process died), with a map chunk; one still leased
    await t.store.insertMany(runs, [header("dead", Date.now() - 1000), header("alive", Date.now() + 60_000)]);
    await t.store.insertMany(chunks, [{ _id: "dead:m0:0", run_id: "dead", text: "<p>" }]);
    const listed = await list(t, "small");
    assert.deepEqual(listed.map((r) => [r.run_id, r.state, r.phase, r.requested_by]), [
      ["alive", "running", "exact search", "bob"],
    ]);
    const dead = await post(t, "small", "runs/dead/cancel");
    assert.equal(dead.status, 409);
    assert.match((await dead.json()).detail, /its server stopped without finishing it/);
    assert.equal((await get(t, "small", "runs/dead")).status, 404);
    // the task's next save removes it, chunks and all; the leased one stays
    const next = await post(t, "small", "mitigate/relabel", {
      equal_opp: false,
      n_worlds: 19,
      include_maps: false,
    });
    assert.equal(next.status, 200, await next.clone().text());
    await prunesSettled();
    assert.deepEqual(await leftOf(t, "dead"), { header: null, chunks: 0 });
    assert.ok(await t.store.get(runs, "alive"));
  },
);

storeTest("cancel: a run abandoned while a part was still to come writes nothing more", async (t) => {
  await withTask(t, "small", unfinishedExactRows().slice(0, 20));
  const deps = { store: t.store, config: t.config };
  const context = {
    kind: "relabel" as const,
    task: "small",
    source: { db: t.db, collection: "small", generation: null },
    mapping: {} as never,
  };
  const writer = new RunWriter(deps, context);
  await writer.begin(
    { phase: "loading", objective: null, bound: null, at: new Date().toISOString() },
    "2099-01-01",
  );
  assert.equal((await list(t, "small"))[0].run_id, writer.id);
  await writer.abandon();
  // a part handed over after a cancel (the work goes on for a moment) is never written
  writer.writeMaps({ fair_map_html: "<p>late</p>" }, "audit_before_mitigation.");
  await assert.rejects(writer.keep({ n_flips: 0 }), /abandoned/);
  assert.deepEqual(await leftOf(t, writer.id), { header: null, chunks: 0 });
  // an id that is taken is a 409
  const again = new RunWriter(deps, context, writer.id);
  await again.begin({ phase: "loading", objective: null, bound: null, at: "" }, "2099-01-01");
  const taken = new RunWriter(deps, context, writer.id);
  await assert.rejects(
    taken.begin({ phase: "loading", objective: null, bound: null, at: "" }, "2099-01-01"),
    {
      name: "ConflictError",
    },
  );
  await again.abandon();
});

storeTest("cancel: the bearer token is required", async (t) => {
  const res = await post(t, "long", "runs/0123456789abcdef01234567/cancel");
  assert.equal(res.status, 401);
}, { auth: true });
