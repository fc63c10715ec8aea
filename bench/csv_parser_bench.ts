/**
 * `deno run -A bench/csv_parser_bench.ts [--rows N] [--runs N]`: Tessera's own streaming CSV reader
 * (core/ingest/csv.ts) against the two maintained parsers issue 21 names, papaparse and csv-parse, on a
 * CSV of N rows (default 200,000) × 8 columns (integers, text, decimals, booleans, a quoted cell holding
 * the delimiter, a zero-padded code, a quoted cell with doubled quotes, a small integer), LF line ends,
 * fed in 64 KiB chunks as an upload arrives:
 *   parse  — rows of fields only;
 *   import — the whole CSV import into a temporary Deno KV file (`importRecords`, the header, typed cells
 *            by `inferCell`, batches of 1,000), the reader being the only difference.
 * Each parser gets the same adapter duties the import needs of a reader: the physical line each row
 * starts on (for the 400s naming a line) and a refusal of an unclosed quote. The three take turns within
 * each run so a busy machine slows all alike; prints the best and the median of N runs (default 3), of
 * wall time and of the process's CPU time (user + system, every thread: KV's writer included), which a
 * busy machine disturbs less.
 */
import { cpuUsage } from "node:process";
import fc from "fast-check";
import { readCsv } from "../core/ingest/csv.ts";
import { inferCell } from "../core/ingest/values.ts";
import { BadRequestError } from "../core/errors.ts";
import { type Reader, READERS } from "./csv_readers.ts";
import { KvStore } from "../store/kv.ts";
import { importRecords } from "../services/datasets/import.ts";

const arg = (name: string, fallback: number) => {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
};
const ROWS = arg("--rows", 200_000);
const RUNS = arg("--runs", 3);
const CHUNK = 65_536;

function makeCsv(rows: number): string {
  const out = ["id,name,score,member,city,zip,note,k"];
  for (let i = 0; i < rows; i++) {
    out.push(
      `${i},name ${i},${(i * 0.37).toFixed(3)},${i % 2 ? "true" : "false"},"Paris, FR",` +
        `${String(i % 100_000).padStart(5, "0")},"say ""hi""",${i % 7}`,
    );
  }
  return out.join("\n") + "\n";
}

async function* chunked(text: string): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += CHUNK) yield text.slice(i, i + CHUNK);
}

/** Records keyed by the header, cells typed: what csvRecords does, over any reader. */
async function* records(reader: Reader, text: string): AsyncGenerator<Record<string, unknown>> {
  let header: string[] | null = null;
  for await (const { line, fields } of reader(chunked(text), ",")) {
    if (!header) {
      header = fields;
      continue;
    }
    if (fields.length !== header.length) throw new BadRequestError(`line ${line}: field count`);
    const rec: Record<string, unknown> = {};
    header.forEach((h, i) => (rec[h] = inferCell(fields[i])));
    yield rec;
  }
}

const text = makeCsv(ROWS);
// the same answer from all three on the benchmark's kind of file first
const sample = makeCsv(50) + '"multi\nline",x,1,true,y,00001,"""",2\n51,last,2,false,z,7,n,3\n';
const expected = await Array.fromAsync(readCsv(chunked(sample), ","));
for (const [name, reader] of READERS) {
  const got = await Array.fromAsync(reader(chunked(sample), ","));
  if (JSON.stringify(got) !== JSON.stringify(expected)) throw new Error(`${name} reads the sample otherwise`);
}

/**
 * What each reader does with the cases Tessera's reader is held to (tests/core/ingest/csv_test.ts) and
 * with line ends as users bring them: true when it gives the rows (or the refusal) Tessera's does.
 */
