/**
 * The spatial review page without a browser (app.request), on both stores, over eight individuals in
 * two regions whose numbers are worked out by hand:
 *
 *   region 0: y_pred 1, 1, 1, 0  (n 4, p 3, rate 75 %)      overall: 4 of 8 = 50 %
 *   region 1: y_pred 1, 0, 0, 0  (n 4, p 1, rate 25 %)      differences: +25 pp and −25 pp
 *
 * Relabel with a budget of 25 % (C = floor(0.25 · 8) = 2) and a tolerance of 0 (the positives stay 4):
 * the only way to bring both regions to the overall rate is δ0 = −1, δ1 = +1 (2 flips, objective 0);
 * without a probability the flip order is "index", so the first positive of region 0 (row 1) and the
 * first negative of region 1 (row 6) flip: final predictions 0 1 1 0 1 1 0 0.
 *
 * Also: form refusals shown next to their field (422), the run's maps (sandboxed HTML, PNG) and CSV
 * files, the write-back's confirmation and its refusals, unknown runs, and the CSRF check.
 */
import assert from "node:assert/strict";
import { importCsv, type StoreApp, storeTest } from "../support/stores.ts";
import {
  getPage,
  ORIGIN,
  postForm,
  type Session,
  signIn,
  SPOTS_CSV,
  SPOTS_SETTINGS,
} from "../support/console_session.ts";
import { createTaskDocument, getTaskDocument } from "../../services/tasks/task_documents.ts";

async function setUp(t: StoreApp): Promise<Session> {
  await importCsv(t, "spots", SPOTS_CSV);
  await createTaskDocument(t, { database_name: t.db, data_collection_name: "spots", status: "pending" });
  return await signIn(t, "spots");
}

const get = getPage, post = postForm;

/** The settings a reviewer sends: statistical parity, 19 worlds, the suggested mapping. */
const SETTINGS = {
  ...SPOTS_SETTINGS,
  region: "",
  seed: "42",
  rng: "fast",
  full_distribution: "false",
  budget_pct: "25",
  tolerance_pct: "0",
  approx: "true",
  work_limit: "30",
  flip_order: "",
  default_boundary: "0.5",
  train_ratio: "0.7",
};

