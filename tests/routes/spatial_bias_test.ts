/**
 * The toolkit's stateless routes (issue 39): one test per rule of the request shapes and defaults, and the
 * answers' shapes. Values are from hand calculation: two regions of 10, with 8 and 2 positives of P = 10,
 * N = 20: l0 = 20 ln 0.5 = -13.862944; l1 = 2(8 ln 0.8 + 2 ln 0.2) = -10.008049; s = 1 - l1/l0 = 0.2780719.
 */
import assert from "node:assert/strict";
import { jsonBody, testApp } from "../support/app.ts";

const S = 0.2780719051126377;

/** The 20 individuals of the hand calculation, with `extra` on each. */
const twoRegions = (extra: (i: number) => Record<string, unknown> = () => ({})) =>
  Array.from({ length: 20 }, (_, i) => ({
    y_pred: i < 10 ? (i < 8 ? 1 : 0) : (i < 12 ? 1 : 0),
    y_true: 1,
    region_ids: [i < 10 ? 0 : 1],
    ...extra(i),
  }));

/** A probability that agrees with y_pred at t0 = 0.5. */
const scored = (i: number) => ({ y_pred_prob: twoRegions()[i].y_pred ? 0.6 + i / 100 : 0.4 - i / 100 });

type App = Awaited<ReturnType<typeof testApp>>;

