/**
 * `deno task import <file> --db <database> --collection <name> [--format csv|ndjson|json] [--replace]`:
 * the command-line twin of `POST /api/datasets/{database}/{collection}`, with the route's checks (names,
 * Tessera's own database: `importTargetProblems`, named by flag). Without --format the extension
 * decides (.csv, .json, .ndjson or .jsonl); any other extension is refused rather than guessed.
 * Exit codes: 0 imported, 1 refused or failed (nothing kept), 2 usage.
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../config.ts";
import { openStore } from "../store/open.ts";
import { importText } from "../services/datasets/import.ts";
import { formatOfFileName, type UploadFormat } from "../core/ingest/records.ts";
import { importTargetProblems } from "../core/ingest/import_target.ts";

const USAGE =
  "usage: deno task import <file> --db <database> --collection <name> [--format csv|ndjson|json] [--replace]";
const FORMATS: readonly string[] = ["csv", "ndjson", "json"];

/** Prints why the command line cannot be used, and exits with 2. */
function usage(message: string): never {
  console.error(`${message}\n${USAGE}`);
  Deno.exit(2);
}

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
if (!file || !values.db || !values.collection) usage("a file, --db and --collection are required");
if (values.format !== undefined && !FORMATS.includes(values.format)) {
  usage(`unknown format '${values.format}': use csv, ndjson or json`);
}
const format = (values.format ?? formatOfFileName(file)) as UploadFormat | null;
if (!format) {
  usage(
    `cannot tell the format of '${file}' from its extension (.csv, .json, .ndjson or .jsonl): ` +
      "pass --format csv|ndjson|json",
  );
}

async function* chunks(path: string): AsyncGenerator<string> {
  const f = await Deno.open(path);
  yield* f.readable.pipeThrough(new TextDecoderStream());
}

const config = loadConfig(Deno.env.toObject());
const target = { db: values.db, collection: values.collection };
const problems = importTargetProblems(target, config.TESSERA_DB);
if (problems.db || problems.collection) {
  // refused before the store is opened: every bad name at once, each named by its flag
  if (problems.db) console.error(`import refused: --db: ${problems.db}`);
  if (problems.collection) console.error(`import refused: --collection: ${problems.collection}`);
  Deno.exit(1);
}
const store = await openStore(config);
try {
  const result = await importText({ store, config }, {
    target,
    format,
    text: chunks(file),
    replace: values.replace,
  });
  console.log(JSON.stringify(result));
} catch (e) {
  console.error(`import failed: ${(e as Error).message}`);
  Deno.exitCode = 1;
} finally {
  await store.close();
}
