import assert from "node:assert/strict";
import { jsonBody, testApp } from "../support/app.ts";
import { mapPoints } from "../../services/spatial/audit_maps.ts";
import type { Individuals } from "../../core/spatial/types.ts";

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
    assert.equal(noTruth.status, 409);
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
    assert.equal((await post({ mapping }, "nope")).status, 404);
  });
});

const audit = (t: Awaited<ReturnType<typeof testApp>>, body: unknown) =>
  t.app.request("/api/spatial-hitl/task/preds/audit", jsonBody("POST", body));

/** The one detail item of a refusal: a 422, or a 409 when the documents decide it (issue 36). */
async function detailOf(res: Response, status = 422) {
  assert.equal(res.status, status, await res.clone().text());
  const { detail } = await res.json();
  assert.equal(detail.length, 1, JSON.stringify(detail));
  return detail[0];
}

/** The one detail item of a 409: a refusal the task's documents decide (issue 36). */
const dataDetailOf = (res: Response) => detailOf(res, 409);

Deno.test("audit: defaults n_worlds=400, signif_level=0.005, equal_opp=true are applied", async () => {
  // twoRegions with y_true = 0 for 8, 9 (region 0) and 18, 19 (region 1), all four predicted 0
  const docs = twoRegions().map((d, i) => ({ ...d, truth: [8, 9, 18, 19].includes(i) ? 0 : 1 }));
  await withTask(docs, async (t) => {
    const res = await audit(t, { mapping });
    assert.equal(res.status, 200, await res.clone().text());
    const body = await res.json();
    assert.equal(body.n_worlds, 400);
    assert.equal(body.signif_level, 0.005);
    // equal opportunity: only the 16 individuals with y_true = 1, 10 of them predicted 1
    assert.equal(body.n_individuals, 16);
    assert.equal(body.n_positives, 10);
    assert.deepEqual(body.stats.map((s: { n: number; p: number }) => [s.n, s.p]), [[8, 8], [8, 2]]);
    // p = (1 + #{w: M_w >= s}) / (W + 1): a whole number of 401ths when W = 400 worlds ran
    for (const st of body.stats) assert.ok(Math.abs(st.p_value * 401 - Math.round(st.p_value * 401)) < 1e-9);
  });
});

Deno.test("audit: out-of-range settings and unknown keys are 422 with loc naming the field", async () => {
  await withTask(twoRegions(), async (t) => {
    const square = [[0, 0], [1, 0], [1, 1]];
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ seed: -1 }, ["body", "seed"]],
      [{ seed: 1.5 }, ["body", "seed"]],
      [{ seed: 2 ** 32 }, ["body", "seed"]],
      [{ rng: "mt19937" }, ["body", "rng"]],
      [{ n_worlds: 100_001 }, ["body", "n_worlds"]],
      [{ signif_level: 0 }, ["body", "signif_level"]],
      [{ signif_level: 1 }, ["body", "signif_level"]],
      [{ mapping: { ...mapping, zone: "regions" } }, ["body", "mapping", "zone"]],
      [{ region: [{ polygon: square, name: "north" }] }, ["body", "region", 0, "name"]],
    ];
    for (const [extra, loc] of cases) {
      const item = await detailOf(await audit(t, { mapping, ...extra }));
      assert.deepEqual(item.loc, loc, JSON.stringify(extra));
    }
    const unknown = await detailOf(await audit(t, { mapping: { ...mapping, zone: "regions" } }));
    assert.equal(unknown.type, "extra_forbidden");
  });
});

