import assert from "node:assert/strict";
import { InvalidInputError, InvalidParamError, locateParams } from "../../core/errors.ts";

const inBody = (param: (string | number)[]) => ["body", ...param];

Deno.test("locateParams: core's InvalidParamError becomes the request field's InvalidInputError", async () => {
  const located = await locateParams(inBody, () => {
    throw new InvalidParamError("no column 'x'", ["params", "columns", 2], "value_error");
  }).catch((e) => e);
  assert.ok(located instanceof InvalidInputError);
  assert.deepEqual([located.message, located.loc, located.type], [
    "no column 'x'",
    ["body", "params", "columns", 2],
    "value_error",
  ]);
  // anything else passes through as it was
  const other = new RangeError("a bug");
  assert.equal(await locateParams(inBody, () => Promise.reject(other)).catch((e) => e), other);
  assert.equal(await locateParams(inBody, () => Promise.resolve(7)), 7);
});
