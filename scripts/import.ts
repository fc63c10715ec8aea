/**
 * `deno task import <file> --db <database> --collection <name> [--format csv|ndjson|json] [--replace]`:
 * the command-line twin of `POST /api/datasets/{database}/{collection}`.
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../config.ts";
import { openStore } from "../store/open.ts";
import { importRecords } from "../store/importer.ts";
import { readRecords, type UploadFormat } from "../core/ingest/records.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    db: { type: "string" },
    collection: { type: "string" },
    format: { type: "string" },
    replace: { type: "boolean", default: false },
  },
});
const file = positionals[0];
if (!file || !values.db || !values.collection) {
  console.error(
    "usage: deno task import <file> --db <database> --collection <name> [--format csv|ndjson|json] [--replace]",
  );
  Deno.exit(2);
}
const ext = file.split(".").pop()?.toLowerCase();
const format =
  (values.format ?? (ext === "csv" ? "csv" : ext === "json" ? "json" : "ndjson")) as UploadFormat;
if (!["csv", "ndjson", "json"].includes(format)) {
  console.error(`unknown format '${format}'`);
  Deno.exit(2);
}

async function* chunks(path: string): AsyncGenerator<string> {
  const f = await Deno.open(path);
  yield* f.readable.pipeThrough(new TextDecoderStream());
}

const config = loadConfig(Deno.env.toObject());
const store = await openStore(config);
try {
  const result = await importRecords(
    store,
    config.TESSERA_DB,
    { db: values.db, collection: values.collection },
    readRecords(format, chunks(file)),
    { replace: values.replace },
  );
  console.log(JSON.stringify(result));
} catch (e) {
  console.error(`import failed: ${(e as Error).message}`);
  Deno.exitCode = 1;
} finally {
  await store.close();
}
