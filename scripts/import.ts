/**
 * `deno task import <file> --db <database> --collection <name> [--mode create|replace|append]
 * [--format csv|tsv|ndjson|json] [--delimiter ',' | ';' | tab | '|'] [--target <column>]`: the
 * command-line twin of `POST /api/datasets/{database}/{collection}`, with the route's checks (names,
 * Tessera's own database: `importTargetProblems`, named by flag). Without --format the extension decides
 * (.csv, .tsv, .json, .ndjson or .jsonl); any other extension is refused rather than guessed. Without
 * --delimiter a CSV's is detected. --target records the dataset's target column (the route's `target`).
 * `--replace` is the older spelling of `--mode replace`. A relative <file> is read from the
 * directory the command was run in (`deno task` runs scripts in the project's folder and names the
 * caller's in INIT_CWD). Exit codes: 0 imported, 1 refused or failed (nothing kept), 2 usage.
 */
import { parseArgs } from "node:util";
import { basename, resolve } from "node:path";
import { loadConfig } from "../config.ts";
import { openStore } from "../store/open.ts";
import { type ImportMode, importText } from "../services/datasets/import.ts";
import { IMPORT_MODES } from "../services/datasets/import_log.ts";
import { cliDecider } from "../services/datasets/dataset_decisions.ts";
import {
  CSV_DELIMITERS,
  type CsvDelimiter,
  formatOfFileName,
  type UploadFormat,
} from "../core/ingest/records.ts";
import { importTargetProblems } from "../core/ingest/import_target.ts";

const USAGE = "usage: deno task import <file> --db <database> --collection <name> " +
  "[--mode create|replace|append] [--format csv|tsv|ndjson|json] [--delimiter ',' | ';' | tab | '|'] " +
  "[--target <column>]";
const FORMATS: readonly string[] = ["csv", "tsv", "ndjson", "json"];
/** --delimiter's words for the characters a shell makes awkward. */
const DELIMITER_WORDS: Record<string, CsvDelimiter> = { comma: ",", semicolon: ";", tab: "\t", pipe: "|" };

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
    mode: { type: "string" },
    delimiter: { type: "string" },
    target: { type: "string" },
    replace: { type: "boolean", default: false },
  },
});
const file = positionals[0];
if (!file || !values.db || !values.collection) usage("a file, --db and --collection are required");
if (values.format !== undefined && !FORMATS.includes(values.format)) {
  usage(`unknown format '${values.format}': use csv, tsv, ndjson or json`);
}
if (values.mode !== undefined && !IMPORT_MODES.includes(values.mode as ImportMode)) {
  usage(`unknown mode '${values.mode}': use create, replace or append`);
}
if (values.replace && values.mode !== undefined && values.mode !== "replace") {
  usage(`--replace contradicts --mode ${values.mode}: give --mode alone`);
}
const mode = (values.mode ?? (values.replace ? "replace" : "append")) as ImportMode;
const format = (values.format ?? formatOfFileName(file)) as UploadFormat | null;
if (!format) {
  usage(
    `cannot tell the format of '${file}' from its extension (.csv, .tsv, .json, .ndjson or .jsonl): ` +
      "pass --format csv|ndjson|json|tsv",
  );
}
let delimiter: CsvDelimiter | undefined;
if (values.delimiter !== undefined) {
  const d = DELIMITER_WORDS[values.delimiter] ?? values.delimiter;
  if (!(CSV_DELIMITERS as readonly string[]).includes(d)) {
    usage(`unknown delimiter '${values.delimiter}': use ',', ';', tab (or a tab character) or '|'`);
  }
  if (format !== "csv" && format !== "tsv") usage(`--delimiter applies to CSV and TSV files, not ${format}`);
  delimiter = d as CsvDelimiter;
}
const path = resolve(Deno.env.get("INIT_CWD") ?? Deno.cwd(), file);
try {
  if (!(await Deno.stat(path)).isFile) throw new Error("not a file");
} catch (e) {
  console.error(`import refused: cannot read '${path}': ${(e as Error).message}`);
  Deno.exit(1);
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
    text: chunks(path),
    mode,
    delimiter,
    targetColumn: values.target,
    targetLoc: ["--target"],
    // the decision log names the operating system's user (docs/reliability.md)
    who: cliDecider(Deno.env.get("USER") ?? Deno.env.get("USERNAME")),
    source: { via: "cli", file: basename(path) },
  });
  console.log(JSON.stringify(result));
} catch (e) {
  console.error(`import failed: ${(e as Error).message}`);
  Deno.exitCode = 1;
} finally {
  await store.close();
}
