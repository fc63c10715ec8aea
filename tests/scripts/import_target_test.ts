/** `deno task import --target` records the dataset's target column, or refuses one the file lacks (issue 21, item 12). */
import assert from "node:assert/strict";
import { KvStore } from "../../store/kv.ts";
import { findDataset } from "../../services/datasets/registry.ts";

const ROOT = new URL("../../", import.meta.url);

async function runImport(kvPath: string, args: string[]) {
  const env = Deno.env.toObject();
  delete env.MONGO_URL;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "scripts/import.ts", ...args],
    cwd: ROOT,
    env: { ...env, KV_PATH: kvPath, TESSERA_DB: "tessera", NO_COLOR: "1" },
    clearEnv: true,
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

Deno.test("deno task import --target: recorded with the dataset; a column the file lacks keeps nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tessera-import-" });
  try {
    const kvPath = `${dir}/t.kv`;
    await Deno.writeTextFile(`${dir}/p.csv`, "age,churned,city\n31,1,Oslo\n7,0,Bergen\n");
    const ok = await runImport(kvPath, [
      `${dir}/p.csv`,
      "--db",
      "demo",
      "--collection",
      "p",
      "--target",
      "churned",
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(JSON.parse(ok.stdout).target, "churned");
    const bad = await runImport(kvPath, [
      `${dir}/p.csv`,
      "--db",
      "demo",
      "--collection",
      "q",
      "--target",
      "nope",
    ]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /target 'nope' is not a column of the imported rows \(age, churned, city\)/);
    const store = await KvStore.open(kvPath);
    try {
      assert.equal((await findDataset(store, "tessera", "p"))?.target_column, "churned");
      assert.equal(await findDataset(store, "tessera", "q"), null);
      assert.equal(await store.count({ db: "demo", collection: "q" }), 0);
    } finally {
      await store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
