/** `deno task seed`: writes the demo datasets and task into the configured store. */
import { loadConfig } from "../config.ts";
import { openStore } from "../store/open.ts";
import { seedDemo } from "../services/demo/seed.ts";

const config = loadConfig(Deno.env.toObject());
const store = await openStore(config);
try {
  const t0 = performance.now();
  const counts = await seedDemo(store, config.TESSERA_DB);
  console.log(`seeded ${JSON.stringify(counts)} in ${Math.round(performance.now() - t0)} ms`);
} finally {
  await store.close();
}
