/**
 * `deno task fuzz [--max-time SECONDS] [-- schemathesis args...]`: schema-driven fuzzing of the
 * whole API (docs/reliability.md, "Fuzzing").
 *
 * 1. Sets up schemathesis (v4, from PyPI) in a local virtualenv, `.cache/fuzz-venv` (git-ignored), once, on
 *    a Python whose AST constructor is safe in threads (`fixedPython`; FUZZ_PYTHON names one by hand).
 * 2. Starts Tessera on a free loopback port with demo data in a throwaway Deno KV store (`main.ts --dev`
 *    into a temporary KV_PATH), the rate limit raised (RATE_LIMIT_CAPACITY) so no route goes untested behind
 *    429s, and a token that outlives the run (TOKEN_TTL_SECONDS).
 * 3. Runs `schemathesis run` against its /openapi.json with every check and every phase, two workers, for
 *    a bounded time (default 420 s), with the bearer token on every request and the project's
 *    schemathesis.toml (the statuses spec 3 and the import's grammar add; docs/reliability.md). No hooks:
 *    every failure counts. A refusal that needs the stored data is a 404 or 409 (docs/architecture.md), which
 *    schemathesis accepts for a schema-valid request; the response-time check allows 30 s (a feature
 *    importance compares four classifiers on a shared machine), not its default 10 s.
 * 4. Stops the service and exits with schemathesis's code: non-zero on any failure.
 *
 * Every request goes to 127.0.0.1. The last run's reports (JUnit, NDJSON events) and the service's log are
 * kept in `.cache/fuzz-report/`.
 */
import { answersOk, freePort, waitUntil } from "./processes.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const VENV = `${ROOT}.cache/fuzz-venv`;
const REPORT = `${ROOT}.cache/fuzz-report`;
const SCHEMATHESIS = "schemathesis>=4,<5";
const CLIENT = ["tessera", "tessera-secret"];
const USER = ["demo", "demo"];

/**
 * Python versions whose AST constructor kept its recursion depth in state that threads share: with two
 * workers, whose data generation (hypothesis) parses Python source, a test case now and then ends in
 * "SystemError: AST constructor recursion depth mismatch", a schemathesis error that no schema causes
 * (python/cpython#106905, fixed in 3.11.8, 3.12.2 and 3.13.0): [major, minor, first fixed patch].
 */
const AST_RACE: [number, number, number][] = [[3, 11, 8], [3, 12, 2]];
const OLDEST: [number, number] = [3, 11]; // older ones lack the fix, or schemathesis 4 leaves them

/** `[major, minor, patch]` of a Python interpreter, or null when it does not run. */
async function pythonVersion(python: string): Promise<number[] | null> {
  try {
    const out = await new Deno.Command(python, {
      args: ["-c", "import sys; print(*sys.version_info[:3])"],
      stdout: "piped",
      stderr: "null",
    }).output();
    if (out.code !== 0) return null;
    const v = new TextDecoder().decode(out.stdout).trim().split(" ").map(Number);
    return v.length === 3 && v.every(Number.isInteger) ? v : null;
  } catch {
    return null;
  }
}

/** Whether a Python of this version is free of the AST race (`AST_RACE`). */
function raceFree([major, minor, patch]: number[]): boolean {
  if (major !== OLDEST[0] || minor < OLDEST[1]) return major > OLDEST[0];
  const fix = AST_RACE.find(([ma, mi]) => ma === major && mi === minor);
  return fix === undefined || patch >= fix[2];
}

/**
 * The first race-free Python among FUZZ_PYTHON, python3.14 … python3.11, python3 and pyenv's versions
 * (newest first); else python3, with a warning that two workers may meet the race.
 */
async function fixedPython(): Promise<string> {
  const pyenv = `${Deno.env.get("PYENV_ROOT") ?? `${Deno.env.get("HOME")}/.pyenv`}/versions`;
  const installed: string[] = [];
  try {
    for await (const e of Deno.readDir(pyenv)) if (/^3\.\d+\.\d+$/.test(e.name)) installed.push(e.name);
  } catch { /* no pyenv */ }
  const byVersion = (a: string, b: string) => {
    const [x, y] = [a, b].map((v) => v.split(".").map(Number));
    return y[1] - x[1] || y[2] - x[2];
  };
  const candidates = [
    Deno.env.get("FUZZ_PYTHON"),
    "python3.14",
    "python3.13",
    "python3.12",
    "python3.11",
    "python3",
    ...installed.sort(byVersion).map((v) => `${pyenv}/${v}/bin/python3`),
  ].filter((c): c is string => !!c);
  for (const python of candidates) {
    const v = await pythonVersion(python);
    if (v && raceFree(v)) return python;
  }
  console.warn(
    "fuzz: no Python ≥ 3.11.8 (3.12.2 in 3.12) found; set FUZZ_PYTHON to one. With python3, two " +
      "workers may hit python/cpython#106905 (SystemError: AST constructor recursion depth mismatch).",
  );
  return "python3";
}