async function withApp(fn: (t: App) => Promise<void>) {
  const t = await testApp();
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

const post = async (t: App, path: string, body: unknown) => {
  const res = await t.app.request(`/api/spatial-bias/${path}`, jsonBody("POST", body));
  return { status: res.status, body: await res.json() };
};

/** The `detail` items of a 422, as `loc|type` strings. */
async function refusal(t: App, path: string, body: unknown): Promise<string[]> {
  const r = await post(t, path, body);
  assert.equal(r.status, 422, JSON.stringify(r.body));
  return r.body.detail.map((d: { loc: unknown[]; type: string }) => `${d.loc.join(".")}|${d.type}`);
}

Deno.test("toolkit audit: the answer's fields and types, the hand-calculated statistic, nothing else stored", async () => {
  await withApp(async (t) => {
    const r = await post(t, "audit", { indiv_info: twoRegions(), n_worlds: 200 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const a = r.body;
    for (const k of ["sbi_score", "signif_thresh"]) assert.equal(typeof a[k], "number");
    assert.ok(Number.isInteger(a.total_signif_regions));
    for (const k of ["fair_map_html", "distribution_map_html"]) assert.match(a[k], /<html/i);
    for (const k of ["fair_map_image", "distribution_map_image"]) assert.ok(a[k].length > 100);
    assert.deepEqual(a.stats.map((s: { idx: number }) => s.idx), [0, 1]);
    for (const s of a.stats) {
      assert.ok(Math.abs(s.stat - S) < 1e-12);
      assert.equal(typeof s.is_signif, "boolean");
    }
    assert.ok(Math.abs(a.sbi_score - S) < 1e-12);
    assert.equal(a.run_id, undefined);
    assert.equal(a.kept, undefined);
    const tasks = await (await t.app.request("/api/tasks/documents")).json();
    assert.deepEqual(tasks, []);
  });
});

Deno.test("toolkit audit: defaults n_worlds 400, signif_level 0.005, equal_opp true", async () => {
  await withApp(async (t) => {
    // y_true = 0 for the first two: under equal opportunity they are out of scope (N = 18)
    const r = await post(t, "audit", { indiv_info: twoRegions((i) => ({ y_true: i < 2 ? 0 : 1 })) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.n_worlds, 400);
    assert.equal(r.body.signif_level, 0.005);
    assert.equal(r.body.n_individuals, 18);
  });
});

Deno.test("toolkit audit: equal opportunity needs y_true on every individual; without it, none", async () => {
  await withApp(async (t) => {
    const indiv = twoRegions((i) => (i === 3 ? { y_true: null } : {}));
    assert.deepEqual(await refusal(t, "audit", { indiv_info: indiv }), ["body.indiv_info.3.y_true|missing"]);
    const off = await post(t, "audit", { indiv_info: indiv, equal_opp: false, n_worlds: 10 });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    assert.equal(off.body.n_individuals, 20);
  });
});

Deno.test("toolkit individual: y_pred required, an integer 0 or 1", async () => {
  await withApp(async (t) => {
    const indiv = twoRegions();
    const bad = [{ region_ids: [0], y_true: 1 }, { ...indiv[1], y_pred: 2 }, { ...indiv[2], y_pred: 0.5 }];
    assert.deepEqual(await refusal(t, "audit", { indiv_info: [...bad, ...indiv.slice(3)] }), [
      "body.indiv_info.0.y_pred|missing",
      "body.indiv_info.1.y_pred|less_than_equal",
      "body.indiv_info.2.y_pred|int_type",
    ]);
  });
});

Deno.test("toolkit individual: y_true is 0 or 1", async () => {
  await withApp(async (t) => {
    const indiv = twoRegions((i) => (i === 0 ? { y_true: -1 } : {}));
    assert.deepEqual(await refusal(t, "audit", { indiv_info: indiv }), [
      "body.indiv_info.0.y_true|greater_than_equal",
    ]);
  });
});

Deno.test("toolkit individual: lat within -90..90, lon within -180..180", async () => {
  await withApp(async (t) => {
    const at = (lat: number, lon: number) => ({ y_pred: 1, y_true: 1, lat, lon });
    const indiv = [at(90.5, 0), at(-91, 0), at(0, 180.5), at(0, -181), at(-90, 180)];
    assert.deepEqual(await refusal(t, "audit", { indiv_info: indiv }), [
      "body.indiv_info.0.lat|less_than_equal",
      "body.indiv_info.1.lat|greater_than_equal",
      "body.indiv_info.2.lon|less_than_equal",
      "body.indiv_info.3.lon|greater_than_equal",
    ]);
  });
});

Deno.test("toolkit individual: lat and lon together or not at all", async () => {
  await withApp(async (t) => {
    const indiv = twoRegions((i) => (i === 0 ? { lat: 10 } : i === 1 ? { lon: 10 } : {}));
    assert.deepEqual(await refusal(t, "audit", { indiv_info: indiv }), [
      "body.indiv_info.0.lon|value_error",
      "body.indiv_info.1.lat|value_error",
    ]);
  });
});

Deno.test("toolkit individual: region_ids a non-empty list of non-negative integers", async () => {
  await withApp(async (t) => {
    const ids = [[], [-1], [1.5], "3"];
    const indiv = twoRegions((i) => (i < ids.length ? { region_ids: ids[i] } : {}));
    assert.deepEqual(await refusal(t, "audit", { indiv_info: indiv }), [
      "body.indiv_info.0.region_ids|too_short",
      "body.indiv_info.1.region_ids.0|greater_than_equal",
      "body.indiv_info.2.region_ids.0|int_type",
      "body.indiv_info.3.region_ids|list_type",
    ]);
  });
});

Deno.test("toolkit individual and request: unknown keys are refused", async () => {
  await withApp(async (t) => {
    const indiv = twoRegions((i) => (i === 4 ? { weight: 2 } : {}));
    assert.deepEqual(await refusal(t, "audit", { indiv_info: indiv, mapping: {} }), [
      "body.mapping|extra_forbidden",
      "body.indiv_info.4.weight|extra_forbidden",
    ]);
  });
});

Deno.test("toolkit audit: indiv_info required, with at least one individual", async () => {
  await withApp(async (t) => {
    assert.deepEqual(await refusal(t, "audit", {}), ["body.indiv_info|missing"]);
    assert.deepEqual(await refusal(t, "audit", { indiv_info: [] }), ["body.indiv_info|too_short"]);
    assert.deepEqual(await refusal(t, "audit", { indiv_info: {} }), ["body.indiv_info|list_type"]);
  });
});

Deno.test("toolkit audit: every individual has coordinates, or every individual region_ids", async () => {
  await withApp(async (t) => {
    const indiv = [
      { y_pred: 1, y_true: 1, lat: 1, lon: 1 },
      { y_pred: 1, y_true: 1, region_ids: [0] },
    ];
    assert.deepEqual(await refusal(t, "audit", { indiv_info: indiv }), ["body.indiv_info.0|value_error"]);
  });
});

const square = (x: number) => ({ polygon: [[x, 0], [x + 1, 0], [x + 1, 1], [x, 1]] });

Deno.test("toolkit audit: with region_ids and region_info, every id indexes region_info", async () => {
  await withApp(async (t) => {
    const indiv = twoRegions((i) => (i === 7 ? { region_ids: [1, 2] } : {}));
    const refused = await refusal(t, "audit", { indiv_info: indiv, region_info: [square(0), square(1)] });
    assert.deepEqual(refused, ["body.indiv_info.7.region_ids.1|value_error"]);
    const ok = await post(t, "audit", { indiv_info: twoRegions(), region_info: [square(0), square(1)] });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });
});

Deno.test("toolkit region: at least 3 [lon, lat] points within bounds; unknown keys refused", async () => {
  await withApp(async (t) => {
    const indiv = twoRegions();
    const regions = [
      { polygon: [[0, 0], [1, 1]] },
      { polygon: [[200, 0], [1, 1], [0, 1]] },
      { polygon: [[0, 95], [1, 1], [0, 1]] },
      { ...square(0), name: "a" },
    ];
    assert.deepEqual(await refusal(t, "audit", { indiv_info: indiv, region_info: regions }), [
      "body.region_info.0.polygon|too_short",
      "body.region_info.1.polygon.0.0|less_than_equal",
      "body.region_info.2.polygon.0.1|less_than_equal",
      "body.region_info.3.name|extra_forbidden",
    ]);
  });
});

Deno.test("toolkit audit: n_worlds 1..100,000 and signif_level in (0, 1)", async () => {
  await withApp(async (t) => {
    const indiv_info = twoRegions();
    const cases: [Record<string, unknown>, string][] = [
      [{ n_worlds: 0 }, "body.n_worlds|greater_than_equal"],
      [{ n_worlds: 100_001 }, "body.n_worlds|less_than_equal"],
      [{ n_worlds: 2.5 }, "body.n_worlds|int_type"],
      [{ signif_level: 0 }, "body.signif_level|greater_than"],
      [{ signif_level: 1 }, "body.signif_level|less_than"],
      [{ equal_opp: "yes" }, "body.equal_opp|bool_type"],
    ];
    for (const [settings, item] of cases) {
      assert.deepEqual(await refusal(t, "audit", { indiv_info, ...settings }), [item]);
    }
  });
});

Deno.test("toolkit body: invalid JSON and an empty body are 422s at body", async () => {
  await withApp(async (t) => {
    const send = (body: string) =>
      t.app.request("/api/spatial-bias/audit", {
        method: "POST",
        body,
        headers: { "content-type": "application/json" },
      });
    const broken = await send('{"indiv_info": [');
    assert.equal(broken.status, 422);
    assert.deepEqual((await broken.json()).detail[0].type, "json_invalid");
    const empty = await send("");
    assert.equal(empty.status, 422);
    assert.deepEqual((await empty.json()).detail[0].loc, ["body"]);
  });
});

Deno.test("toolkit relabel: defaults approx, budget_constr 0.2, pr_constr 0.1, work_limit 30", async () => {
  await withApp(async (t) => {
    const r = await post(t, "mitigate/relabel", { indiv_info: twoRegions(), n_worlds: 50 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.flip_budget, 4); // ⌊0.2 · 20⌋
    // P = 10 of N = 20, rate window (1 ± 0.1) · 0.5 · 20: 9 .. 11 positives
    assert.deepEqual(r.body.new_positives_window, [9, 11]);
    assert.match(r.body.solver_detail + r.body.solver_status_message, /./);
    assert.ok(r.body.solver_seconds < 30);
  });
});

Deno.test("toolkit relabel: budget_constr and pr_constr in 0..1; work_limit an integer ≥ 1 or null", async () => {
  await withApp(async (t) => {
    const indiv_info = twoRegions();
    const cases: [Record<string, unknown>, string][] = [
      [{ budget_constr: 1.5 }, "body.budget_constr|less_than_equal"],
      [{ budget_constr: -0.1 }, "body.budget_constr|greater_than_equal"],
      [{ pr_constr: 2 }, "body.pr_constr|less_than_equal"],
      [{ work_limit: 0 }, "body.work_limit|greater_than_equal"],
      [{ work_limit: 1.5 }, "body.work_limit|int_type"],
      [{ approx: 1 }, "body.approx|bool_type"],
    ];
    for (const [settings, item] of cases) {
      assert.deepEqual(await refusal(t, "mitigate/relabel", { indiv_info, ...settings }), [item]);
    }
    const open = await post(t, "mitigate/relabel", { indiv_info, work_limit: null, n_worlds: 20 });
    assert.equal(open.status, 200, JSON.stringify(open.body));
  });
});

Deno.test("toolkit relabel: metrics as {name, value} lists, both audits, a prediction per individual", async () => {
  await withApp(async (t) => {
    const r = await post(t, "mitigate/relabel", { indiv_info: twoRegions(), n_worlds: 50 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const a = r.body;
    for (const m of [a.metrics_before, a.metrics_after]) {
      assert.ok(
        m.every((x: { name: string; value: number }) =>
          typeof x.name === "string" && typeof x.value === "number"
        ),
      );
    }
    // y_true = 1 everywhere, 10 predicted positive: accuracy = recall = 10/20, precision 1
    const before = Object.fromEntries(
      a.metrics_before.map((x: { name: string; value: number }) => [x.name, x.value]),
    );
    assert.equal(before.accuracy, 0.5);
    assert.equal(before.precision, 1);
    assert.equal(before.recall, 0.5);
    for (const audit of [a.audit_before_mitigation, a.audit_after_mitigation]) {
      assert.equal(typeof audit.sbi_score, "number");
      assert.equal(audit.stats.length, 2);
      assert.match(audit.fair_map_html, /<html/i);
    }
    assert.deepEqual(a.mitigated_preds.map((p: { idx: number }) => p.idx), [...Array(20).keys()]);
    assert.ok(a.mitigated_preds.every((p: { y_pred: number }) => p.y_pred === 0 || p.y_pred === 1));
    assert.match(a.flips_map_html, /<html/i);
    assert.ok(a.flips_map_image.length > 100);
  });
});

Deno.test("toolkit threshold: y_pred_prob required in both sets; default_boundary 0..1 or null", async () => {
  await withApp(async (t) => {
    const fit = twoRegions(scored), predict = twoRegions(scored);
    const without = predict.map((d, i) => (i === 2 ? { ...d, y_pred_prob: undefined } : d));
    assert.deepEqual(
      await refusal(t, "mitigate/threshold", { fit_indiv_info: fit, predict_indiv_info: without }),
      ["body.predict_indiv_info.2.y_pred_prob|missing"],
    );
    assert.deepEqual(
      await refusal(t, "mitigate/threshold", { fit_indiv_info: [], predict_indiv_info: predict }),
      ["body.fit_indiv_info|too_short"],
    );
    assert.deepEqual(
      await refusal(t, "mitigate/threshold", {
        fit_indiv_info: fit,
        predict_indiv_info: predict,
        default_boundary: 1.5,
      }),
      ["body.default_boundary|less_than_equal"],
    );
  });
});

Deno.test("toolkit threshold: fitted on the fit set, the predict set's answer; default_boundary 0.5", async () => {
  await withApp(async (t) => {
    const fit = twoRegions(scored), predict = twoRegions(scored).slice(4, 19);
    for (const boundary of [undefined, null]) {
      const r = await post(t, "mitigate/threshold", {
        fit_indiv_info: fit,
        predict_indiv_info: predict,
        n_worlds: 50,
        ...(boundary === null ? { default_boundary: null } : {}),
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const a = r.body;
      assert.equal(a.train_size, 20);
      assert.equal(a.test_size, 15);
      assert.deepEqual(a.mitigated_preds.map((p: { idx: number }) => p.idx), [...Array(15).keys()]);
      assert.equal(a.audit_before_mitigation.n_individuals, 15);
      assert.deepEqual(a.new_thresholds.map((x: { idx: number }) => x.idx), [0, 1]);
      for (const x of a.new_thresholds) {
        assert.equal(typeof x.threshold, "number");
        assert.equal(typeof x.eq_to_thresh_flip_prob, "number");
      }
      // the chart before draws t0 = 0.5 everywhere; both charts are PNGs
      for (const k of ["threshold_chart_before", "threshold_chart_after"]) assert.ok(a[k].length > 100);
    }
  });
});

Deno.test("toolkit keep: true or false; a kept dataset never goes into Tessera's own database", async () => {
  await withApp(async (t) => {
    const body = { indiv_info: twoRegions(), n_worlds: 10 };
    assert.deepEqual(await refusal(t, "audit?keep=yes", body), ["query.keep|enum"]);
    assert.deepEqual(await refusal(t, "audit?keep=true&database_name=tessera", body), [
      "query.database_name|value_error",
    ]);
    assert.deepEqual(await refusal(t, "audit?keep=true&database_name=a.b", body), [
      "query.database_name|string_pattern_mismatch",
    ]);
    assert.deepEqual(await (await t.app.request("/api/tasks/documents")).json(), []);
  });
});

Deno.test("toolkit audit: equal_opp with no y_true = 1 in a set is a 409, and keep=true keeps nothing", async () => {
  await withApp(async (t) => {
    // found by `deno task fuzz`: this answered 500 (the audit's refusal came up from its worker unmapped)
    const none = twoRegions((i) => ({ y_true: i === 3 ? 1 : 0 }));
    const noPositive = twoRegions(() => ({ y_true: 0 }));
    for (const path of ["audit", "audit?keep=true", "mitigate/relabel?keep=true"]) {
      const r = await post(t, path, { indiv_info: noPositive, n_worlds: 10 });
      assert.equal(r.status, 409, `${path}: ${JSON.stringify(r.body)}`);
      assert.match(
        JSON.stringify(r.body.detail),
        /no individuals in scope in indiv_info \(with equal_opp=true only individuals with y_true = 1/,
      );
    }
    assert.deepEqual(await (await t.app.request("/api/tasks/documents")).json(), [], "nothing kept");
    // one y_true = 1 is a scope of one: it audits
    assert.equal((await post(t, "audit", { indiv_info: none, n_worlds: 10 })).status, 200);
    const scoredNone = twoRegions((i) => ({ y_true: 0, ...scored(i) }));
    const withOne = twoRegions((i) => ({ y_true: i === 0 ? 1 : 0, ...scored(i) }));
    const r = await post(t, "mitigate/threshold", {
      fit_indiv_info: withOne,
      predict_indiv_info: scoredNone,
    });
    assert.equal(r.status, 409);
    assert.match(JSON.stringify(r.body.detail), /no individuals in scope in predict_indiv_info/);
  });
});

Deno.test("toolkit relabel: a work_limit beyond a timer's reach is Tessera's longest, not an instant stop", async () => {
  await withApp(async (t) => {
    // found by `deno task fuzz`: 9007199254740991 s overflowed the timer, which fired at once (a 503)
    const r = await post(t, "mitigate/relabel", {
      indiv_info: twoRegions(),
      n_worlds: 10,
      work_limit: Number.MAX_SAFE_INTEGER,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  });
});
