/** Which rows a run reads (sample_id, inline rows) and which params it runs with (configuration). */
import assert from "node:assert/strict";
import { inlineRows, parseSampleId, Reservoir, selectRows } from "../../../core/annotate/sample.ts";
import { configuredParams, mergeParams } from "../../../core/annotate/configuration.ts";
import { InvalidParamError, NotFoundError } from "../../../core/errors.ts";

Deno.test("sample_id: a record id, head:N, random:N[:SEED]; out of range is a 422 at body.sample_id", () => {
  assert.deepEqual(parseSampleId(undefined, 100), { kind: "all" });
  assert.deepEqual(parseSampleId("65f0c0ffee", 100), { kind: "record", id: "65f0c0ffee" });
  assert.deepEqual(parseSampleId("head:5", 100), { kind: "head", n: 5 });
  assert.deepEqual(parseSampleId("random:3", 100), { kind: "random", n: 3, seed: 0 });
  assert.deepEqual(parseSampleId("random:3:9", 100), { kind: "random", n: 3, seed: 9 });
  for (const bad of ["head:0", "head:101", "head:2:1"]) {
    assert.throws(
      () => parseSampleId(bad, 100),
      (e) => e instanceof InvalidParamError && e.param[0] === "sample_id",
    );
  }
});

Deno.test("reservoir: every item equally likely (n/N), same seed same sample, stream order kept", () => {
  const draw = (seed: number) => {
    const r = new Reservoir<number>(3, seed);
    for (let i = 0; i < 10; i++) r.offer(i);
    return r.items();
  };
  assert.deepEqual(draw(5), draw(5));
  const seen = new Array(10).fill(0);
  for (let seed = 0; seed < 20_000; seed++) {
    const s = draw(seed);
    assert.deepEqual(s, [...s].sort((a, b) => a - b));
    for (const i of s) seen[i]++;
  }
  // each of 10 items is kept with probability 3/10; 20,000 draws: sd √(0.3·0.7/20000) ≈ 0.0032
  for (const k of seen) assert.ok(Math.abs(k / 20_000 - 0.3) < 0.02, `${k}`);
  const short = new Reservoir<string>(5, 1);
  ["a", "b"].forEach((x) => short.offer(x));
  assert.deepEqual(short.items(), ["a", "b"]);
});

Deno.test("inline rows: data is one record or a list, items a list; both, empty or non-objects are 422s", () => {
  assert.deepEqual(inlineRows({ a: 1 }, undefined), [{ a: 1 }]);
  assert.deepEqual(inlineRows(null, [{ a: 1 }, { a: 2 }]), [{ a: 1 }, { a: 2 }]);
  assert.equal(inlineRows(undefined, null), null);
  const locOf = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return (e as InvalidParamError).param;
    }
  };
  assert.deepEqual(locOf(() => inlineRows({ a: 1 }, [{ a: 1 }])), ["items"]);
  assert.deepEqual(locOf(() => inlineRows([], undefined)), ["data"]);
  assert.deepEqual(locOf(() => inlineRows(undefined, [{ a: 1 }, "x"])), ["items", 1]);

  const rows = [{ id: "a" }, { _id: "b" }, { id: 3 }];
  assert.deepEqual(selectRows(rows, { kind: "record", id: "b" }, 10), [{ _id: "b" }]);
  assert.deepEqual(selectRows(rows, { kind: "record", id: "3" }, 10), [{ id: 3 }]);
  assert.deepEqual(selectRows(rows, { kind: "head", n: 2 }, 10), rows.slice(0, 2));
  assert.deepEqual(selectRows(rows, { kind: "all" }, 1), rows.slice(0, 1));
  assert.throws(() => selectRows(rows, { kind: "record", id: "zz" }, 10), NotFoundError);
});

Deno.test("configuration: methods by name or as a list give a function's params; the request's win", () => {
  const byName = { concept_mapping: { data_model_id: "Place" }, profile: null };
  assert.deepEqual(configuredParams(byName, "concept_mapping"), { data_model_id: "Place" });
  assert.deepEqual(configuredParams(byName, "profile"), {});
  assert.equal(configuredParams(byName, "pii_scan"), null);
  const list = ["profile", { name: "pii_scan", params: { kinds: ["email"] } }];
  assert.deepEqual(configuredParams(list, "pii_scan"), { kinds: ["email"] });
  assert.deepEqual(configuredParams(list, "profile"), {});
  assert.equal(configuredParams("free text", "profile"), null);

  const configured = { top: 3, outlier_k: 3 };
  assert.deepEqual(mergeParams(undefined, configured), { params: configured, source: "configuration" });
  assert.deepEqual(mergeParams({}, configured), { params: configured, source: "configuration" });
  assert.deepEqual(mergeParams({ top: 1 }, configured), {
    params: { top: 1, outlier_k: 3 },
    source: "request+configuration",
  });
  assert.deepEqual(mergeParams({ top: 1 }, null), { params: { top: 1 }, source: "request" });
  assert.deepEqual(mergeParams(null, {}), { params: {}, source: "defaults" });
});
