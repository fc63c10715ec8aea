import assert from "node:assert/strict";
import { jsonBody, testApp } from "../support/app.ts";

/** 20 individuals: region 0 holds 8 positives of 10, region 1 holds 2 of 10 (P = 10, N = 20). */
function twoRegions() {
  return Array.from({ length: 20 }, (_, i) => ({
    pred: i < 10 ? (i < 8 ? 1 : 0) : (i < 12 ? 1 : 0),
    truth: 1,
    regions: [i < 10 ? 0 : 1],
  }));
}

async function withTask(
  docs: Record<string, unknown>[],
  fn: (t: Awaited<ReturnType<typeof testApp>>) => Promise<void>,
) {
  const t = await testApp();
  try {
    await t.store.insertMany({ db: "geo", collection: "preds" }, docs);
    await t.app.request(
      "/api/tasks/documents",
      jsonBody("POST", { database_name: "geo", data_collection_name: "preds" }),
    );
    await fn(t);
  } finally {
    await t.close();
  }
}

const mapping = { y_pred: "pred", y_true: "truth", region_ids: "regions" };

Deno.test("audit: statistic of two regions against the hand calculation; maps come back", async () => {
  await withTask(twoRegions(), async (t) => {
    const res = await t.app.request(
      "/api/spatial-hitl/task/preds/audit",
      jsonBody("POST", { mapping, equal_opp: false, n_worlds: 200 }),
    );
    assert.equal(res.status, 200, await res.clone().text());
    const body = await res.json();
    assert.equal(body.n_individuals, 20);
    assert.equal(body.n_positives, 10);
    assert.equal(body.regions_source, "region_ids");
    // l0 = L(10,20) = 20 ln 0.5 = -13.8629; l1 = L(8,10) + L(2,10) = 2(8 ln 0.8 + 2 ln 0.2) = -10.0081
    // s = 1 - l1/l0 = 0.2780719051126377, raw S = l1 - l0 = 3.854895140435149 (same for both regions)
    for (const st of body.stats) {
      assert.ok(Math.abs(st.stat - 0.2780719051126377) < 1e-12);
      assert.ok(Math.abs(st.raw_stat - 3.854895140435149) < 1e-12);
      assert.equal(st.n, 10);
      assert.equal(st.is_signif, st.stat >= body.signif_thresh && st.stat > 0);
      assert.ok(st.p_value > 0 && st.p_value <= 1);
    }
    assert.deepEqual(body.stats.map((s: { p: number }) => s.p), [8, 2]);
    assert.ok(Math.abs(body.sbi_score - 0.2780719051126377) < 1e-12);
    assert.equal(body.seed, 42);
    assert.equal(body.rng, "fast");
    assert.match(body.fair_map_html, /<html/i);
    assert.ok(body.fair_map_image.length > 100);
    // the same request gives the same answer
    const again = await (await t.app.request(
      "/api/spatial-hitl/task/preds/audit",
      jsonBody("POST", { mapping, equal_opp: false, n_worlds: 200 }),
    )).json();
    assert.equal(again.signif_thresh, body.signif_thresh);
  });
});

Deno.test("audit: polygons with [lon, lat] points; coordinates in no polygon are counted", async () => {
  // six points west of 0 (5 positive), six east (1 positive), one far away in no polygon
  const docs = Array.from({ length: 12 }, (_, i) => ({
    lon: i < 6 ? -1 - i * 0.1 : 1 + i * 0.1,
    lat: 45,
    y_pred: i < 6 ? (i < 5 ? 1 : 0) : (i === 6 ? 1 : 0),
  }));
  docs.push({ lon: 100, lat: 10, y_pred: 0 });
  await withTask(docs, async (t) => {
    const region = [
      { polygon: [[-10, 40], [0, 40], [0, 50], [-10, 50]] },
      { polygon: [[0, 40], [10, 40], [10, 50], [0, 50]] },
      { polygon: [[50, -5], [60, -5], [60, 5]] },
    ];
    const res = await t.app.request(
      "/api/spatial-hitl/task/preds/audit",
      jsonBody("POST", { region, equal_opp: false, n_worlds: 100 }),
    );
    assert.equal(res.status, 200, await res.clone().text());
    const body = await res.json();
    assert.equal(body.regions_source, "polygons");
    assert.equal(body.unassigned_individuals, 1);
    assert.equal(body.stats.length, 3);
    assert.equal(body.stats[2].n, 0);
    assert.equal(body.stats[2].stat, 0);
    assert.deepEqual(body.stats.slice(0, 2).map((s: { n: number; p: number }) => [s.n, s.p]), [[6, 5], [
      6,
      1,
    ]]);
  });
});

Deno.test("audit: bad requests are 422 naming the field; unknown task 404", async () => {
  await withTask(twoRegions(), async (t) => {
    const post = (body: unknown, name = "preds") =>
      t.app.request(`/api/spatial-hitl/task/${name}/audit`, jsonBody("POST", body));
    const noTruth = await post({ mapping: { y_pred: "pred", region_ids: "regions" } });
    assert.equal(noTruth.status, 422);
    assert.deepEqual((await noTruth.json()).detail[0].loc, ["body", "mapping", "y_true"]);
    const extra = await post({ mapping, surprise: 1 });
    assert.deepEqual((await extra.json()).detail[0], {
      loc: ["body", "surprise"],
      msg: "Extra inputs are not permitted",
      type: "extra_forbidden",
    });
    const worlds = await post({ mapping, n_worlds: 0 });
    assert.deepEqual((await worlds.json()).detail[0].loc, ["body", "n_worlds"]);
    const alpha = await post({ mapping, signif_level: 1 });
    assert.deepEqual((await alpha.json()).detail[0].loc, ["body", "signif_level"]);
    const poly = await post({ mapping, region: [{ polygon: [[0, 0], [200, 0], [1, 1]] }] });
    assert.deepEqual((await poly.json()).detail[0].loc, ["body", "region", 0, "polygon", 1, 0]);
    const short = await post({ mapping, region: [{ polygon: [[0, 0], [1, 1]] }] });
    assert.equal(short.status, 422);
    const none = await post({ mapping: { y_pred: "pred" }, equal_opp: false });
    assert.equal(none.status, 422);
    assert.match(JSON.stringify(await none.json()), /neither regions nor coordinates|region/i);
    assert.equal((await post({ mapping }, "nope")).status, 404);
  });
});
