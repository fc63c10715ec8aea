/**
 * The correlation endpoint end to end on the embedded store: N rows × 20 columns imported into a
 * temporary Deno KV file, then `POST /api/correlations/analyze` with all three methods (the time is
 * mostly reading the documents back; compare bench/correlation_bench.ts for the computation alone).
 *
 *   deno run -A bench/valuation_endpoint.ts [rows]
 */
import { jsonBody, testApp } from "../tests/support/app.ts";
import { importRecords } from "../services/datasets/import.ts";
import { correlationColumns } from "./valuation_data.ts";

const rows = Number(Deno.args[0] ?? 100_000);
const cols = correlationColumns(rows, 20);
async function* records() {
  for (let r = 0; r < rows; r++) {
    const doc: Record<string, number | null> = {};
    cols.forEach((c, j) => (doc[`c${j}`] = c[r] === c[r] ? c[r] : null));
    yield doc;
  }
}
const t = await testApp();
try {
  let t0 = performance.now();
  await importRecords(t.store, t.config.TESSERA_DB, { db: "bench", collection: "wide" }, records());
  console.log(`import of ${rows} rows: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  t0 = performance.now();
  const res = await t.app.request(
    "/api/correlations/analyze?dataset-id=wide",
    jsonBody("POST", { include_kendall: true }),
  );
  const body = await res.json();
  console.log(
    `POST /api/correlations/analyze (all three): ${res.status} in ${
      ((performance.now() - t0) / 1000).toFixed(1)
    } s, ` +
      `shape ${body.dataset_shape}`,
  );
  t0 = performance.now();
  for await (const _ of t.store.stream({ db: "bench", collection: "wide" }, { batchSize: 5000 })) {
    /* read */
  }
  console.log(`reading the ${rows} documents back alone: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
} finally {
  await t.close();
}