Deno.test("audit: data a reviewer must fix is 422 with a message saying what, where and how often", async () => {
  const forty = Array.from({ length: 40 }, (_, i) => ({ pred: i % 2, lat: 45 + i / 100, lon: 7 }));
  await withTask(forty, async (t) => {
    // a typo in a mapped field is refused, not dropped for k-means regions
    assert.deepEqual(
      await dataDetailOf(await audit(t, { mapping: { y_pred: "pred", region_ids: "zone_typo" } })),
      {
        loc: ["body", "mapping", "region_ids"],
        msg:
          "field 'zone_typo' (mapped to region_ids) is missing in 40 of 40 documents; a field the request " +
          "maps must be in every document",
        type: "value_error",
      },
    );
    const lat = await dataDetailOf(
      await audit(t, { mapping: { y_pred: "pred", lat: "typo" }, equal_opp: false }),
    );
    assert.deepEqual(lat.loc, ["body", "mapping", "lat"]);
    assert.match(lat.msg, /^field 'typo' \(mapped to lat\) is missing in 40 of 40 documents/);
  });
  await withTask([{ pred: 1 }, { pred: 0 }], async (t) => {
    assert.deepEqual(await dataDetailOf(await audit(t, { mapping: { y_pred: "pred" }, equal_opp: false })), {
      loc: ["body", "mapping"],
      msg: "neither regions nor coordinates: map region_ids, or lat and lon, for every individual in scope",
      type: "value_error",
    });
  });
  const beyond = [{ pred: 1, truth: 1, regions: [0] }, { pred: 0, truth: 1, regions: [1, 3] }];
  await withTask(beyond, async (t) => {
    const square = [[0, 0], [1, 0], [1, 1], [0, 1]];
    const item = await dataDetailOf(
      await audit(t, { mapping, region: [{ polygon: square }, { polygon: square }] }),
    );
    assert.deepEqual(item.loc, ["body", "region"]);
    assert.match(
      item.msg,
      /^region id 3 of document \S+ \(position 1\) is beyond the polygon list \(2 polygons, ids 0\.\.1\)$/,
    );
  });
  const badTruth = twoRegions().map((d, i) => (i === 3 ? { ...d, truth: 2 } : d));
  await withTask(badTruth, async (t) => {
    const item = await dataDetailOf(await audit(t, { mapping }));
    assert.deepEqual(item.loc, ["body", "mapping", "y_true"]);
    assert.match(
      item.msg,
      /^field 'truth' \(mapped to y_true\) must be 0 or 1; document \S+ \(position 3\) has 2$/,
    );
  });
  await withTask([{ y_pred: 1, lat: 10, lon: 7 }, { y_pred: 0, lat: 10, lon: 200 }], async (t) => {
    const item = await dataDetailOf(await audit(t, { equal_opp: false }));
    assert.deepEqual(item.loc, ["body", "mapping", "lon"]);
    assert.match(
      item.msg,
      /^field 'lon' \(mapped to lon\) must be a number in \[-180, 180\]; document \S+ \(position 1\) has 200$/,
    );
  });
});

Deno.test("audit: k-means regions do not move with the Monte Carlo seed (they use a fixed seed)", async () => {
  // 60 points in three far-apart blobs of 20: k = max(5, floor(sqrt(60)/2)) = 5 clusters
  const docs = Array.from({ length: 60 }, (_, i) => ({
    y_pred: i % 3 === 0 ? 1 : 0,
    lat: [10, 40, -30][i % 3] + (i % 7) * 0.01,
    lon: [0, 60, 120][i % 3] + (i % 5) * 0.01,
  }));
  await withTask(docs, async (t) => {
    const regionsOf = async (seed: number) => {
      const res = await audit(t, { equal_opp: false, n_worlds: 20, seed });
      assert.equal(res.status, 200, await res.clone().text());
      const body = await res.json();
      assert.equal(body.regions_source, "kmeans");
      return body.stats.map((s: { region_id: number; n: number; p: number }) => [s.region_id, s.n, s.p]);
    };
    const a = await regionsOf(1);
    assert.equal(a.reduce((sum: number, r: number[]) => sum + r[1], 0), 60);
    assert.deepEqual(await regionsOf(987_654_321), a);
  });
});

Deno.test("mapPoints: more than 10,000 individuals draw 10,000 unless full_distribution", () => {
  const n = 12_345;
  const ind: Individuals = {
    n,
    docIds: [],
    yPred: new Uint8Array(n),
    yTrue: null,
    lat: Float64Array.from({ length: n }, (_, i) => -60 + i / 1000),
    lon: Float64Array.from({ length: n }, (_, i) => i / 100),
    regionIds: null,
    prob: null,
  };
  const positions = Int32Array.from({ length: n }, (_, i) => i);
  const cls = Uint8Array.from({ length: n }, (_, i) => i % 2);
  const sampled = mapPoints(ind, positions, cls, false, 42);
  assert.equal(sampled.drawnOf, n);
  assert.equal(sampled.points!.lon.length, 10_000);
  // each dot is one individual's own coordinates and class, no individual twice
  const seen = new Set<number>();
  for (let k = 0; k < 10_000; k++) {
    const i = Math.round(Number(sampled.points!.lon[k]) * 100);
    assert.equal(sampled.points!.lat[k], ind.lat![i]);
    assert.equal(sampled.points!.cls[k], i % 2);
    seen.add(i);
  }
  assert.equal(seen.size, 10_000);
  const full = mapPoints(ind, positions, cls, true, 42);
  assert.equal(full.points!.lon.length, n);
  // no coordinates: nothing to draw, the count stays
  assert.deepEqual(mapPoints({ ...ind, lat: null }, positions, cls, false, 42), { points: null, drawnOf: n });
});
