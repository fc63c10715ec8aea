import assert from "node:assert/strict";
import { compile, sha256, sourceKey } from "../../wasm/build.ts";

const dir = new URL("../../wasm/", import.meta.url);

Deno.test("wasm: the committed audit.wasm is a fresh, deterministic build of audit.ts (and its record says so)", async () => {
  const committed = await Deno.readFile(new URL("audit.wasm", dir));
  const record = JSON.parse(await Deno.readTextFile(new URL("audit.wasm.json", dir)));
  assert.equal(record.source_sha256, await sourceKey(), "audit.ts changed: run `deno task build:wasm`");
  assert.equal(record.wasm_sha256, await sha256(committed));
  const fresh = await compile();
  assert.equal(
    await sha256(fresh),
    await sha256(committed),
    "a fresh build differs from the committed bytes",
  );
});
