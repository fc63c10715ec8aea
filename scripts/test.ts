/**
 * `deno task test [deno test args...]`: builds the WASM modules when their build script exists, gives
 * the tests a MongoDB-wire server (MONGO_URL if set, else a throwaway FerretDB) as TEST_MONGO_URL, runs
 * `deno test` serially on tests/ (or on the given files), and exits with its code.
 */
import { existsSync } from "node:fs";
import { startFerretDB } from "./ferretdb.ts";

const SIGNALS: Deno.Signal[] = ["SIGINT", "SIGTERM"];

/** The running child, so a signal can be passed on to it rather than orphaning it. */
let child: Deno.ChildProcess | null = null;

/** Runs a deno subcommand with inherited stdio; resolves to its exit code. */
async function deno(args: string[], env: Record<string, string> = {}): Promise<number> {
  child = new Deno.Command(Deno.execPath(), { args, env, stdin: "null" }).spawn();
  const { code } = await child.status;
  child = null;
  return code;
}

/** Builds the WASM modules first when the project has a build script for them (it may not yet). */
async function buildWasm(): Promise<number> {
  const script = new URL("../wasm/build.ts", import.meta.url);
  return existsSync(script) ? await deno(["run", "--allow-all", script.pathname]) : 0;
}

/** `--expose-gc` lets the streaming test measure retained memory; tests/ unless files were named. */
function testArgs(extra: string[]): string[] {
  const namesPath = extra.some((a) => !a.startsWith("-") && existsSync(a));
  return ["test", "--allow-all", "--v8-flags=--expose-gc", ...extra, ...(namesPath ? [] : ["tests/"])];
}

async function main(): Promise<number> {
  let server: Awaited<ReturnType<typeof startFerretDB>> | null = null;
  const onSignal = (sig: Deno.Signal) => () => {
    if (child) return child.kill(sig); // the child exits, and the finally below cleans up
    server?.stop().finally(() => Deno.exit(130));
    if (!server) Deno.exit(130);
  };
  const handlers = SIGNALS.map((sig) => [sig, onSignal(sig)] as const);
  for (const [sig, fn] of handlers) Deno.addSignalListener(sig, fn);
  try {
    const wasm = await buildWasm();
    if (wasm !== 0) return wasm;
    const given = Deno.env.get("MONGO_URL");
    if (!given) server = await startFerretDB();
    return await deno(testArgs(Deno.args), { TEST_MONGO_URL: given ?? server!.url });
  } finally {
    for (const [sig, fn] of handlers) Deno.removeSignalListener(sig, fn);
    await server?.stop();
  }
}

Deno.exit(await main());
