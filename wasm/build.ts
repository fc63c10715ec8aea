/**
 * `deno task build:wasm`: compiles each module's AssemblyScript source (wasm/NAME.ts) into
 * wasm/NAME.wasm and records the hashes of source, compiler version, flags and output in
 * wasm/NAME.wasm.json. When a record matches it does nothing (so `deno task test` pays nothing when up
 * to date). `--check` compiles in memory and fails unless the bytes equal the committed .wasm (the
 * build is deterministic); `--force` rebuilds. The compiler comes through Deno's npm: specifier, so it
 * works offline once the package is cached.
 */

export const ASC_VERSION = "0.28.20";
export const FLAGS = ["-O3", "--runtime", "stub", "--noAssert", "--use", "abort=", "--enable", "simd"];

/** The modules: the Monte Carlo kernel of the spatial audit, Kendall's inversion counter, the trees' node kernel. */
export const MODULES = ["audit", "kendall", "tree_split"] as const;
export type Module = typeof MODULES[number];

const dir = new URL(".", import.meta.url);
const source = (name: Module) => new URL(`${name}.ts`, dir);
const wasm = (name: Module) => new URL(`${name}.wasm`, dir);
const record = (name: Module) => new URL(`${name}.wasm.json`, dir);

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
export async function sourceKey(name: Module): Promise<string> {
  return await sha256(`${ASC_VERSION}\n${FLAGS.join(" ")}\n${await Deno.readTextFile(source(name))}`);
}

/** Compiles a module's source in memory and returns its bytes. */
export async function compile(name: Module): Promise<Uint8Array> {
  const { default: asc } = await import(`npm:assemblyscript@${ASC_VERSION}/asc`);
  let binary: Uint8Array | null = null;
  const text = await Deno.readTextFile(source(name));
  const { error, stderr } = await asc.main([`${name}.ts`, "--outFile", `${name}.wasm`, ...FLAGS], {
    readFile: (file: string) => (file === `${name}.ts` ? text : null),
    writeFile: (file: string, contents: Uint8Array) => {
      if (file.endsWith(".wasm")) binary = contents;
    },
    listFiles: () => [],
  });
  if (error || !binary) throw new Error(`asc failed: ${error?.message ?? "no output"}\n${stderr.toString()}`);
  return binary;
}

async function upToDate(name: Module): Promise<boolean> {
  try {
    const rec: BuildRecord = JSON.parse(await Deno.readTextFile(record(name)));
    return rec.source_sha256 === await sourceKey(name) &&
      rec.wasm_sha256 === await sha256(await Deno.readFile(wasm(name)));
  } catch {
    return false;
  }
}

/** `--check` for one module: 0 when the committed bytes are a fresh build and the record says so. */
async function check(name: Module): Promise<number> {
  const fresh = await compile(name), committed = await Deno.readFile(wasm(name));
  const same = fresh.length === committed.length && fresh.every((b, i) => b === committed[i]);
  const recorded = await upToDate(name);
  if (!same) {
    console.error(
      `wasm/${name}.wasm differs from a fresh build of wasm/${name}.ts: run \`deno task build:wasm\``,
    );
  } else if (!recorded) console.error(`wasm/${name}.wasm.json is stale: run \`deno task build:wasm\``);
  else console.log(`wasm/${name}.wasm matches its source`);
  return same && recorded ? 0 : 1;
}

/** Builds one module unless its record is up to date (or `force`). */
async function build(name: Module, force: boolean): Promise<void> {
  if (!force && await upToDate(name)) return;
  const binary = await compile(name);
  await Deno.writeFile(wasm(name), binary);
  const rec: BuildRecord = {
    assemblyscript: ASC_VERSION,
    flags: FLAGS,
    source_sha256: await sourceKey(name),
    wasm_sha256: await sha256(binary),
  };
  await Deno.writeTextFile(record(name), JSON.stringify(rec, null, 2) + "\n");
  console.log(`built wasm/${name}.wasm (${binary.length} bytes)`);
}

async function main(args: string[]): Promise<number> {
  if (args.includes("--check")) {
    let failed = 0;
    for (const name of MODULES) failed += await check(name);
    return failed ? 1 : 0;
  }
  for (const name of MODULES) await build(name, args.includes("--force"));
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
