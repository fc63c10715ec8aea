/**
 * The JSON-array import's reader against a maintained streaming parser: Tessera's scanner
 * (core/ingest/json_array.ts: finds where each top-level element ends, JSON.parse reads that element)
 * and npm `@streamparser/json` (a tokenizer and parser in JavaScript, emitting each element of `$.*`),
 * each turning a JSON array file, read in 64 KiB text chunks as the import reads a body, into records.
 * Every run is its own process, so its peak RSS (VmHWM) is the parser's; runs alternate between the two.
 * Cases: the import benchmark's rows (lat, lon, y_true, y_pred, region_ids; bench/import_data.ts) as an
 * array, and one element holding a 32 MB string (a long cell split over many chunks).
 *
 *   deno run -A bench/json_array_bench.ts [--rows 200000] [--runs 3]
 */
import { parseArgs } from "node:util";
import { JSONParser } from "@streamparser/json";
import { writeBenchFile } from "./import_data.ts";
import { jsonArrayRecords } from "../core/ingest/records.ts";

type Reader = "tessera" | "streamparser" | "read";
const READERS = ["tessera", "streamparser"] as const;

/** Text chunks of a file, as the import route reads a body. */
async function* chunks(path: string): AsyncGenerator<string> {
  const f = await Deno.open(path);
  yield* f.readable.pipeThrough(new TextDecoderStream());
}

/** @streamparser/json driven as the import needs a reader: the elements of a top-level array, in order. */
async function* streamparserRecords(text: AsyncIterable<string>): AsyncGenerator<unknown> {
  const parser = new JSONParser({ paths: ["$.*"], keepStack: false });
  const ready: unknown[] = [];
  let failure: Error | null = null;
  let started = false; // the first character was checked: an object's values would be emitted as well
  parser.onValue = ({ value }) => ready.push(value);
  parser.onError = (e) => (failure ??= e);
  for await (const chunk of text) {
    if (!started && chunk.trim()) {
      if (chunk.trimStart()[0] !== "[") throw new Error("a JSON upload must be an array of objects");
      started = true;
    }
    parser.write(chunk);
    if (failure) throw failure;
    for (const v of ready) yield v;
    ready.length = 0;
  }
  if (!parser.isEnded) parser.end();
  if (failure) throw failure;
  yield* ready;
}

/** The records of `path` by `reader` ("read": the chunks alone): their count, time, CPU and peak RSS. */
async function run(reader: Reader, path: string) {
  const t0 = performance.now();
  let n = 0;
  const records = reader === "tessera"
    ? jsonArrayRecords(chunks(path))
    : reader === "streamparser"
    ? streamparserRecords(chunks(path))
    : chunks(path);
  for await (const _ of records) n++;
  const seconds = (performance.now() - t0) / 1000;
  const stat = (await Deno.readTextFile("/proc/self/stat")).split(") ")[1].split(" ");
  const status = await Deno.readTextFile("/proc/self/status");
  return {
    records: n,
    seconds,
    cpu: (+stat[11] + +stat[12]) / 100,
    hwmMb: Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1]) / 1024,
  };
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rows: { type: "string", default: "200000" },
    runs: { type: "string", default: "3" },
    child: { type: "string" },
    file: { type: "string" },
  },
});

if (values.child) {
  // one measured run in this process: its figures on stdout as JSON
  console.log(JSON.stringify(await run(values.child as Reader, values.file!)));
  Deno.exit(0);
}

const rows = Number(values.rows);
const runs = Number(values.runs);
const dir = await Deno.makeTempDir({ prefix: "tessera-json-bench-" });
try {
  const table = `${dir}/rows.json`;
  const bytes = await writeBenchFile(table, rows, "json");
  const long = `${dir}/long.json`;
  await Deno.writeTextFile(long, `[{"id":1,"text":"${"x".repeat(32 * 1024 * 1024)}"},{"id":2}]`);
  const baseline = await child("read", table);
  console.log(
    `reading the ${(bytes / 1e6).toFixed(1)} MB array's chunks alone: ${baseline.seconds.toFixed(2)} s, ` +
      `peak RSS ${baseline.hwmMb.toFixed(0)} MB`,
  );
  for (
    const [label, path] of [
      [`${rows} rows × 5 columns, ${(bytes / 1e6).toFixed(1)} MB`, table],
      ["one element with a 32 MB string", long],
    ]
  ) {
    const seen: Record<string, Awaited<ReturnType<typeof child>>[]> = { tessera: [], streamparser: [] };
    for (let r = 0; r < runs; r++) for (const reader of READERS) seen[reader].push(await child(reader, path));
    console.log(label);
    for (const reader of READERS) {
      const s = seen[reader].sort((a, b) => a.seconds - b.seconds);
      const med = s[Math.floor(s.length / 2)];
      const cpu = Math.min(...s.map((x) => x.cpu));
      const hwm = Math.max(...s.map((x) => x.hwmMb));
      console.log(
        `  ${reader.padEnd(12)} ${s[0].records} records: best ${s[0].seconds.toFixed(2)} s ` +
          `(median ${med.seconds.toFixed(2)} s), CPU best ${cpu.toFixed(2)} s, peak RSS ${hwm.toFixed(0)} MB`,
      );
    }
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}

/** One run in a fresh process. */
async function child(reader: Reader, path: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(import.meta.url).pathname, "--child", reader, "--file", path],
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`the ${reader} run failed`);
  return JSON.parse(new TextDecoder().decode(out.stdout)) as {
    records: number;
    seconds: number;
    cpu: number;
    hwmMb: number;
  };
}
