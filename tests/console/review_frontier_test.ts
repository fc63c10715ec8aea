/**
 * The review's budget frontier without a browser, over the eight individuals of SPOTS_CSV
 * (region 0: 3 positives of 4, region 1: 1 of 4; statistical parity, tolerance 0): budgets 0 % and 25 %
 * are C = 0 (no flip, SBI as before) and C = 2 (one flip each way brings both regions to 50 %).
 */
import assert from "node:assert/strict";
import { importCsv, type StoreApp, storeTest } from "../support/stores.ts";
import { createTaskDocument } from "../../services/tasks/task_documents.ts";
import { postForm, signIn, SPOTS_CSV, SPOTS_SETTINGS } from "../support/console_session.ts";

const SETTINGS = {
  ...SPOTS_SETTINGS,
  tolerance_pct: "0",
  approx: "true",
  work_limit: "30",
};

async function setUp(t: StoreApp) {
  await importCsv(t, "spots", SPOTS_CSV);
  await createTaskDocument(t, { database_name: t.db, data_collection_name: "spots", status: "pending" });
  const s = await signIn(t, "spots");
  assert.match(s.page, /<input id="f-frontier_pcts"[^>]*value="5, 10, 20, 30, 40"/);
  assert.match(s.page, /<button[^>]*name="action"[^>]*value="frontier"/);
  const send = (fields: Record<string, string>) =>
    postForm(t, s, "/console/tasks/spots/review", { ...SETTINGS, ...fields, action: "frontier" });
  return { cookie: s.cookie, send };
}

storeTest("console frontier: the curve and table link each budget's relabel run", async (t) => {
  const { cookie, send } = await setUp(t);
  const res = await send({ frontier_pcts: "25, 0" });
  assert.equal(res.status, 303, await res.text());
  const to = res.headers.get("location")!;
  const m = /^\/console\/tasks\/spots\/frontier\?runs=([^,]+),([^,]+)$/.exec(to);
  assert.ok(m, to);
  const [low, high] = [m[1], m[2]]; // ascending: 0 % first
  const html = await (await t.app.request(to, { headers: { cookie } })).text();
  const svg = html.slice(html.indexOf('<svg id="frontier-chart"'), html.indexOf("</svg>"));
  assert.match(svg, /role="group"/);
  assert.match(svg, /<title id="frontier-chart-title">Budget frontier/);
  const links = [...svg.matchAll(/<a href="([^"]+)" aria-label="([^"]+)"/g)];
  assert.deepEqual(links.map((l) => l[1]), [
    `/console/tasks/spots/runs/${low}`,
    `/console/tasks/spots/runs/${high}`,
  ]);
  assert.match(links[0][2], /^Flip budget 0: SBI after/);
  assert.match(links[1][2], /^Flip budget 2: SBI after 0\.0000, accuracy after/);
  // the table: the same points, each linked
  assert.match(
    html,
    new RegExp(`<th scope="row" class="num"><a href="/console/tasks/spots/runs/${high}">2</a>`),
  );
  // a point's link opens that relabel's result
  const point = await t.app.request(`/console/tasks/spots/runs/${high}`, { headers: { cookie } });
  assert.equal(point.status, 200);
  assert.match(await point.text(), /Relabel/);
});

storeTest("console frontier: refused budgets are shown next to the field", async (t) => {
  const { send } = await setUp(t);
  for (
    const [value, error] of [
      ["abc", "Enter percentages from 0 to 100, separated by commas."],
      ["", "List should have at least 1 item after validation, not 0"],
      [Array.from({ length: 21 }, (_, i) => i).join(","), "List should have at most 20 items"],
    ]
  ) {
    const res = await send({ frontier_pcts: value });
    assert.equal(res.status, 422);
    const m = /<p class="error" id="f-frontier_pcts-error">([^<]*)<\/p>/.exec(await res.text());
    assert.ok(m?.[1].startsWith(error.slice(0, 20)), `${value}: ${m?.[1]}`);
  }
});
