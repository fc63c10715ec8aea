/**
 * `deno task build:wasm`: compiles wasm/audit.ts (AssemblyScript) into wasm/audit.wasm and records the
 * hashes of source, compiler version, flags and output in wasm/audit.wasm.json. When the record matches
 * it does nothing (so `deno task test` pays nothing when up to date). `--check` compiles in memory and
 * fails unless the bytes equal the committed .wasm (the build is deterministic); `--force` rebuilds.
 * The compiler comes through Deno's npm: specifier, so it works offline once the package is cached.
 */

export const ASC_VERSION = "0.28.20";
export const FLAGS = ["-O3", "--runtime", "stub", "--noAssert", "--use", "abort=", "--enable", "simd"];

const dir = new URL(".", import.meta.url);
const SOURCE = new URL("audit.ts", dir), WASM = new URL("audit.wasm", dir);
const RECORD = new URL("audit.wasm.json", dir);

export interface BuildRecord {
  assemblyscript: string;
  flags: string[];
  source_sha256: string;
  wasm_sha256: string;
}

/** SHA-256 of bytes or text, hex. */
export async function sha256(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : new Uint8Array(data);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** What the record must say for the current source, compiler and flags. */
export async function sourceKey(): Promise<string> {
  return await sha256(`${ASC_VERSION}\n${FLAGS.join(" ")}\n${await Deno.readTextFile(SOURCE)}`);
}

/** Compiles the source in memory and returns the module's bytes. */
export async function compile(): Promise<Uint8Array> {
  const { default: asc } = await import(`npm:assemblyscript@${ASC_VERSION}/asc`);
  let binary: Uint8Array | null = null;
  const source = await Deno.readTextFile(SOURCE);
  const { error, stderr } = await asc.main(["audit.ts", "--outFile", "audit.wasm", ...FLAGS], {
    readFile: (name: string) => (name === "audit.ts" ? source : null),
    writeFile: (name: string, contents: Uint8Array) => {
      if (name.endsWith(".wasm")) binary = contents;
    },
    listFiles: () => [],
  });
  if (error || !binary) throw new Error(`asc failed: ${error?.message ?? "no output"}\n${stderr.toString()}`);
  return binary;
}

async function upToDate(): Promise<boolean> {
  try {
    const record: BuildRecord = JSON.parse(await Deno.readTextFile(RECORD));
    return record.source_sha256 === await sourceKey() &&
      record.wasm_sha256 === await sha256(await Deno.readFile(WASM));
  } catch {
    return false;
  }
}

async function main(args: string[]): Promise<number> {
  if (args.includes("--check")) {
    const fresh = await compile(), committed = await Deno.readFile(WASM);
    const same = fresh.length === committed.length && fresh.every((b, i) => b === committed[i]);
    const recorded = await upToDate();
    if (!same) {
      console.error(
        "wasm/audit.wasm differs from a fresh build of wasm/audit.ts: run `deno task build:wasm`",
      );
    } else if (!recorded) console.error("wasm/audit.wasm.json is stale: run `deno task build:wasm`");
    else console.log("wasm/audit.wasm matches its source");
    return same && recorded ? 0 : 1;
  }
  if (!args.includes("--force") && await upToDate()) return 0;
  const binary = await compile();
  await Deno.writeFile(WASM, binary);
  const record: BuildRecord = {
    assemblyscript: ASC_VERSION,
    flags: FLAGS,
    source_sha256: await sourceKey(),
    wasm_sha256: await sha256(binary),
  };
  await Deno.writeTextFile(RECORD, JSON.stringify(record, null, 2) + "\n");
  console.log(`built wasm/audit.wasm (${binary.length} bytes)`);
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
