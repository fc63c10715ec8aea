/**
 * `deno task export --db <database> --collection <name> [--format ndjson|csv] [--fields a,b] [--out FILE]`:
 * the command-line twin of `GET /api/datasets/{database}/{collection}`, against the configured store, with
 * the route's rules (Tessera's own database refused, a field no document carries refused, the same rows
 * and CSV). Without --format the --out file's extension decides (.csv: CSV), else NDJSON. The rows go to
 * stdout, or with --out to FILE, resolved against the directory the command was run in (`deno task` runs
 * scripts in the project's folder and names the caller's in INIT_CWD). The file appears only whole: the
 * rows are written to a temporary file beside it, renamed at the end, and removed on failure.
 * Exit codes: 0 exported, 1 refused or failed (no file written), 2 usage.
 */
import { parseArgs } from "node:util";
import { basename, dirname, resolve } from "node:path";
import { loadConfig } from "../config.ts";
import { openStore } from "../store/open.ts";
import { type ExportFormat, exportRows, parseFieldList } from "../services/datasets/export.ts";
import { importTargetProblems } from "../core/ingest/import_target.ts";

const USAGE = "usage: deno task export --db <database> --collection <name> [--format ndjson|csv] " +
  "[--fields a,b] [--out FILE]";
const FORMATS: readonly string[] = ["ndjson", "csv"];

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
    fields: { type: "string" },
    out: { type: "string" },
  },
});
if (positionals.length) usage(`unexpected argument '${positionals[0]}'`);
if (!values.db || !values.collection) usage("--db and --collection are required");
if (values.format !== undefined && !FORMATS.includes(values.format)) {
  usage(`unknown format '${values.format}': use ndjson or csv`);
}
if (values.out === "") usage("--out names no file");
const format =
  (values.format ?? (values.out?.toLowerCase().endsWith(".csv") ? "csv" : "ndjson")) as ExportFormat;
let fields: string[] | undefined;
if (values.fields !== undefined) {
  const parsed = parseFieldList(values.fields);
  if ("problem" in parsed) usage(`--fields: ${parsed.problem}`);
  fields = parsed.fields;
}
const out = values.out === undefined ? null : resolve(Deno.env.get("INIT_CWD") ?? Deno.cwd(), values.out);

const config = loadConfig(Deno.env.toObject());
const target = { db: values.db, collection: values.collection };
const problems = importTargetProblems(target, config.TESSERA_DB);
if (problems.db || problems.collection) {
  // refused before the store is opened: every bad name at once, each named by its flag
  if (problems.db) console.error(`export refused: --db: ${problems.db}`);
  if (problems.collection) console.error(`export refused: --collection: ${problems.collection}`);
  Deno.exit(1);
}

const store = await openStore(config);
const temp = out && `${dirname(out)}/.${basename(out)}.${crypto.randomUUID().slice(0, 8)}.part`;
try {
  const rows = await exportRows({ store, config }, {
    target,
    format,
    fields,
    loc: { db: ["--db"], collection: ["--collection"], fields: ["--fields"] },
  });
  if (temp && out) {
    const file = await Deno.open(temp, { write: true, createNew: true });
    await rows.body.pipeTo(file.writable); // closes the file
    await Deno.rename(temp, out);
    console.error(`exported ${target.db}/${target.collection} as ${format} to ${out}`);
  } else {
    await rows.body.pipeTo(Deno.stdout.writable, { preventClose: true });
  }
} catch (e) {
  if (temp) await Deno.remove(temp).catch(() => {});
  const err = e as Error & { loc?: unknown[] };
  const flag = Array.isArray(err.loc) && typeof err.loc[0] === "string" && err.loc[0].startsWith("--")
    ? `${err.loc[0]}: `
    : "";
  console.error(`export failed: ${flag}${err.message}`);
  Deno.exitCode = 1;
} finally {
  await store.close();
}
