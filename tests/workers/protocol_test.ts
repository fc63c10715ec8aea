import assert from "node:assert/strict";
import { InvalidParamError } from "../../core/errors.ts";
import { deserializeError, serializeError } from "../../workers/protocol.ts";

Deno.test("an InvalidParamError crosses the worker boundary with its parameter and type", () => {
  const back = deserializeError(serializeError(new InvalidParamError("a record", ["items", 1], "dict_type")));
  assert.ok(back instanceof InvalidParamError);
  assert.deepEqual([back.message, back.param, back.type], ["a record", ["items", 1], "dict_type"]);
});
