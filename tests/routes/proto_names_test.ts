/**
 * Columns named like Object.prototype's members (`constructor`, `toString`, `__proto__`, ...), present in
 * some rows and absent from others, through every road data takes on both stores: import (NDJSON and
 * CSV), the four annotation procedures, correlations, a cleaning job with its write-back, and a spatial
 * write-back. A row without such a field must read as missing, never as the inherited member (which made
 * the worker's structured clone fail: a 500), and `__proto__` must stay a field. Property-based: the
 * columns, the rows holding them and their values are drawn; the expected figures are worked out here.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { jsonRequest, type StoreApp, storeTest } from "../support/stores.ts";
import { approve, docsById, testRunner } from "./cleaning_support.ts";

const NAMES = [
  "constructor",
  "toString",
  "__proto__",
  "hasOwnProperty",
  "valueOf",
  "isPrototypeOf",
  "toLocaleString",
  "propertyIsEnumerable",
  "__defineGetter__",
] as const;

/** One drawn dataset: `a` = 0..n-1 in every row; column c = slope·a + offset in the rows that hold it. */
interface Drawn {
  n: number;
  columns: { name: string; slope: number; offset: number; present: boolean[] }[];
}

const drawn: fc.Arbitrary<Drawn> = fc.integer({ min: 4, max: 9 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    columns: fc.shuffledSubarray([...NAMES], { minLength: 1, maxLength: 4 }).chain((names) =>
      fc.tuple(...names.map((name) =>
        fc.record({
          name: fc.constant(name),
          slope: fc.integer({ min: 1, max: 5 }),
          offset: fc.integer({ min: -5, max: 5 }),
          // at least two rows hold it (a correlation needs two), and usually some do not
          present: fc.array(fc.boolean(), { minLength: n, maxLength: n })
            .filter((p) => p.filter(Boolean).length >= 2),
        })
      ))
    ),
  })
);

/** Row i's fields in order: `a`, then each column that row holds (own properties, `__proto__` too). */
function rowsOf(d: Drawn): Record<string, number>[] {
  return Array.from({ length: d.n }, (_, i) =>
    Object.fromEntries([
      ["a", i],
      ...d.columns.filter((c) => c.present[i]).map((c) => [c.name, c.slope * i + c.offset]),
    ]));
}

/** Column names in first-seen order, as the import and the procedures list them. */
function firstSeen(rows: Record<string, unknown>[]): string[] {
  const seen: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!seen.includes(k)) seen.push(k);
  return seen;
}

const valuesOf = (c: Drawn["columns"][number]) =>
  c.present.flatMap((p, i) => (p ? [c.slope * i + c.offset] : []));
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
// deno-lint-ignore no-explicit-any
const byColumn = (xs: { column: string }[]): Map<string, any> => new Map(xs.map((x) => [x.column, x]));
const close = (a: number, b: number, what: string) =>
  assert.ok(Math.abs(a - b) <= 1e-9 * (1 + Math.abs(b)), `${what}: ${a} vs ${b}`);

async function post(t: StoreApp, path: string, body: unknown) {
  const res = await t.app.request(path, jsonRequest("POST", body));
  const text = await res.text();
  assert.ok(res.status < 500, `${path}: ${res.status} ${text}`);
  return { status: res.status, body: JSON.parse(text) };
}