/** Runs a command with inherited output; throws when it fails. */
async function run(cmd: string, args: string[]): Promise<void> {
  const { code } = await new Deno.Command(cmd, { args, stdin: "null" }).output();
  if (code !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (exit ${code})`);
}

/**
 * The version of the virtualenv's schemathesis, or null when it is not (properly) installed or runs on a
 * Python with the AST race.
 */
async function installedVersion(): Promise<string | null> {
  const python = await pythonVersion(`${VENV}/bin/python`);
  if (!python || !raceFree(python)) return null;
  try {
    const out = await new Deno.Command(`${VENV}/bin/schemathesis`, { args: ["--version"], stderr: "null" })
      .output();
    const m = new TextDecoder().decode(out.stdout).match(/version (\d+)\.[\w.]+/);
    return out.code === 0 && m && m[1] === "4" ? m[0].slice("version ".length) : null;
  } catch {
    return null;
  }
}

/** The virtualenv with schemathesis 4, made on first use. */
async function ensureSchemathesis(): Promise<string> {
  const have = await installedVersion();
  if (have) return have;
  const python = await fixedPython();
  console.log(`setting up ${SCHEMATHESIS} with ${python} in ${VENV} (once)...`);
  await run(python, ["-m", "venv", "--clear", VENV]);
  await run(`${VENV}/bin/pip`, ["install", "--quiet", "--disable-pip-version-check", SCHEMATHESIS]);
  const now = await installedVersion();
  if (!now) throw new Error(`schemathesis 4 did not install in ${VENV}`);
  return now;
}

/** A bearer token for the demo user from the local realm. */
async function token(base: string): Promise<string> {
  const res = await fetch(`${base}/realms/tessera/protocol/openid-connect/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "password",
      client_id: CLIENT[0],
      client_secret: CLIENT[1],
      username: USER[0],
      password: USER[1],
    }),
  });
  const body = await res.json();
  if (!res.ok || typeof body.access_token !== "string") {
    throw new Error(`no token: ${res.status} ${JSON.stringify(body)}`);
  }
  return body.access_token;
}

async function main(): Promise<number> {
  const dash = Deno.args.indexOf("--");
  const own = dash < 0 ? Deno.args : Deno.args.slice(0, dash);
  const passOn = dash < 0 ? [] : Deno.args.slice(dash + 1);
  const at = own.indexOf("--max-time");
  const maxTime = Number(at < 0 ? 420 : own[at + 1]);
  if (!Number.isFinite(maxTime) || maxTime < 1) throw new Error("--max-time takes a number of seconds ≥ 1");
  const version = await ensureSchemathesis();

  const tmp = await Deno.makeTempDir({ prefix: "tessera-fuzz-" });
  await Deno.mkdir(REPORT, { recursive: true });
  for await (const e of Deno.readDir(REPORT)) { // the last run's reports only (an NDJSON is some 30 MB)
    if (/^(junit|ndjson)-.*\.(xml|ndjson)$/.test(e.name)) await Deno.remove(`${REPORT}/${e.name}`);
  }
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const logPath = `${REPORT}/service.log`;
  await Deno.writeTextFile(logPath, "");
  const service = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-sys",
      "--allow-run",
      `${ROOT}main.ts`,
      "--dev",
    ],
    cwd: ROOT,
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: base,
      KV_PATH: `${tmp}/tessera.kv`,
      MONGO_URL: "", // the embedded store, whatever the shell has
      TESSERA_USERS: "",
      TESSERA_CLIENTS: "",
      AUTH_MODE: "local",
      TASKS_ENABLED: "true",
      JOBS_ENABLED: "true",
      RATE_LIMIT_CAPACITY: "1000000",
      RATE_LIMIT_PER_SECOND: "1000",
      TOKEN_TTL_SECONDS: String(Math.ceil(maxTime) + 3600),
      REFRESH_TTL_SECONDS: String(Math.ceil(maxTime) + 3600),
      LOG_LEVEL: "warn",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const logs = Promise.all([service.stdout, service.stderr].map(async (stream) => {
    const file = await Deno.open(logPath, { append: true });
    await stream.pipeTo(file.writable); // closes the file at the stream's end
  }));
  const stopService = async () => {
    try {
      service.kill("SIGTERM");
    } catch { /* already gone */ }
    const timer = setTimeout(() => {
      try {
        service.kill("SIGKILL");
      } catch { /* gone */ }
    }, 35_000);
    await service.status;
    clearTimeout(timer);
    await logs.catch(() => {});
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  };
  let st: Deno.ChildProcess | null = null;
  const onSignal = () => st?.kill("SIGINT");
  Deno.addSignalListener("SIGINT", onSignal);
  try {
    await waitUntil(service, () => answersOk(`${base}/healthz`), {
      timeoutMs: 120_000,
      everyMs: 200,
      what: "the service's /healthz",
    });
    const bearer = await token(base);
    console.log(
      `schemathesis ${version} against ${base}/openapi.json for ${maxTime} s (all checks, all phases)`,
    );
    const t0 = performance.now();
    st = new Deno.Command(`${VENV}/bin/schemathesis`, {
      args: [
        "--config-file",
        `${ROOT}schemathesis.toml`,
        "run",
        `${base}/openapi.json`,
        "--checks",
        "all",
        "--phases",
        "examples,coverage,fuzzing,stateful",
        "--max-time",
        String(maxTime),
        "--workers",
        "2",
        "--max-response-time",
        "30",
        "--header",
        `Authorization: Bearer ${bearer}`,
        "--request-timeout",
        "60",
        "--suppress-health-check",
        "all",
        "--report",
        "junit,ndjson",
        "--report-dir",
        REPORT,
        "--generation-database",
        `${ROOT}.cache/fuzz-examples`,
        "--no-color",
        ...passOn,
      ],
      cwd: REPORT, // its own folders (.hypothesis, .schemathesis) land there, not in the project
      stdin: "null",
      env: { NO_COLOR: "1" },
    }).spawn();
    const { code } = await st.status;
    const seconds = Math.round((performance.now() - t0) / 1000);
    console.log(`\nschemathesis ${version} ended with exit ${code} after ${seconds} s; reports in ${REPORT}`);
    return code;
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
    await stopService();
  }
}

if (import.meta.main) {
  try {
    Deno.exit(await main());
  } catch (e) {
    console.error(`fuzz: ${e instanceof Error ? e.message : e}`);
    Deno.exit(1);
  }
}
