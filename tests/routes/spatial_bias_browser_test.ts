/**
 * The toolkit's frontend case in a real browser: Tessera on one loopback port with CORS_ORIGINS naming a
 * second; a page served from that second origin posts an audit to /api/spatial-bias/audit with a bearer
 * token (a preflighted request: JSON body, Authorization) and renders the answer's `stats` as a table.
 * Then the roles: a reviewer audits, keep=true is a steward's, a viewer does neither.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchBrowser, serveApp, userToken } from "../support/browser.ts";
import { jsonBody } from "../support/app.ts";
import { BASE_ENV, login, passwordForm, tokenRequest, withApp } from "./auth_fixtures.ts";

/** 20 individuals: region 0 holds 8 positives of 10, region 1 holds 2 of 10 (all y_true = 1). */
const INDIVIDUALS = Array.from({ length: 20 }, (_, i) => ({
  y_pred: i < 10 ? (i < 8 ? 1 : 0) : (i < 12 ? 1 : 0),
  y_true: 1,
  region_ids: [i < 10 ? 0 : 1],
}));

/** The toolkit frontend's part: post the audit, render `stats` as a table (or the failure). */
const CLIENT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Spatial fairness audit</title></head>
<body><main><h1>Audit</h1><p id="state">waiting</p>
<table><thead><tr><th>idx</th><th>stat</th><th>significant</th></tr></thead><tbody id="stats"></tbody></table>
</main>
<script>
const [api, token] = decodeURIComponent(location.hash.slice(1)).split(" ");
const state = document.getElementById("state");
fetch(api, {
  method: "POST",
  headers: { Authorization: "Bearer " + token, "Content-Type": "application/json" },
  body: JSON.stringify({ indiv_info: ${JSON.stringify(INDIVIDUALS)}, n_worlds: 200 }),
})
  .then(async (r) => {
    const answer = await r.json();
    for (const s of answer.stats ?? []) {
      const row = document.createElement("tr");
      for (const v of [s.idx, s.stat.toFixed(4), s.is_signif ? "yes" : "no"]) {
        const cell = document.createElement("td");
        cell.textContent = String(v);
        row.append(cell);
      }
      document.getElementById("stats").append(row);
    }
    state.textContent = "status " + r.status + ", SBI " + answer.sbi_score?.toFixed(4);
  })
  .catch((e) => { state.textContent = "failed: " + e.name; });
</script></body></html>`;

Deno.test({
  name: "toolkit in Chromium: a page on another origin posts an audit with a bearer token, renders stats",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const page = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () => new Response(CLIENT_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }),
    );
    const origin = `http://127.0.0.1:${page.addr.port}`;
    const app = await serveApp({ CORS_ORIGINS: origin });
    let browser: Browser | null = null;
    try {
      const token = await userToken(app);
      browser = await launchBrowser();
      const tab = await (await browser.newContext()).newPage();
      await tab.goto(`${origin}/#${encodeURIComponent(`${app.url}/api/spatial-bias/audit ${token}`)}`);
      await tab.locator("#state").filter({ hasNotText: "waiting" }).waitFor({ timeout: 30_000 });
      // s = 1 - l1/l0 with l0 = 20 ln 0.5 and l1 = 2(8 ln 0.8 + 2 ln 0.2): 0.2781 in both regions
      assert.equal(await tab.locator("#state").innerText(), "status 200, SBI 0.2781");
      const rows = await tab.locator("#stats tr").allInnerTexts();
      assert.deepEqual(rows.map((r) => r.split("\t").slice(0, 2)), [["0", "0.2781"], ["1", "0.2781"]]);
    } finally {
      await browser?.close();
      await app.close();
      await page.shutdown();
    }
  },
});

Deno.test("toolkit roles: a reviewer audits, keep=true needs a steward, a viewer gets 403", async () => {
  const env = { ...BASE_ENV, TESSERA_USERS: "alice:wonderland,rita:rev:reviewer,vic:view:viewer" };
  await withApp(env, async (app) => {
    const tokenOf = async (username: string, password: string) =>
      (await (await tokenRequest(app, passwordForm({ username, password }))).json()).access_token as string;
    const audit = (token: string, query = "") =>
      app.request(`/api/spatial-bias/audit${query}`, {
        ...jsonBody("POST", { indiv_info: INDIVIDUALS, n_worlds: 20 }),
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      });
    const reviewer = await tokenOf("rita", "rev"), viewer = await tokenOf("vic", "view");
    assert.equal((await audit(reviewer)).status, 200);
    const refused = await audit(reviewer, "?keep=true");
    assert.equal(refused.status, 403);
    assert.match((await refused.json()).detail, /steward/);
    assert.equal((await audit(viewer)).status, 403);
    const steward = (await login(app)).access_token as string;
    assert.equal((await audit(steward, "?keep=true")).status, 200);
    assert.equal((await app.request("/api/spatial-bias/audit", { method: "POST" })).status, 401);
  });
});
