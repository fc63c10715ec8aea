import assert from "node:assert/strict";
import { compile, MODULES, sha256, sourceKey } from "../../wasm/build.ts";

const dir = new URL("../../wasm/", import.meta.url);

for (const name of MODULES) {
  Deno.test(`wasm: the committed ${name}.wasm is a fresh, deterministic build of ${name}.ts (and its record says so)`, async () => {
    const committed = await Deno.readFile(new URL(`${name}.wasm`, dir));
    const record = JSON.parse(await Deno.readTextFile(new URL(`${name}.wasm.json`, dir)));
    assert.equal(
      record.source_sha256,
      await sourceKey(name),
      `${name}.ts changed: run \`deno task build:wasm\``,
    );
    assert.equal(record.wasm_sha256, await sha256(committed));
    const fresh = await compile(name);
    assert.equal(
      await sha256(fresh),
      await sha256(committed),
      "a fresh build differs from the committed bytes",
    );
  });
}
