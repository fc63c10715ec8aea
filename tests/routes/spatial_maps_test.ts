import assert from "node:assert/strict";
import { jsonBody, testApp } from "../support/app.ts";
import { loadConfig } from "../../config.ts";

/** 40 individuals on two squares near Athens: the west one mostly positive, the east one mostly not. */
function docs() {
  return Array.from({ length: 40 }, (_, i) => ({
    lat: 37.9 + (i % 10) * 0.001,
    lon: (i < 20 ? 23.7 : 23.72) + Math.floor(i / 10) * 0.001,
    pred: i < 20 ? (i < 16 ? 1 : 0) : (i < 24 ? 1 : 0),
    truth: 1,
  }));
}

async function auditHtml(env: Record<string, string>): Promise<{ fair: string; dist: string }> {
  const t = await testApp(env);
  try {
    await t.store.insertMany({ db: "geo", collection: "points" }, docs());
    await t.app.request(
      "/api/tasks/documents",
      jsonBody("POST", { database_name: "geo", data_collection_name: "points" }),
    );
    const res = await t.app.request(
      "/api/spatial-hitl/task/points/audit",
      jsonBody("POST", { mapping: { y_pred: "pred", y_true: "truth" }, equal_opp: false, n_worlds: 100 }),
    );
    assert.equal(res.status, 200, await res.clone().text());
    const body = await res.json();
    return { fair: body.fair_map_html, dist: body.distribution_map_html };
  } finally {
    await t.close();
  }
}

Deno.test("audit maps: no tile server by default (embedded base map); MAP_TILE_URL switches to its tiles", async () => {
  const plain = await auditHtml({});
  for (const html of [plain.fair, plain.dist]) {
    assert.doesNotMatch(html, /\{z\}/, "no tile URL template");
    assert.match(html, /img-src data:">/);
    assert.match(html, /"basemap":\{"digits":3,"land":\[\[\[-?\d/); // packed points of land rings
  }
  const url = "https://tiles.example.org/{z}/{x}/{y}.png";
  const tiled = await auditHtml({ MAP_TILE_URL: url });
  for (const html of [tiled.fair, tiled.dist]) {
    assert.ok(html.includes(`"tiles":{"url":"${url}"`), "the tile layer");
    assert.match(html, /img-src data: https:\/\/tiles\.example\.org">/);
    assert.match(html, /"basemap":null/);
  }
});

Deno.test("config: MAP_TILE_URL must be an http(s) template with {z}, {x} and {y}", () => {
  assert.equal(loadConfig({}).MAP_TILE_URL, undefined);
  const ok = "https://{s}.tile.example.org/{z}/{x}/{y}.png";
  assert.equal(loadConfig({ MAP_TILE_URL: ok }).MAP_TILE_URL, ok);
  for (const bad of ["ftp://x/{z}/{x}/{y}", "https://x.org/tiles.png", "javascript:alert(1)//{z}{x}{y}"]) {
    assert.throws(() => loadConfig({ MAP_TILE_URL: bad }), /MAP_TILE_URL/);
  }
});
