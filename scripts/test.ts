/**
 * `deno task test [deno test args...]`: builds the WASM modules when their build script exists, gives
 * the tests a MongoDB-wire server (MONGO_URL if set, else a throwaway FerretDB) as TEST_MONGO_URL and, for
 * the whole suite or a named Keycloak test, a throwaway Keycloak (scripts/keycloak.ts) as TEST_KEYCLOAK_URL, runs
 * `deno test` serially on tests/ (or on the given files), and exits with its code. On the whole suite
 * it then runs the audit, mitigation, valuation and cleaning route tests again with WORKERS=0 (every
 * worker task inline, as where no Web Worker can start); each run prints its own deno test summary.
 */
import { existsSync } from "node:fs";
import { startFerretDB } from "./ferretdb.ts";
import { startKeycloak } from "./keycloak.ts";
import type { Server } from "./processes.ts";

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

/** Whether the arguments name test files or folders (else the whole suite runs). */
const namesPaths = (extra: string[]) => extra.some((a) => !a.startsWith("-") && existsSync(a));

/** `--expose-gc` lets the streaming test measure retained memory; tests/ unless files were named. */
function testArgs(extra: string[]): string[] {
  return [
    "test",
    "--allow-all",
    "--v8-flags=--expose-gc",
    ...extra,
    ...(namesPaths(extra) ? [] : ["tests/"]),
  ];
}

/** The route tests that run a second time with WORKERS=0: every use case that computes in the pool. */
function inlineTests(): string[] {
  const dir = new URL("../tests/routes/", import.meta.url);
  const pick = /^(spatial_.*|valuation|cleaning.*)_test\.ts$/;
  const files = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => pick.test(n)).sort();
  if (!files.length) throw new Error("no route test to run with WORKERS=0 in tests/routes/");
  return files.map((n) => `tests/routes/${n}`);
}

/** Whether the run needs Keycloak: the whole suite, or a named file or folder with Keycloak tests. */
function needsKeycloak(extra: string[]): boolean {
  if (!namesPaths(extra)) return true;
  return extra.some((a) => !a.startsWith("-") && (/keycloak/.test(a) || isFolder(a)));
}

const isFolder = (path: string) => {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
};

async function main(): Promise<number> {
  const servers: Server[] = [];
  const stopAll = () => Promise.all(servers.map((s) => s.stop()));
  const onSignal = (sig: Deno.Signal) => () => {
    if (child) return child.kill(sig); // the child exits, and the finally below cleans up
    stopAll().finally(() => Deno.exit(130));
  };
  const handlers = SIGNALS.map((sig) => [sig, onSignal(sig)] as const);
  for (const [sig, fn] of handlers) Deno.addSignalListener(sig, fn);
  // Keycloak takes 15-25 s to start: it starts beside the WASM build and FerretDB
  const keycloak = needsKeycloak(Deno.args) ? startKeycloak().then((k) => (servers.push(k), k)) : null;
  keycloak?.catch(() => {}); // awaited below; a failure while the build runs is not unhandled
  try {
    const wasm = await buildWasm();
    if (wasm !== 0) return wasm;
    const given = Deno.env.get("MONGO_URL");
    const ferret = given ? null : await startFerretDB();
    if (ferret) servers.push(ferret);
    const env: Record<string, string> = { TEST_MONGO_URL: given ?? ferret!.url };
    if (keycloak) env.TEST_KEYCLOAK_URL = (await keycloak).url;
    const code = await deno(testArgs(Deno.args), env);
    if (namesPaths(Deno.args) || Deno.env.get("WORKERS") === "0") return code;
    console.log(
      "\nthe audit, mitigation, valuation and cleaning route tests again, every task inline (WORKERS=0):",
    );
    const inline = await deno(testArgs([...Deno.args, ...inlineTests()]), { ...env, WORKERS: "0" });
    return code || inline;
  } finally {
    for (const [sig, fn] of handlers) Deno.removeSignalListener(sig, fn);
    await keycloak?.catch(() => {}); // one still starting is stopped too
    await stopAll();
  }
}

Deno.exit(await main());