async function importText(t: StoreApp, name: string, text: string, contentType: string) {
  const res = await t.app.request(`/api/datasets/${t.db}/${name}`, {
    method: "POST",
    body: text,
    headers: { "content-type": contentType },
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body;
}

/** Import, the four procedures, correlations and a cleaning job on one drawn dataset. */
async function analyses(t: StoreApp, d: Drawn, name: string) {
  const rows = rowsOf(d);
  const names = firstSeen(rows);
  const imported = await importText(
    t,
    name,
    rows.map((r) => JSON.stringify(r)).join("\n"),
    "application/x-ndjson",
  );
  assert.deepEqual(imported.columns, names.map((c) => ({ name: c, type: "integer" })));
  assert.equal(imported.rows, d.n);
  const stored = [...(await docsById(t, name)).values()];
  for (const c of d.columns) { // stored as own fields, absent where drawn absent
    assert.deepEqual(stored.map((r) => Object.hasOwn(r, c.name)), c.present, c.name);
  }

  const annotate = (fn: string, params?: unknown) =>
    post(t, "/annotations", { dataset_id: name, identifier: fn, annotation_function: fn, params });
  const profile = await annotate("profile");
  assert.equal(profile.status, 200);
  const prof = byColumn(profile.body.result.columns);
  assert.deepEqual([...prof.keys()], names);
  for (const c of d.columns) {
    const xs = valuesOf(c), p = prof.get(c.name);
    assert.deepEqual([p.kind, p.count, p.missing], ["numeric", d.n, d.n - xs.length], c.name); // count: cells
    assert.deepEqual([p.numeric.min, p.numeric.max], [Math.min(...xs), Math.max(...xs)], c.name);
    close(p.numeric.mean, mean(xs), `${c.name} mean`);
  }
  const types = await annotate("semantic_types");
  assert.equal(types.status, 200);
  const st = byColumn(types.body.result.columns);
  assert.deepEqual([...st.keys()], names);
  for (const c of d.columns) {
    const e = st.get(c.name).evidence;
    assert.deepEqual([e.present, e.missing], [valuesOf(c).length, d.n - valuesOf(c).length], c.name);
  }
  const pii = await annotate("pii_scan");
  assert.equal(pii.status, 200);
  const scan = byColumn(pii.body.result.columns);
  for (const c of d.columns) assert.equal(scan.get(c.name).present, valuesOf(c).length, c.name);
  assert.deepEqual(pii.body.result.flagged, []);
  const mapping = await annotate("concept_mapping", { data_model_id: "WeatherObserved" });
  assert.equal(mapping.status, 200);
  assert.deepEqual(mapping.body.result.columns.map((x: { column: string }) => x.column), names);

  // every column is a line in a: Pearson and Spearman 1 over the rows holding it (pairwise, as pandas)
  const corr = await post(t, `/api/correlations/analyze?dataset-id=${name}`, { include_kendall: true });
  assert.equal(corr.status, 200);
  assert.deepEqual(corr.body.dataset_shape, [d.n, names.length]);
  for (const c of d.columns) {
    for (const m of ["pearson", "spearman", "kendall"]) {
      assert.ok(Object.hasOwn(corr.body[m], c.name), `${m} ${c.name}`);
      close(corr.body[m].a[c.name], 1, `${m} a~${c.name}`);
      close(corr.body[m][c.name].a, 1, `${m} ${c.name}~a`);
    }
  }

  // mean imputation of every column, approved into the same fields: each absent cell gets the mean
  const run = await post(t, "/run/", {
    data: name,
    task: "impute",
    dtype: "tabular",
    method: "mean",
    params: { columns: d.columns.map((c) => c.name) },
  });
  assert.equal(run.status, 200);
  const { runner, close: stop } = testRunner(t);
  try {
    assert.equal(await runner.runOnce(), run.body.job_id);
  } finally {
    await stop();
  }
  const job = await (await t.app.request(`/jobs/${run.body.job_id}`)).json();
  assert.equal(job.status, "succeeded", JSON.stringify(job.error));
  const gaps = d.columns.reduce((s, c) => s + c.present.filter((p) => !p).length, 0);
  assert.equal(job.summary.cells_filled, gaps);
  for (const c of d.columns) {
    const filled = c.present.filter((p) => !p).length;
    if (filled) assert.equal(job.summary.filled_by_column[c.name], filled, c.name);
  }
  const approved = await approve(t, { job_id: run.body.job_id, approval_info: { target: "same_fields" } });
  const approval = await approved.json();
  assert.equal(approved.status, 200, JSON.stringify(approval));
  assert.equal(approval.approval.write_back.cells_written, gaps);
  const after = [...(await docsById(t, name)).values()].sort((x, y) => Number(x.a) - Number(y.a));
  for (const c of d.columns) {
    const m = mean(valuesOf(c));
    after.forEach((r, i) => {
      assert.ok(Object.hasOwn(r, c.name), `${c.name} row ${i}`);
      close(r[c.name] as number, c.present[i] ? c.slope * i + c.offset : m, `${c.name} row ${i}`);
    });
  }
}

/** The spatial write-back into fields named like prototype members, held by some documents or none. */
async function writeBacks(t: StoreApp, d: Drawn, name: string) {
  const rows = rowsOf(d);
  await importText(t, name, rows.map((r) => JSON.stringify(r)).join("\n"), "application/x-ndjson");
  const task = await post(t, "/api/tasks/documents", { database_name: t.db, data_collection_name: name });
  assert.equal(task.status, 201);
  const docs = [...(await docsById(t, name)).values()].sort((x, y) => Number(x.a) - Number(y.a));
  const url = `/api/spatial-hitl/task/${name}/mitigate/writeback`;

  // a name no document holds: written into every document, as its own field
  const fresh = NAMES.find((x) => !d.columns.some((c) => c.name === x))!;
  const all = await post(t, url, {
    new_field: fresh,
    preds: docs.map((r, i) => ({ doc_id: r._id, y_pred: i % 2 })),
  });
  assert.equal(all.status, 200, JSON.stringify(all.body));
  assert.deepEqual([all.body.matched, all.body.modified, all.body.not_found], [d.n, d.n, []]);
  const written = [...(await docsById(t, name)).values()].sort((x, y) => Number(x.a) - Number(y.a));
  assert.deepEqual(
    written.map((r) => Object.hasOwn(r, fresh) ? r[fresh] : "absent"),
    docs.map((_, i) => i % 2),
  );

  // a name some documents hold: refused when a listed document holds it, written where none does
  const c = d.columns[0];
  const lacking = docs.filter((_, i) => !c.present[i]);
  const holder = docs.find((_, i) => c.present[i])!;
  const refused = await post(t, url, { new_field: c.name, preds: [{ doc_id: holder._id, y_pred: 1 }] });
  assert.equal(refused.status, 409); // the documents decide: a conflict, naming the field
  assert.match(refused.body.detail[0].msg, new RegExp(`held already by document '${holder._id}'`));
  if (lacking.length) {
    const ok = await post(t, url, {
      new_field: c.name,
      preds: lacking.map((r) => ({ doc_id: r._id, y_pred: 1 })),
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.matched, lacking.length);
    const now = [...(await docsById(t, name)).values()].sort((x, y) => Number(x.a) - Number(y.a));
    now.forEach((r, i) =>
      assert.equal(r[c.name], c.present[i] ? c.slope * i + c.offset : 1, `${c.name} ${i}`)
    );
  }
}

/** The same columns as CSV: a header per column, an empty cell where a row lacks it (null). */
async function csvImport(t: StoreApp, d: Drawn, name: string) {
  const header = ["a", ...d.columns.map((c) => c.name)];
  const lines = Array.from(
    { length: d.n },
    (_, i) => [i, ...d.columns.map((c) => (c.present[i] ? c.slope * i + c.offset : ""))].join(","),
  );
  const imported = await importText(t, name, [header.join(","), ...lines].join("\n"), "text/csv");
  assert.deepEqual(imported.columns.map((c: { name: string }) => c.name), header);
  const docs = [...(await docsById(t, name)).values()].sort((x, y) => Number(x.a) - Number(y.a));
  for (const c of d.columns) {
    docs.forEach((r, i) => {
      assert.ok(Object.hasOwn(r, c.name), `${c.name} row ${i}`);
      assert.equal(r[c.name], c.present[i] ? c.slope * i + c.offset : null, `${c.name} row ${i}`);
    });
  }
  const profile = await post(t, "/annotations", {
    dataset_id: name,
    identifier: "p",
    annotation_function: "profile",
  });
  assert.equal(profile.status, 200);
}

storeTest("prototype-named columns: import, procedures, correlations, cleaning and write-back", async (t) => {
  let k = 0;
  await fc.assert(
    fc.asyncProperty(drawn, async (d) => {
      k++;
      await analyses(t, d, `an${k}`);
      await writeBacks(t, d, `wb${k}`);
      await csvImport(t, d, `csv${k}`);
    }),
    { numRuns: 6, seed: 2121, endOnFailure: true },
  );
});

storeTest("prototype-named columns: a hand-made case, every name at once", async (t) => {
  // constructor only in row 1, toString in rows 0 and 2, __proto__ in every row
  const text = [
    `{"a": 0, "toString": 10, "__proto__": 5}`,
    `{"a": 1, "constructor": 7, "__proto__": 6}`,
    `{"a": 2, "toString": 30, "__proto__": 7, "valueOf": 1, "hasOwnProperty": 2}`,
  ].join("\n");
  const imported = await importText(t, "hand", text, "application/x-ndjson");
  assert.deepEqual(
    imported.columns.map((c: { name: string }) => c.name),
    ["a", "toString", "__proto__", "constructor", "valueOf", "hasOwnProperty"],
  );
  const profile = await post(t, "/annotations", {
    dataset_id: "hand",
    identifier: "p",
    annotation_function: "profile",
  });
  assert.equal(profile.status, 200);
  const prof = byColumn(profile.body.result.columns);
  // constructor: one value, 7; two rows lack it. toString: 10 and 30, mean 20. __proto__: 5, 6, 7
  assert.deepEqual([prof.get("constructor").missing, prof.get("constructor").distinct], [2, 1]);
  assert.deepEqual([prof.get("constructor").numeric.min, prof.get("constructor").numeric.max], [7, 7]);
  assert.deepEqual([prof.get("toString").missing, prof.get("toString").numeric.mean], [1, 20]);
  assert.deepEqual([prof.get("__proto__").missing, prof.get("__proto__").numeric.median], [0, 6]);
  assert.deepEqual([prof.get("valueOf").missing, prof.get("hasOwnProperty").missing], [2, 2]);
  const types = await post(t, "/annotations", {
    dataset_id: "hand",
    identifier: "t",
    annotation_function: "semantic_types",
  });
  assert.equal(types.status, 200);
  assert.equal(byColumn(types.body.result.columns).get("constructor").evidence.missing, 2);

  // write-back into `constructor`, which rows 0 and 2 lack: not "held already"
  await post(t, "/api/tasks/documents", { database_name: t.db, data_collection_name: "hand" });
  const docs = [...(await docsById(t, "hand")).values()].sort((x, y) => Number(x.a) - Number(y.a));
  const wb = await post(t, "/api/spatial-hitl/task/hand/mitigate/writeback", {
    new_field: "constructor",
    preds: [{ doc_id: docs[0]._id, y_pred: 1 }, { doc_id: docs[2]._id, y_pred: 0 }],
  });
  assert.equal(wb.status, 200, JSON.stringify(wb.body));
  const after = [...(await docsById(t, "hand")).values()].sort((x, y) => Number(x.a) - Number(y.a));
  assert.deepEqual(after.map((r) => r.constructor), [1, 7, 0]);
  // a brand-new `__defineGetter__` and `toLocaleString` on a document: own fields
  const fresh = await post(t, "/api/spatial-hitl/task/hand/mitigate/writeback", {
    new_field: "toLocaleString",
    preds: [{ doc_id: docs[1]._id, y_pred: 1 }],
  });
  assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
  const one = (await t.store.get({ db: t.db, collection: "hand" }, String(docs[1]._id)))!;
  assert.ok(Object.hasOwn(one, "toLocaleString"));
  assert.equal(one.toLocaleString, 1);
});

storeTest("prototype-named columns: a CSV header `__proto__` is a column like any", async (t) => {
  const imported = await importText(t, "csvproto", "a,__proto__,constructor\n1,2,\n3,,4\n", "text/csv");
  assert.deepEqual(imported.columns.map((c: { name: string }) => c.name), ["a", "__proto__", "constructor"]);
  const docs = [...(await docsById(t, "csvproto")).values()].sort((x, y) => Number(x.a) - Number(y.a));
  assert.deepEqual(docs.map((r) => [Object.hasOwn(r, "__proto__"), r.constructor]), [[true, null], [
    true,
    4,
  ]]);
  assert.deepEqual(docs.map((r) => Object.getOwnPropertyDescriptor(r, "__proto__")?.value), [2, null]);
});
