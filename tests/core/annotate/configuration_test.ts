/** A dataset's configured `methods`: which functions it enables and the params it gives each. */
import assert from "node:assert/strict";
import { configuredParams, enabledFunctions, mergeParams } from "../../../core/annotate/configuration.ts";

Deno.test("enabledFunctions: the names of a non-empty list; null (all) for anything else", () => {
  assert.deepEqual(
    enabledFunctions(["profile", { name: "concept_mapping" }, { annotation_function: "pii_scan" }]),
    ["profile", "concept_mapping", "pii_scan"],
  );
  for (const methods of [null, undefined, [], { profile: {} }, "profile"]) {
    assert.equal(enabledFunctions(methods), null, JSON.stringify(methods));
  }
  // a list naming nothing usable enables nothing
  assert.deepEqual(enabledFunctions([1, { params: {} }]), []);
});

Deno.test("configuredParams and mergeParams: configuration first, the request's keys over it", () => {
  const methods = ["semantic_types", { name: "profile", params: { top: 2, columns: ["a"] } }];
  assert.deepEqual(configuredParams(methods, "semantic_types"), {});
  assert.equal(configuredParams(methods, "pii_scan"), null);
  const configured = configuredParams(methods, "profile");
  assert.deepEqual(mergeParams({ top: 5 }, configured), {
    params: { top: 5, columns: ["a"] },
    source: "request+configuration",
  });
  assert.deepEqual(mergeParams(null, configured), {
    params: { top: 2, columns: ["a"] },
    source: "configuration",
  });
  assert.deepEqual(mergeParams({}, null), { params: {}, source: "defaults" });
});