/** Sends the settings with a button; the run page's path it redirects to. */
async function run(t: StoreApp, s: Session, action: string, extra: Record<string, string> = {}) {
  const res = await post(t, s, "/console/tasks/spots/review", { ...SETTINGS, ...extra, action });
  assert.equal(res.status, 303, await res.text());
  const to = res.headers.get("location")!;
  assert.match(to, /^\/console\/tasks\/spots\/runs\/[^/#]+#result$/);
  return to.replace("#result", "");
}

/** The rows of the "Regions" table: region, individuals, positives, rate, difference. */
function regionRows(html: string) {
  const table = html.slice(html.indexOf('<caption class="visually-hidden">Regions</caption>'));
  const body = table.slice(table.indexOf("<tbody>"), table.indexOf("</tbody>"));
  return [...body.matchAll(/<tr[^>]*>(.*?)<\/tr>/gs)].map((m) =>
    [...m[1].matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/gs)].map((c) =>
      c[1].replace(/<span class="visually-hidden">.*?<\/span>/g, "").replace(/<[^>]+>/g, "").trim()
    )
  );
}

const unescape = (html: string) =>
  html.replaceAll("&#39;", "'").replaceAll("&quot;", '"').replaceAll("&lt;", "<").replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");

/** The error shown next to a field (its id `f-…`), or null. */
function fieldError(html: string, id: string): string | null {
  const m = new RegExp(`<p class="error" id="${id}-error">([^<]*)</p>`).exec(html);
  return m ? unescape(m[1]) : null;
}

storeTest("console review: an audit shows its regions, maps and CSV as worked out by hand", async (t) => {
  const s = await setUp(t);
  const page = await (await get(t, s, "/console/tasks/spots")).text();
  // the mapping's choices come from the collection; the suggested fields are chosen
  assert.match(
    page,
    /<select id="f-map_y_pred" name="map_y_pred"[^>]*>.*<option value="y_pred" selected>/s,
  );
  assert.match(page, /<option value="name" ?>name<\/option>/);

  const path = await run(t, s, "audit");
  const res = await get(t, s, path);
  assert.equal(res.status, 200);
  const html = await res.text();
  const rows = regionRows(html).map((r) => r.slice(0, 5));
  assert.deepEqual(rows.sort(), [
    ["0", "4", "3", "75.0 %", "+25.0 pp"],
    ["1", "4", "1", "25.0 %", "−25.0 pp"],
  ]);
  assert.match(html, /Overall rate<\/dt><dd><span class="stat-value">50.0 %/);
  assert.match(html, /Earlier runs/);

  // the maps: PNG, and the HTML page sandboxed and frameable only by the console
  const png = await get(t, s, `${path}/maps/fair_map_image`);
  assert.equal(png.headers.get("content-type"), "image/png");
  assert.deepEqual([...new Uint8Array(await png.arrayBuffer()).slice(1, 4)], [0x50, 0x4e, 0x47]);
  const map = await get(t, s, `${path}/maps/fair_map_html`);
  assert.match(map.headers.get("content-type")!, /^text\/html/);
  assert.equal(map.headers.get("content-security-policy"), "sandbox allow-scripts; frame-ancestors 'self'");
  assert.equal(map.headers.get("x-frame-options"), "SAMEORIGIN");
  assert.match(await map.text(), /^<!doctype html>/);
  assert.equal((await get(t, s, `${path}/maps/no_such_map`)).status, 404);
  // the console's session is needed (a bearer token or nothing is sent to sign-in)
  const anonymous = await t.app.request(`${path}/maps/fair_map_image`);
  assert.equal(anonymous.status, 303);

  // region statistics: n, p, rate and rate difference by hand
  const csv = await get(t, s, `${path}/regions.csv`);
  assert.match(
    csv.headers.get("content-disposition")!,
    /^attachment; filename="spots-audit-.*-regions\.csv"$/,
  );
  const lines = (await csv.text()).trimEnd().split("\r\n").map((l) => l.split(","));
  assert.deepEqual(lines[0].slice(0, 6), ["idx", "region_id", "n", "p", "rate", "rate_difference"]);
  assert.deepEqual(lines.slice(1).map((l) => l.slice(0, 6)), [
    ["0", "0", "4", "3", "0.75", "0.25"],
    ["1", "1", "4", "1", "0.25", "-0.25"],
  ]);
  // an audit has no thresholds and no predictions
  assert.equal((await get(t, s, `${path}/thresholds.csv`)).status, 404);
  assert.equal((await get(t, s, `${path}/predictions.csv`)).status, 404);
  assert.equal((await get(t, s, "/console/tasks/spots/runs/no-such-run")).status, 404);
});

storeTest("console review: refused settings are shown next to their field, the values kept", async (t) => {
  const s = await setUp(t);
  const refused = async (fields: Record<string, string>, action = "audit") => {
    const res = await post(t, s, "/console/tasks/spots/review", { ...SETTINGS, ...fields, action });
    assert.equal(res.status, 422);
    return await res.text();
  };
  let html = await refused({ n_worlds: "0" });
  assert.equal(fieldError(html, "f-n_worlds"), "Input should be greater than or equal to 1");
  assert.match(html, /<input id="f-n_worlds"[^>]*aria-invalid="true"/);
  assert.match(html, /id="f-signif_level"[^>]*value="0.05"/); // kept

  html = await refused({ budget_pct: "150" }, "relabel");
  assert.equal(fieldError(html, "f-budget_pct"), "Enter a percentage from 0 to 100.");
  html = await refused({ signif_level: "abc" });
  assert.equal(fieldError(html, "f-signif_level"), "Enter a number.");
  html = await refused({ region_mode: "polygons", region: "[[1, 2]" });
  assert.match(fieldError(html, "f-region")!, /^Not valid JSON/);
  html = await refused({ region_mode: "polygons", region: '[{"polygon": [[10, 50], [11, 50]]}]' });
  assert.match(fieldError(html, "f-region")!, /^Polygon 1: List should have at least 3 items/);
  // a mapping the data refuses: the service's 422 names mapping.y_pred, shown at that select
  html = await refused({ map_y_pred: "lat" });
  assert.match(fieldError(html, "f-map_y_pred")!, /lat/);
  // a form without its CSRF token changes nothing
  const forged = await t.app.request("/console/tasks/spots/review", {
    method: "POST",
    headers: { origin: ORIGIN, cookie: s.cookie },
    body: new URLSearchParams({ ...SETTINGS, action: "audit" }),
  });
  assert.equal(forged.status, 403);
});

storeTest("console review: relabel, confirm the write-back, then every document has the field", async (t) => {
  const s = await setUp(t);
  const path = await run(t, s, "relabel");
  const html = await (await get(t, s, path)).text();
  assert.match(html, /<caption>Metrics before and after<\/caption>/);
  assert.match(html, /Flips<\/dt><dd><span class="stat-value">2<\/span><span class="stat-note">of 2 allowed/);
  // before → after: both regions at the overall rate
  const rows = regionRows(html).map((r) => [r[0], r[2], r[3], r[4]]);
  assert.deepEqual(rows.sort(), [
    ["0", "−1", "75.0 %→50.0 %", "+25.0 pp→0.0 pp"],
    ["1", "+1", "25.0 %→50.0 %", "−25.0 pp→0.0 pp"],
  ]);
  const preds = (await (await get(t, s, `${path}/predictions.csv`)).text()).trimEnd().split("\r\n");
  assert.deepEqual(preds.slice(1).map((l) => l.split(",").slice(2).join(",")), [
    "0,true",
    "1,false",
    "1,false",
    "0,false",
    "1,false",
    "1,true",
    "0,false",
    "0,false",
  ]);

  // refusals at the confirmation step, next to "New field" (or above it)
  const confirm = (field: string) => get(t, s, `${path}/writeback?new_field=${encodeURIComponent(field)}`);
  let res = await confirm("y_pred");
  assert.equal(res.status, 422);
  assert.match(fieldError(await res.text(), "f-new_field")!, /mapping key's default name/);
  res = await confirm("1bad");
  assert.equal(res.status, 422);
  assert.match(fieldError(await res.text(), "f-new_field")!, /^Use letters, digits and _/);
  const audit = await run(t, s, "audit");
  res = await get(t, s, `${audit}/writeback?new_field=fair`);
  assert.equal(res.status, 409);
  assert.match(await res.text(), /is an audit: it has no predictions to write/);

  // the confirmation: 8 records get the field, 2 change from the original prediction
  res = await confirm("fair");
  assert.equal(res.status, 200);
  const page = await res.text();
  assert.match(page, /Records that get the field<\/dt><dd><span class="stat-value">8</);
  assert.match(page, /Change from the original prediction<\/dt><dd><span class="stat-value">2</);
  const runId = path.split("/").at(-1)!;
  const done = await post(t, s, `${path}/writeback`, { new_field: "fair" });
  assert.equal(done.status, 303);
  assert.equal(done.headers.get("location"), `${path}?written=fair#writeback`);
  const after = await (await get(t, s, `${path}?written=fair`)).text();
  assert.match(after, /<strong>8<\/strong> records matched, <strong>8<\/strong> modified/);
  const task = await getTaskDocument(t, "spots");
  assert.equal((task.last_writeback as { run_id: string }).run_id, runId);
  const docs = await t.store.list({ db: t.db, collection: "spots" });
  assert.deepEqual(docs.map((d) => [d.name, d.fair]).sort(), [
    ["a1", 0],
    ["a2", 1],
    ["a3", 1],
    ["a4", 0],
    ["b1", 1],
    ["b2", 1],
    ["b3", 0],
    ["b4", 0],
  ]);

  // mark done comes back to the run page
  const marked = await post(t, s, "/console/tasks/spots/done", { back: path });
  assert.equal(marked.headers.get("location"), `${path}?marked=spots`);
  assert.equal((await getTaskDocument(t, "spots")).status, "done");
  assert.match(
    await (await get(t, s, `${path}?marked=spots`)).text(),
    /&#39;spots&#39; is marked done\.|'spots' is marked done\./,
  );
});

storeTest(
  "console review: a task whose collection is empty says so, and a run of another task is not found",
  async (t) => {
    const s = await setUp(t);
    await createTaskDocument(t, {
      database_name: t.db,
      data_collection_name: "nothing_yet",
      status: "pending",
    });
    const res = await get(t, s, "/console/tasks/nothing_yet");
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(html, /has no documents yet/);
    assert.doesNotMatch(html, /Run audit/);
    const path = await run(t, s, "audit");
    const other = path.replace("/spots/", "/nothing_yet/");
    assert.equal((await get(t, s, other)).status, 404);
    assert.equal((await get(t, s, `${other}/maps/fair_map_image`)).status, 404);
    assert.equal((await get(t, s, "/console/tasks/no_such_task")).status, 404);
  },
);

storeTest(
  "console review: settings sent after the session ended come back filled in, nothing ran",
  async (t) => {
    const s = await setUp(t);
    const sessions = { db: t.config.TESSERA_DB, collection: "_console_sessions" };
    for (const doc of await t.store.list(sessions)) {
      await t.store.patch(sessions, doc._id, { expires_at: 0, refresh_expires_at: 1 });
    }
    const late = await t.app.request("/console/tasks/spots/review", {
      method: "POST",
      headers: { origin: ORIGIN, cookie: s.cookie, referer: `${ORIGIN}/console/tasks/spots` },
      body: new URLSearchParams({ _csrf: s.csrf, ...SETTINGS, n_worlds: "7", action: "relabel" }),
    });
    assert.equal(late.status, 303);
    const signInAt = new URL(late.headers.get("location")!, ORIGIN);
    assert.equal(signInAt.searchParams.get("next"), "/console/tasks/spots");
    const pending = signInAt.searchParams.get("pending")!;
    assert.ok(pending);
    const again = await t.app.request("/console/sign-in", {
      method: "POST",
      headers: { origin: ORIGIN },
      body: new URLSearchParams({ username: "alice", password: "", next: "/console/tasks/spots", pending }),
    });
    const cookie = again.headers.get("set-cookie")!.split(";")[0];
    const back = again.headers.get("location")!;
    assert.equal(back, `/console/tasks/spots?pending=${encodeURIComponent(pending)}`);
    const html = await (await t.app.request(back, { headers: { cookie } })).text();
    assert.match(html, /Your session had expired before these settings were sent, so nothing ran/);
    assert.match(html, /id="f-n_worlds"[^>]*value="7"/);
    assert.match(html, /No run yet/);
  },
);
