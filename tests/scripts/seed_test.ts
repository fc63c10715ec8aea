/**
 * `deno task seed` as a user runs it (issue 21, item 10): a child process over a temporary KV file. It
 * refuses a store that holds data (datasets or task documents) unless `--force`, changing nothing, and
 * says so in one line; with `--force` it seeds.
 */
import assert from "node:assert/strict";
import { KvStore } from "../../store/kv.ts";
import { findDataset } from "../../services/datasets/registry.ts";
import { importRecords } from "../../services/datasets/import.ts";
import { DEMO_DB, DEMO_SPATIAL } from "../../services/demo/seed.ts";
import { taskDocumentsRef } from "../../services/tasks/task_documents.ts";
import { listDecisions } from "../../services/decisions/list.ts";

const ROOT = new URL("../../", import.meta.url);

/** Runs scripts/seed.ts with `args` against the KV file `kvPath`; exit code and output. */
async function runSeed(kvPath: string, args: string[] = [], extraEnv: Record<string, string> = {}) {
  const env = Deno.env.toObject();
  delete env.MONGO_URL;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "scripts/seed.ts", ...args],
    cwd: ROOT,
    env: { ...env, KV_PATH: kvPath, TESSERA_DB: "tessera", NO_COLOR: "1", ...extraEnv },
    clearEnv: true,
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

async function withStore<T>(kvPath: string, fn: (store: KvStore) => Promise<T>): Promise<T> {
  const store = await KvStore.open(kvPath);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function* rows(n: number) {
  for (let i = 0; i < n; i++) yield { x: i };
}

Deno.test("deno task seed: refuses a store holding data unless --force; a repeat needs --force too", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tessera-seed-" });
  try {
    const kvPath = `${dir}/t.kv`;
    // a store with a dataset of the user's own and nothing of the demo
    await withStore(
      kvPath,
      (store) => importRecords(store, "tessera", { db: "mine", collection: "own" }, rows(3)),
    );
    const refused = await runSeed(kvPath);
    assert.equal(refused.code, 1);
    const lines = refused.stderr.trim().split("\n");
    assert.equal(lines.length, 1, refused.stderr);
    assert.match(lines[0], /the store already holds data \(1 dataset, 0 task documents\)/);
    assert.match(lines[0], /deno task seed --force/);
    await withStore(kvPath, async (store) => {
      assert.equal(await findDataset(store, "tessera", DEMO_SPATIAL), null, "nothing was seeded");
      assert.equal(await store.count(taskDocumentsRef("tessera")), 0);
    });

    const forced = await runSeed(kvPath, ["--force"]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(
      forced.stdout,
      /seeded \{"loan_approvals":50000,"customer_churn":2000,"sensor_readings":1440\}/,
    );

    // a reviewer's work on the demo: the task marked done; a plain re-seed must not undo it
    const generation = await withStore(kvPath, async (store) => {
      await store.patch(taskDocumentsRef("tessera"), DEMO_SPATIAL, { status: "done" });
      return (await findDataset(store, "tessera", DEMO_SPATIAL))!.generation;
    });
    const again = await runSeed(kvPath);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /the store already holds data \(4 datasets, 1 task document\)/);
    await withStore(kvPath, async (store) => {
      assert.equal((await store.get(taskDocumentsRef("tessera"), DEMO_SPATIAL))?.status, "done");
      assert.equal((await findDataset(store, "tessera", DEMO_SPATIAL))!.generation, generation);
      assert.equal(await store.count({ db: DEMO_DB, collection: DEMO_SPATIAL }), 50_000);
      // the seed's imports are logged as the seed's decisions, once each; the refused re-seed logged none
      const log = await listDecisions({ store, config: { TESSERA_DB: "tessera" } }, {
        user: "tessera:seed",
        limit: 10,
      });
      assert.deepEqual(
        log.decisions.map((e) => [e.kind, e.dataset, e.counts.imported]).reverse(),
        [[DEMO_SPATIAL, 50_000], ["customer_churn", 2000], ["sensor_readings", 1440]].map(([d, n]) => [
          "dataset_replace",
          d,
          n,
        ]),
      );
    });

    const unknown = await runSeed(kvPath, ["--frce"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown argument '--frce'; usage: deno task seed \[--force\]/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task seed: a bad configuration is one line and exit 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tessera-seed-" });
  try {
    const r = await runSeed(`${dir}/t.kv`, [], { MONGO_URL: "not-a-url" });
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.match(r.stderr, /invalid configuration: MONGO_URL/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