async function conformance(reader: Reader): Promise<Record<string, boolean | string>> {
  const rows = (text: string, sizes: number[] = []) => Array.fromAsync(reader(chunkedBy(text, sizes), ","));
  const same = async (text: string, sizes?: number[]) => {
    try {
      return JSON.stringify(await rows(text, sizes)) ===
        JSON.stringify(await Array.fromAsync(readCsv(chunkedBy(text, sizes), ",")));
    } catch {
      return false;
    }
  };
  const refuses = async (text: string, line: RegExp) => {
    try {
      await rows(text);
      return false;
    } catch (e) {
      return e instanceof BadRequestError && line.test(e.message);
    }
  };
  // the chunking property of csv_test.ts, on 300 fixed random tables
  const cell = fc.oneof(fc.string(), fc.constantFrom('"', '""', ",", "\n", "\r\n", 'a"b'));
  const tables = fc.sample(
    fc.tuple(
      fc.array(fc.array(cell, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
      fc.array(fc.integer({ min: 1, max: 7 }), { maxLength: 40 }),
    ),
    { numRuns: 300, seed: 21 },
  );
  let chunkingOk = 0;
  for (const [table, sizes] of tables) {
    const t = table.map((r) => r.map((f) => `"${f.replaceAll('"', '""')}"`).join(",")).join("\n");
    if (await same(t, sizes)) chunkingOk++;
  }
  /** Time to read a quoted cell of `mb` MB arriving in 64 KiB chunks (an unfinished row re-read per chunk?). */
  const longCell = async (mb: number) => {
    const t0 = performance.now();
    try {
      await Array.fromAsync(reader(chunked(`a,b\n"${"x".repeat(mb * 1_000_000)}",1\n`), ","));
      return `${Math.round(performance.now() - t0)} ms`;
    } catch (e) {
      return `fails: ${(e as Error).message.slice(0, 60)}`;
    }
  };
  return {
    "RFC 4180 case (CRLF, quoted line break, blank line)": await same(
      'a,b,c\r\n1,"x, y",3\r\n"multi\nline","say ""hi""",\r\n\r\nlast,row,here',
    ),
    "chunking property (300 tables)": `${chunkingOk}/300`,
    "unclosed quote: a 400 naming line 3": await refuses('a,b\n1,2\n3,"open\nmore', /line 3/),
    "text after a closing quote: a 400": await refuses('a,b\n"x"y,2\n', /line 2/),
    "mixed line ends (LF, CRLF, CR)": await same("a,b\n1,2\r\n3,4\r5,6\n"),
    "a BOM kept for the header to strip": await same("\uFEFFa,b\n1,2\n"),
    "an 8 MB quoted cell in 64 KiB chunks": await longCell(8),
    "a 32 MB quoted cell in 64 KiB chunks": await longCell(32),
  };
}

/** `text` cut into chunks of the given sizes, then the rest. */
async function* chunkedBy(text: string, sizes: number[] = []): AsyncGenerator<string> {
  let i = 0;
  for (const n of sizes) {
    if (i >= text.length) break;
    yield text.slice(i, i + n);
    i += n;
  }
  if (i < text.length) yield text.slice(i);
}

const checks: Record<string, Record<string, boolean | string>> = {};
for (const [name, reader] of READERS) checks[name] = await conformance(reader);
console.log("| case | " + READERS.map(([n]) => n).join(" | ") + " |");
console.log("| --- |" + READERS.map(() => " --- |").join(""));
for (const c of Object.keys(checks.tessera)) {
  const cells = READERS.map(([n]) => {
    const v = checks[n][c];
    return v === true ? "same" : v === false ? "differs" : v;
  });
  console.log(`| ${c} | ${cells.join(" | ")} |`);
}
console.log();

const dir = await Deno.makeTempDir({ prefix: "tessera-csv-bench-" });
const times: Record<string, { parse: number[]; import: number[]; cpu: number[] }> = {};
for (const [name] of READERS) times[name] = { parse: [], import: [], cpu: [] };
/** CPU milliseconds of this process so far (user + system, every thread). */
const cpuMs = () => {
  const u = cpuUsage();
  return (u.user + u.system) / 1000;
};
try {
  for (let run = -1; run < RUNS; run++) { // run -1 warms up
    for (const [name, reader] of READERS) {
      let t0 = performance.now();
      let n = 0;
      for await (const row of reader(chunked(text), ",")) n += row.fields.length;
      const parse = performance.now() - t0;
      if (n !== (ROWS + 1) * 8) throw new Error(`${name}: ${n} fields`);
      const store = await KvStore.open(`${dir}/${name}-${run}.kv`);
      let cpu: number;
      try {
        t0 = performance.now();
        const c0 = cpuMs();
        const r = await importRecords(
          store,
          "tessera",
          { db: "bench", collection: "csv" },
          records(reader, text),
        );
        cpu = cpuMs() - c0;
        if (r.rows !== ROWS) throw new Error(`${name}: ${r.rows} rows`);
      } finally {
        await store.close();
      }
      const imported = performance.now() - t0;
      if (run >= 0) {
        times[name].parse.push(parse);
        times[name].import.push(imported);
        times[name].cpu.push(cpu);
      }
    }
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}

const stat = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { best: s[0], median: s[Math.floor(s.length / 2)] };
};
const base = stat(times.tessera.import), baseCpu = stat(times.tessera.cpu);
const sec = (ms: number) => (ms / 1000).toFixed(2);
const pct = (x: number, b: number) => `${x >= b ? "+" : ""}${((x / b - 1) * 100).toFixed(1)} %`;
console.log(
  `${ROWS.toLocaleString("en")} rows × 8 columns (${(text.length / 1e6).toFixed(1)} MB), ${RUNS} runs`,
);
console.log(
  "| reader | parse only, best / median | import wall, best / median | import CPU, best / median | " +
    "import rows/s (best wall) | import cost vs tessera (best wall; best CPU) |",
);
console.log("| --- | --- | --- | --- | --- | --- |");
for (const [name] of READERS) {
  const p = stat(times[name].parse), i = stat(times[name].import), c = stat(times[name].cpu);
  const rate = Math.round(ROWS / (i.best / 1000)).toLocaleString("en");
  console.log(
    `| ${name} | ${sec(p.best)} / ${sec(p.median)} s | ${sec(i.best)} / ${sec(i.median)} s | ` +
      `${sec(c.best)} / ${sec(c.median)} s | ${rate} | ${pct(i.best, base.best)}; ${
        pct(c.best, baseCpu.best)
      } |`,
  );
}
