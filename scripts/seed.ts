/**
 * `deno task seed [--force]`: writes the demo datasets and task into the configured store. A store that
 * holds data already (datasets or task documents) is refused unless --force: seeding replaces the demo
 * datasets and resets the demo task. Every refusal is one line on stderr and a non-zero exit.
 */
import { type Config, loadConfig } from "../config.ts";
import { openStore } from "../store/open.ts";
import type { Store } from "../store/store.ts";
import { seedStore } from "../services/demo/seed.ts";
import { ConflictError } from "../core/errors.ts";

const USAGE = "usage: deno task seed [--force]";

function fail(message: string, code = 1): never {
  console.error(`cannot seed: ${message}`);
  Deno.exit(code);
}

const unknown = Deno.args.find((a) => a !== "--force");
if (unknown !== undefined) fail(`unknown argument '${unknown}'; ${USAGE}`, 2);
const force = Deno.args.includes("--force");

let config: Config;
try {
  config = loadConfig(Deno.env.toObject());
} catch (e) {
  fail((e as Error).message);
}
let store: Store;
try {
  store = await openStore(config);
} catch (e) {
  fail(`the store cannot be opened: ${(e as Error).message}`);
}
try {
  const t0 = performance.now();
  const counts = await seedStore(store, config.TESSERA_DB, { force });
  console.log(`seeded ${JSON.stringify(counts)} in ${Math.round(performance.now() - t0)} ms`);
} catch (e) {
  if (!(e instanceof ConflictError)) throw e;
  await store.close();
  fail(`${e.message}; run \`deno task seed --force\` to seed anyway`);
} finally {
  await store.close().catch(() => {});
}
