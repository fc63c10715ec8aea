/**
 * What a user waits for over HTTP, end to end, on the embedded store (Deno KV on a file): starts the
 * service as a child process as `deno task dev` starts it (a fresh KV_PATH in a temporary directory, a free
 * port on 127.0.0.1, LOG_LEVEL=warn), gets a token from the local issuer (demo:demo, client tessera), and
 * times, each as one HTTP request from its first byte sent to its last byte received:
 *
 *   import      POST /api/datasets/bench/{name}?mode=create, the NDJSON body streamed from a file
 *   task        POST /api/tasks/documents pointing at that collection
 *   audit       POST /api/spatial-hitl/task/{name}/audit, n_worlds 1000, rng fast, include_maps true:
 *               cold (the first), then warm twice (the same again: its worlds are kept too), then warm
 *               with another seed (other worlds to draw, and other maps)
 *   relabel     POST .../mitigate/relabel, approx, default budget and tolerance (n_worlds, rng as the audit)
 *   frontier    POST .../mitigate/relabel/frontier, approx, ten budgets from 0.5 % to 50 %
 *   budgets     POST .../mitigate/relabel, approx, statistical parity and equal opportunity × budget_constr
 *               0.05, 0.2 and 2,000 (issue 35's cases; the solver alone, next to HiGHS on the whole model,
 *               is bench/mitigate_lar_bench.ts)
 *   threshold   POST .../mitigate/threshold, defaults (n_worlds, rng as the audit), twice: the first
 *               builds the regions of every individual, the second finds them kept
 *   corr        POST /api/correlations/analyze?dataset-id={name}, Pearson, Spearman and Kendall: cold, warm
 *   wide        (with --n ≥ 1,000,000, or --wide ROWS) a separate ROWS × 20 numeric dataset
 *               (bench/valuation_data.ts): its import, then correlations cold and warm
 *   console     the review console: sign in through its form, the task's review page, the audit run's page
 *
 * The case (bench/lar_like_case.ts, from --seed): N individuals on ~25,000 tract centroids around 20
 * metropolitan clusters, y_true with an east–west drift, y_pred right 85 % of the time, y_pred_prob
 * consistent with it, three applicant columns, and 3,000 overlapping squares (100 seeds × 30 half-sides,
 * 0.05° to 1.50°) as region_ids; an individual inside no square has region_ids [3000] ("elsewhere"), as
 * the service refuses an empty list (docs/spatial-fairness.md).
 *
 * Before the steps, 3 s of nothing ("idle") gives the probe's own noise floor on this machine.
 *
 * During every step a probe in a worker of this process GETs /healthz every 10 ms and keeps the step's
 * slowest answer (the goal: no request holds the service's event loop over 50 ms), and samples the
 * service's VmRSS (/proc/<pid>/status); VmHWM is read at the end. Answers' `elapsed_ms`,
 * `solver_seconds` and `phases` fields are printed as they come.
 *
 * References, run right after ours on the same data (skipped with --no-reference): the case's audit by
 * bench/reference_audit.py (numpy, direct method; its input written as `bench/spatial_audit.ts export`
 * writes it, over the audit's scope: y_true = 1 under equal opportunity, the default), and the wide
 * dataset's correlations by bench/correlation_reference.py (pandas; it reads 20 columns, so only the wide
 * dataset fits it). Python: `python3` if it imports numpy, else /tmp/benchvenv (made with
 * `python3 -m venv /tmp/benchvenv && /tmp/benchvenv/bin/pip install numpy pandas scipy` when missing).
 *
 *   deno run -A bench/http_end_to_end.ts [--n 206418] [--regions 3000] [--worlds 1000] [--seed S]
 *     [--steps import,task,audit,relabel,frontier,budgets,threshold,corr,wide,console] [--wide ROWS] [--parity]
 *     [--env NAME=VALUE ...] [--keep] [--no-reference]
 *
 * --steps picks steps (import and task run whenever a later step of the case needs them: the store is
 * fresh); --parity audits statistical parity (equal_opp false) instead of the default equal opportunity;
 * --env passes a variable to the service (repeatable); --keep keeps the temporary directory (the KV file,
 * the NDJSON files, the service's log). The imports are sent by curl where there is one (bench/upload.ts),
 * under the import's own body limit. Talks to 127.0.0.1 only; the service is stopped on exit, error or
 * Ctrl-C.
 */
import {
  exportReferenceAudit,
  exportReferenceColumns,
  type LarLikeCase,
  larLikeCase,
  writeCaseNdjson,
  writeColumnsNdjson,
} from "./lar_like_case.ts";
import { curlUpload, demoToken, hasCurl } from "./upload.ts";
import { devTaskArgs, ROOT } from "./dev_task.ts";
import { correlationColumns } from "./valuation_data.ts";

const PROBE_NAME = "tessera-healthz-probe";

/** What the probe measured over one step. */
interface ProbeStats {
  probes: number;
  maxMs: number;
  p99Ms: number;
  over50: number;
  /** Seconds into the step at which each answer over 50 ms was asked (where to look in a profile). */
  over50At: number[];
  failed: number;
  rssMaxMb: number;
}

// ---------------------------------------------------------------- the probe (runs in a Web Worker)

/** The probe worker: /healthz every 10 ms and VmRSS every 20 ms, summarised per step on request. */
function probeWorker() {
  const self = globalThis as unknown as {
    postMessage(m: unknown): void;
    onmessage: ((e: MessageEvent) => void) | null;
    close(): void;
  };
  let base = "", statusFile = "", running = false;
  let cur: { t0: number; lat: number[]; slowAt: number[]; failed: number; rssKb: number } | null = null;
  const vmRssKb = () => {
    try {
      const m = Deno.readTextFileSync(statusFile).match(/VmRSS:\s+(\d+) kB/);
      return m ? Number(m[1]) : 0;
    } catch {
      return 0; // the service has ended
    }
  };
  const sampleRss = () => {
    if (cur) cur.rssKb = Math.max(cur.rssKb, vmRssKb());
  };
  const summary = (): ProbeStats => {
    sampleRss();
    const lat = (cur?.lat ?? []).slice().sort((a, b) => a - b);
    return {
      probes: lat.length,
      maxMs: lat.length ? lat[lat.length - 1] : NaN,
      p99Ms: lat.length ? lat[Math.min(lat.length - 1, Math.floor(lat.length * 0.99))] : NaN,
      over50: lat.filter((x) => x > 50).length,
      over50At: cur?.slowAt ?? [],
      failed: cur?.failed ?? 0,
      rssMaxMb: (cur?.rssKb ?? 0) / 1024,
    };
  };
  async function loop() {
    while (running) {
      const t0 = performance.now();
      let ok = false;
      try {
        const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(600_000) });
        await res.arrayBuffer();
        ok = res.ok;
      } catch {
        ok = false;
      }
      const ms = performance.now() - t0;
      if (cur) {
        cur.lat.push(ms);
        if (ms > 50) cur.slowAt.push((t0 - cur.t0) / 1000);
        if (!ok) cur.failed++;
      }
      const wait = 10 - (performance.now() - t0);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  }
  const rssTimer = setInterval(sampleRss, 20);
  self.onmessage = (e: MessageEvent) => {
    const m = e.data;
    if (m.type === "start") {
      base = m.base;
      statusFile = `/proc/${m.pid}/status`;
      running = true;
      loop();
    } else if (m.type === "begin") {
      cur = { t0: performance.now(), lat: [], slowAt: [], failed: 0, rssKb: 0 };
      sampleRss();
    } else if (m.type === "end") {
      self.postMessage({ id: m.id, stats: summary() });
      cur = null;
    } else if (m.type === "stop") {
      running = false;
      clearInterval(rssTimer);
      self.close();
    }
  };
}

/** The main side of the probe. */
class Probe {
  private worker = new Worker(import.meta.url, { type: "module", name: PROBE_NAME });
  private waiting = new Map<number, (s: ProbeStats) => void>();
  private next = 0;
  constructor(base: string, pid: number) {
    this.worker.onmessage = (e) => {
      this.waiting.get(e.data.id)?.(e.data.stats);
      this.waiting.delete(e.data.id);
    };
    this.worker.postMessage({ type: "start", base, pid });
  }
  begin() {
    this.worker.postMessage({ type: "begin" });
  }
  end(): Promise<ProbeStats> {
    const id = ++this.next;
    this.worker.postMessage({ type: "end", id });
    return new Promise((r) => this.waiting.set(id, r));
  }
  close() {
    this.worker.postMessage({ type: "stop" });
    setTimeout(() => this.worker.terminate(), 100);
  }
}

// ---------------------------------------------------------------- options

function parseArgs(args: string[]) {
  const opts = {
    n: 206_418,
    regions: 3_000,
    worlds: 1_000,
    seed: 20_240_601,
    steps: null as Set<string> | null,
    wide: null as number | null,
    parity: false,
    keep: false,
    reference: true,
    env: {} as Record<string, string>,
  };
  const num = (name: string, v: string | undefined) => {
    const x = Number(v);
    if (!Number.isInteger(x) || x <= 0) throw new Error(`${name} needs a positive integer, not ${v}`);
    return x;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--n") opts.n = num(a, args[++i]);
    else if (a === "--regions") opts.regions = num(a, args[++i]);
    else if (a === "--worlds") opts.worlds = num(a, args[++i]);
    else if (a === "--seed") opts.seed = num(a, args[++i]);
    else if (a === "--wide") opts.wide = num(a, args[++i]);
    else if (a === "--steps") opts.steps = new Set(args[++i].split(",").map((s) => s.trim()));
    else if (a === "--parity") opts.parity = true;
    else if (a === "--keep") opts.keep = true;
    else if (a === "--no-reference") opts.reference = false;
    else if (a === "--env") {
      const [k, ...v] = (args[++i] ?? "").split("=");
      if (!k || !v.length) throw new Error(`--env needs NAME=VALUE`);
      opts.env[k] = v.join("=");
    } else throw new Error(`unknown option ${a}`);
  }
  const known = [
    "import",
    "task",
    "audit",
    "relabel",
    "frontier",
    "budgets",
    "threshold",
    "corr",
    "wide",
    "console",
  ];
  for (const s of opts.steps ?? []) {
    if (!known.includes(s)) throw new Error(`unknown step ${s}: choose among ${known.join(", ")}`);
  }
  if (opts.wide === null && opts.n >= 1_000_000 && (!opts.steps || opts.steps.has("wide"))) {
    opts.wide = 1_000_000;
  }
  return opts;
}

// ---------------------------------------------------------------- small helpers

const sec = (ms: number) => (ms / 1000).toFixed(2);
const mb = (bytes: number) => (bytes / 1048576).toFixed(1);
const size = (bytes: number) => (bytes < 1048576 ? `${(bytes / 1024).toFixed(0)} KB` : `${mb(bytes)} MB`);
const loadavg = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
const log = (s: string) => console.log(s);

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

function procStatusMb(pid: number, field: "VmHWM" | "VmRSS"): number {
  try {
    const m = Deno.readTextFileSync(`/proc/${pid}/status`).match(new RegExp(`${field}:\\s+(\\d+) kB`));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** The timing fields an answer carries (anywhere in it, a level or two down), as one line. */
function timingFields(v: unknown): string {
  const out: string[] = [];
  const walk = (x: unknown, path: string, depth: number) => {
    if (!x || typeof x !== "object" || Array.isArray(x) || depth > 2) return;
    for (const [k, val] of Object.entries(x)) {
      const p = path ? `${path}.${k}` : k;
      if (k === "phases" || k === "elapsed_ms" || k === "solver_seconds" || k === "timing_ms") {
        out.push(`${p}=${JSON.stringify(val)}`);
      } else walk(val, p, depth + 1);
    }
  };
  walk(v, "", 0);
  return out.join(" ");
}

async function run(cmd: string, args: string[], opts: { cwd?: string } = {}) {
  const t0 = performance.now();
  const out = await new Deno.Command(cmd, { args, cwd: opts.cwd, stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  return {
    ok: out.success,
    ms: performance.now() - t0,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
  };
}

/** A python3 that imports numpy, pandas and scipy: the system's, else /tmp/benchvenv (made if missing). */
async function findPython(): Promise<string | null> {
  const check = (py: string) =>
    run(py, ["-c", "import numpy, pandas, scipy"]).then((r) => r.ok).catch(() => false);
  if (await check("python3")) return "python3";
  const venv = "/tmp/benchvenv/bin/python3";
  if (await check(venv)) return venv;
  log("references: making /tmp/benchvenv (python3 -m venv; pip install numpy pandas scipy)...");
  const made = await run("python3", ["-m", "venv", "/tmp/benchvenv"]).catch(() => null);
  if (!made?.ok) return null;
  const pip = await run("/tmp/benchvenv/bin/pip", ["install", "-q", "numpy", "pandas", "scipy"]);
  if (!pip.ok) log(`references: pip failed: ${pip.stderr.slice(-500)}`);
  return (await check(venv)) ? venv : null;
}

// ---------------------------------------------------------------- the service

/** Variables of the parent kept for the service: what Deno needs to run, never a Tessera setting. */
function childEnv(extra: Record<string, string>): Record<string, string> {
  const keep = ["PATH", "HOME", "USER", "LANG", "LC_ALL", "TZ", "TMPDIR", "XDG_CACHE_HOME", "NO_COLOR"];
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(Deno.env.toObject())) {
    if (keep.includes(k) || (k.startsWith("DENO_") && k !== "DENO_DEPLOYMENT_ID")) env[k] = v;
  }
  return { ...env, ...extra };
}

class Service {
  readonly base: string;
  private child: Deno.ChildProcess;
  private exited = false;
  status: Promise<Deno.CommandStatus>;

  constructor(readonly dir: string, readonly port: number, env: Record<string, string>) {
    this.base = `http://127.0.0.1:${port}`;
    this.child = new Deno.Command(Deno.execPath(), {
      args: devTaskArgs(),
      cwd: ROOT,
      clearEnv: true,
      env: childEnv(env),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.child.stdout.pipeTo(Deno.openSync(`${dir}/service.out`, { write: true, create: true }).writable)
      .catch(() => {});
    this.child.stderr.pipeTo(Deno.openSync(`${dir}/service.err`, { write: true, create: true }).writable)
      .catch(() => {});
    this.status = this.child.status.then((s) => {
      this.exited = true;
      return s;
    });
  }

  get pid() {
    return this.child.pid;
  }

  get running() {
    return !this.exited;
  }

  /** The last lines the service wrote to stderr. */
  errTail(lines = 15): string {
    try {
      return Deno.readTextFileSync(`${this.dir}/service.err`).trimEnd().split("\n").slice(-lines).join("\n");
    } catch {
      return "";
    }
  }

  async ready(timeoutMs = 300_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exited) throw new Error(`the service ended at start:\n${this.errTail()}`);
      try {
        const res = await fetch(`${this.base}/readyz`, { signal: AbortSignal.timeout(5000) });
        await res.arrayBuffer();
        if (res.ok) return;
      } catch { /* not listening yet */ }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`the service was not ready within ${timeoutMs / 1000} s`);
  }

  /** SIGTERM (the service drains, up to 30 s), SIGKILL after 40 s; a no-op once it has ended. */
  async stop() {
    if (this.exited) return;
    try {
      this.child.kill("SIGTERM");
    } catch { /* gone */ }
    const timer = setTimeout(() => this.kill(), 40_000);
    await this.status;
    clearTimeout(timer);
  }

  kill() {
    if (this.exited) return;
    try {
      this.child.kill("SIGKILL");
    } catch { /* gone */ }
  }
}

// ---------------------------------------------------------------- HTTP

interface Answer {
  status: number;
  ms: number;
  bytes: number;
  text: string;
  headers: Headers;
}

/** One request, timed from its start to the last byte of the answer. */
async function request(url: string, init: RequestInit = {}): Promise<Answer> {
  const t0 = performance.now();
  const res = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(3_600_000), ...init });
  const buf = new Uint8Array(await res.arrayBuffer());
  const ms = performance.now() - t0;
  return {
    status: res.status,
    ms,
    bytes: buf.length,
    text: new TextDecoder().decode(buf),
    headers: res.headers,
  };
}

/**
 * A file POSTed as a user's curl sends it (bench/upload.ts: Deno's own fetch streaming a body costs the
 * server far more per chunk), timed as `request` times; with fetch where there is no curl.
 */
async function upload(url: string, path: string, headers: Record<string, string>): Promise<Answer> {
  const t0 = performance.now();
  if (!(await hasCurl())) {
    const file = await Deno.open(path);
    return await request(url, { method: "POST", headers, body: file.readable });
  }
  const res = await curlUpload(url, path, headers);
  const buf = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(buf);
  return { status: res.status, ms: performance.now() - t0, bytes: buf.length, text, headers: res.headers };
}

const jsonOf = (a: Answer): Record<string, unknown> => {
  try {
    return JSON.parse(a.text);
  } catch {
    return {};
  }
};

// ---------------------------------------------------------------- the run

interface Row {
  step: string;
  seconds: number | null;
  status: string;
  probe: ProbeStats | null;
  reference: string;
}

async function main() {
  const opts = parseArgs(Deno.args);
  const tStart = performance.now();
  const load0 = loadavg();
  const equalOpp = !opts.parity;
  const want = (s: string) => !opts.steps || opts.steps.has(s);
  const caseSteps = ["audit", "relabel", "frontier", "budgets", "threshold", "corr", "console"].filter(want);
  const needCase = want("import") || want("task") || caseSteps.length > 0;
  const needTask = want("task") ||
    ["audit", "relabel", "frontier", "budgets", "threshold", "console"].some(want);

  const tmp = await Deno.makeTempDir({ prefix: "tessera-http-e2e-" });
  log(`Tessera HTTP end to end, ${new Date().toISOString()}, load ${load0}; temporary directory ${tmp}`);
  const rows: Row[] = [];
  const notes: string[] = [];
  let service: Service | null = null;
  let probe: Probe | null = null;

  const onSignal = () => {
    log("interrupted: stopping the service");
    service?.kill();
    probe?.close();
    if (!opts.keep) Deno.removeSync(tmp, { recursive: true });
    Deno.exit(130);
  };
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  globalThis.addEventListener("unload", () => service?.kill());

  try {
    // ---- the data
    let c: LarLikeCase | null = null;
    const caseFile = `${tmp}/case.ndjson`;
    const name = `lar_like_${opts.n}`;
    let caseBytes = 0;
    if (needCase) {
      let t0 = performance.now();
      c = larLikeCase({ n: opts.n, regions: opts.regions, seed: opts.seed });
      let pos = 0, truePos = 0, right = 0;
      for (let i = 0; i < c.n; i++) {
        pos += c.yPred[i];
        truePos += c.yTrue[i];
        right += c.yPred[i] === c.yTrue[i] ? 1 : 0;
      }
      log(
        `case: N = ${c.n.toLocaleString("en")} on ${c.nTracts.toLocaleString("en")} tracts, ` +
          `${c.nRegions.toLocaleString("en")} regions (${c.seeds.length} seeds × 30 half-sides), ` +
          `${c.memberships.toLocaleString("en")} memberships; ${
            c.elsewhere.toLocaleString("en")
          } individuals ` +
          `inside no square get region_ids [${c.nRegions}] ("elsewhere"); y_true = 1: ${
            (truePos / c.n * 100).toFixed(1)
          } %, y_pred = 1: ` +
          `${(pos / c.n * 100).toFixed(1)} %, accuracy ${(right / c.n * 100).toFixed(1)} %; made in ` +
          `${sec(performance.now() - t0)} s`,
      );
      if (c.elsewhere) {
        notes.push(
          `${
            c.elsewhere.toLocaleString("en")
          } individuals inside no square carry region_ids [${c.nRegions}] ` +
            `("elsewhere", one more region): the service refuses an empty region_ids (a 422)`,
        );
      }
      t0 = performance.now();
      caseBytes = await writeCaseNdjson(c, caseFile);
      log(`case NDJSON: ${mb(caseBytes)} MB written in ${sec(performance.now() - t0)} s`);
    }
    let wide: Float64Array[] | null = null;
    const wideFile = `${tmp}/wide.ndjson`;
    let wideBytes = 0;
    if (opts.wide && want("wide")) {
      const t0 = performance.now();
      wide = correlationColumns(opts.wide, 20);
      wideBytes = await writeColumnsNdjson(wide, wideFile);
      log(
        `wide: ${opts.wide.toLocaleString("en")} × 20, NDJSON ${mb(wideBytes)} MB in ${
          sec(performance.now() - t0)
        } s`,
      );
    }

    // ---- the service
    const env: Record<string, string> = {};
    const port = freePort();
    Object.assign(env, {
      KV_PATH: `${tmp}/tessera.kv`,
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: "warn",
    });
    Object.assign(env, opts.env);
    for (const k of Object.keys(opts.env)) notes.push(`${k}=${opts.env[k]} passed to the service (--env)`);
    const t0 = performance.now();
    service = new Service(tmp, port, env);
    await service.ready();
    log(
      `service: pid ${service.pid}, ${service.base}, ready in ${sec(performance.now() - t0)} s ` +
        `(--dev seeds the demo data first); env ${
          Object.entries(env).map(([k, v]) => `${k}=${v}`).join(" ")
        }`,
    );
    const svc = service;
    probe = new Probe(svc.base, svc.pid);
    const prb = probe;
    await new Promise((r) => setTimeout(r, 300)); // the probe's first requests

    const token = () => demoToken(svc.base);

    /** One timed step; a refused answer is shown and recorded, never timed as a success. */
    const step = async (label: string, f: () => Promise<Answer>, must = false): Promise<Answer | null> => {
      if (!svc.running) {
        rows.push({ step: label, seconds: null, status: "service ended", probe: null, reference: "" });
        return null;
      }
      prb.begin();
      let a: Answer | null = null, error = "";
      try {
        a = await f();
      } catch (e) {
        error = (e as Error).message;
      }
      const stats = await prb.end();
      const ok = a !== null && a.status >= 200 && a.status < 400;
      rows.push({
        step: label,
        seconds: ok ? a!.ms / 1000 : null,
        status: a ? String(a.status) : `error: ${error}`,
        probe: stats,
        reference: "",
      });
      const probeLine = `healthz max ${stats.probes ? stats.maxMs.toFixed(0) : "—"} ms ` +
        `(p99 ${stats.p99Ms.toFixed(0)} ms, ` +
        `${stats.over50} of ${stats.probes} over 50 ms${
          stats.over50At.length
            ? `, asked at ${stats.over50At.map((t) => `+${t.toFixed(2)} s`).join(" ")}`
            : ""
        }${stats.failed ? `, ${stats.failed} failed` : ""}), VmRSS max ${stats.rssMaxMb.toFixed(0)} MB`;
      if (!ok) {
        const why = a ? `${a.status} ${a.text.slice(0, 600)}` : error;
        log(`${label}: REFUSED or failed: ${why}${svc.running ? "" : `\nservice log:\n${svc.errTail()}`}`);
        if (must) throw new Error(`${label} failed; nothing after it can run`);
        return null;
      }
      log(`${label}: ${a!.status} in ${sec(a!.ms)} s, answer ${size(a!.bytes)}; ${probeLine}`);
      return a;
    };
    const lastRow = () => rows[rows.length - 1];
    const post = (tok: string, path: string, body: unknown) => () =>
      request(`${svc.base}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${tok}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const py = opts.reference ? await findPython() : null;
    if (opts.reference && !py) notes.push("no python3 with numpy, pandas and scipy: references skipped");

    // ---- the probe's noise floor: nothing asked of the service
    await step("idle, 3 s (probe baseline)", async () => {
      await new Promise((r) => setTimeout(r, 3000));
      return { status: 200, ms: 3000, bytes: 0, text: "", headers: new Headers() };
    });
    lastRow().seconds = null;
    lastRow().status = "idle";

    // ---- 1. import, 2. task
    const task = `/api/spatial-hitl/task/${name}`;
    if (needCase) {
      const tok = await token();
      const a = await step("import (POST NDJSON)", async () => {
        return await upload(`${svc.base}/api/datasets/bench/${name}?mode=create`, caseFile, {
          authorization: `Bearer ${tok}`,
          "content-type": "application/x-ndjson",
        });
      }, true);
      const j = jsonOf(a!);
      log(
        `  imported ${j.rows} rows, ${(j.columns as unknown[] | undefined)?.length} columns ` +
          `(${mb(caseBytes)} MB at ${(caseBytes / 1048576 / (a!.ms / 1000)).toFixed(1)} MB/s) ` +
          timingFields(j),
      );
    }
    if (needTask) {
      const tok = await token();
      await step(
        "task document",
        post(tok, "/api/tasks/documents", {
          database_name: "bench",
          data_collection_name: name,
          status: "pending",
          pipeline_name: "http_end_to_end",
          component: "spatial-hitl",
        }),
        true,
      );
    }

    // ---- 3., 4. audits
    const auditBody = { n_worlds: opts.worlds, rng: "fast", include_maps: true, equal_opp: equalOpp };
    let auditRun = "", ourSbi = NaN, ourT = NaN, ourSig = NaN;
    if (want("audit")) {
      const audits: [string, number][] = [["audit cold", 42], ["audit warm 1", 42], ["audit warm 2", 42], [
        "audit warm, seed 7",
        7,
      ]];
      for (const [label, seed] of audits) {
        const tok = await token();
        const a = await step(label, post(tok, `${task}/audit`, { ...auditBody, seed }));
        if (!a) continue;
        const j = jsonOf(a);
        auditRun ||= String(j.run_id);
        ourSbi = Number(j.sbi_score);
        ourT = Number(j.signif_thresh);
        ourSig = Number(j.total_signif_regions);
        log(
          `  N in scope ${j.n_individuals}, P ${j.n_positives}, regions ${
            (j.stats as unknown[] | undefined)?.length
          }, SBI ${j.sbi_score}, T ${j.signif_thresh}, significant ${j.total_signif_regions}; ${
            timingFields(j)
          }`,
        );
      }
      if (py && c) {
        const dir = `${tmp}/reference_audit`;
        const ex = exportReferenceAudit(c, dir, equalOpp);
        log(`reference audit: ${ex.n} individuals in scope, ${ex.r} regions; running numpy...`);
        const r = await run(py, ["bench/reference_audit.py", dir, String(opts.worlds), "42"], { cwd: ROOT });
        const line = r.stdout.trim().split("\n").pop() ?? "";
        log(`  ${r.ok ? line : `failed: ${r.stderr.slice(-800)}`}; process ${sec(r.ms)} s`);
        const worlds = line.match(/worlds took ([\d.]+) s/)?.[1];
        const num = (label: string) =>
          Number(line.match(new RegExp(`${label} = (?:np\\.float64\\()?([-+\\d.e]+)`))?.[1]);
        const sbi = num("SBI"), T = num("T\\(0\\.005\\)");
        const sig = Number(line.match(/significant = (\d+)/)?.[1]);
        const cold = rows.find((x) => x.step === "audit cold");
        if (cold && r.ok) cold.reference = `${sec(r.ms)} (worlds ${worlds})`;
        if (r.ok && auditRun) {
          log(
            `  ours against numpy: SBI ${ourSbi} / ${sbi} (${
              Math.abs(ourSbi - sbi) <= 1e-9 * Math.abs(sbi) ? "the same to 9 digits" : "DIFFERENT"
            }), T ${ourT} / ${T}, significant ${ourSig} / ${sig} (T and the count differ by the ` +
              `Monte Carlo draws: ours rng fast, numpy its own stream)`,
          );
        }
      }
    }

    // ---- 5. mitigations
    const mitigationBody = { n_worlds: opts.worlds, rng: "fast", equal_opp: equalOpp };
    let mitigationRun = "";
    /** A solver that stopped without a solution (status 2, 3 or 4) is worth a note under the table. */
    const solverNote = (label: string, j: Record<string, unknown>) => {
      if (Number(j.solver_status_code) >= 2) {
        notes.push(
          `${label}: solver status ${j.solver_status_code} "${j.solver_status_message}" after ` +
            `${
              Number(j.solver_seconds).toFixed(1)
            } s (${j.solver_detail}): ${j.n_flips} flips, the time is ` +
            `that of reaching the default work_limit`,
        );
      }
    };
    if (want("relabel")) {
      const tok = await token();
      const a = await step(
        "relabel (approx)",
        post(tok, `${task}/mitigate/relabel`, { ...mitigationBody, approx: true }),
      );
      if (a) {
        const j = jsonOf(a);
        mitigationRun ||= String(j.run_id);
        solverNote("relabel", j);
        log(
          `  ${j.solver_status_message}, ${j.n_flips} flips of ${j.flip_budget}, objective ${j.objective}, ` +
            `significant ${(j.audit_before_mitigation as Record<string, unknown>)?.total_signif_regions} → ${
              (j.audit_after_mitigation as Record<string, unknown>)?.total_signif_regions
            }; ${timingFields(j)}`,
        );
      }
    }
    if (want("frontier")) {
      const budgets = [0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5];
      const a = await step(
        "frontier (10 budgets)",
        post(await token(), `${task}/mitigate/relabel/frontier`, { ...mitigationBody, budgets }),
      );
      if (a) {
        const j = jsonOf(a) as { points: Record<string, unknown>[] };
        for (const p of j.points) {
          log(
            `  ${p.budget_constr}: status ${p.solver_status_code}, ${p.n_flips} flips, objective ${p.objective}, ` +
              `SBI after ${p.sbi_after}, solver ${p.solver_seconds} s, ${p.elapsed_ms} ms`,
          );
        }
      }
    }
    for (const equal_opp of want("budgets") ? [false, true] : []) {
      for (const budget_constr of [0.05, 0.2, 2000]) {
        const label = `relabel ${equal_opp ? "EO" : "SP"} ${budget_constr}`;
        const body = { ...mitigationBody, equal_opp, approx: true, budget_constr, include_maps: false };
        const a = await step(label, post(await token(), `${task}/mitigate/relabel`, body));
        if (a) {
          const j = jsonOf(a);
          solverNote(label, j);
          log(
            `  ${j.solver_status_message}, ${j.n_flips} flips of ${j.flip_budget}, objective ${j.objective}, ` +
              `gap ${j.gap}; ${timingFields(j)}`,
          );
        }
      }
    }
    // twice: the first builds the regions of every individual, the second finds them kept (warm)
    for (const label of want("threshold") ? ["threshold", "threshold again"] : []) {
      const tok = await token();
      const a = await step(label, post(tok, `${task}/mitigate/threshold`, mitigationBody));
      if (a) {
        const j = jsonOf(a);
        mitigationRun ||= String(j.run_id);
        solverNote(label, j);
        log(
          `  ${j.solver_status_message}, ${j.n_flips} flips (test part ${j.test_size}), significant ${
            (j.audit_before_mitigation as Record<string, unknown>)?.total_signif_regions
          } → ${(j.audit_after_mitigation as Record<string, unknown>)?.total_signif_regions}; ${
            timingFields(j)
          }`,
        );
      }
    }

    // ---- 6. correlations
    const corrBody = { include_pearson: true, include_spearman: true, include_kendall: true };
    const correlations = async (dataset: string, what: string) => {
      for (const label of [`${what} cold`, `${what} warm`]) {
        const tok = await token();
        const a = await step(label, post(tok, `/api/correlations/analyze?dataset-id=${dataset}`, corrBody));
        if (a) {
          const j = jsonOf(a);
          log(
            `  shape ${JSON.stringify(j.dataset_shape)}, ${j.feature_count} numeric columns; ${
              timingFields(j)
            }`,
          );
        }
      }
    };
    if (want("corr")) {
      await correlations(name, "correlations (case)");
      for (const r of rows) if (r.step.startsWith("correlations (case)")) r.reference = "—";
    }
    if (wide) {
      const wideName = `wide_${opts.wide}x20`;
      const tok = await token();
      const a = await step("wide import (POST NDJSON)", async () => {
        return await upload(`${svc.base}/api/datasets/bench/${wideName}?mode=create`, wideFile, {
          authorization: `Bearer ${tok}`,
          "content-type": "application/x-ndjson",
        });
      });
      if (a) {
        await correlations(
          wideName,
          `correlations ${opts.wide! / 1e6 >= 1 ? `${opts.wide! / 1e6}M` : opts.wide} × 20`,
        );
        if (py) {
          const f64 = `${tmp}/wide.f64`;
          exportReferenceColumns(wide, f64);
          log("reference correlations: running pandas (Kendall pair by pair with scipy: minutes)...");
          const r = await run(py, ["bench/correlation_reference.py", f64], { cwd: ROOT });
          log(
            r.ok ? r.stdout.trimEnd().split("\n").map((l) => `  ${l}`).join("\n") : `  failed: ${r.stderr}`,
          );
          const parts = [...r.stdout.matchAll(/^(\w+): ([\d.]+) s/gm)].map((m) => Number(m[2]));
          const cold = rows.find((x) => x.step.startsWith("correlations") && x.step.includes("× 20 cold"));
          if (cold && r.ok) cold.reference = `${parts.reduce((s, x) => s + x, 0).toFixed(1)} (pandas, sum)`;
        }
      }
    }

    // ---- 7. the review console
    if (want("console")) {
      const origin = svc.base;
      const signIn = await step("console sign-in", () =>
        request(`${svc.base}/console/sign-in`, {
          method: "POST",
          headers: { origin, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ username: "demo", password: "demo" }),
        }));
      const cookie = signIn?.headers.getSetCookie().map((s) => s.split(";")[0])
        .find((s) => s.startsWith("tessera_session="));
      if (signIn && (!cookie || signIn.status !== 303)) {
        lastRow().status = `${signIn.status}, no session cookie`;
        lastRow().seconds = null;
      } else if (cookie) {
        const page = (path: string) => () => request(`${svc.base}${path}`, { headers: { cookie } });
        /** A page is the one asked for: 200, and it names the task (not the sign-in page, not an error). */
        const checkPage = (a: Answer | null) => {
          if (a && (a.status !== 200 || !a.text.includes(name))) {
            lastRow().seconds = null;
            lastRow().status = `${a.status} ${a.headers.get("location") ?? "without the task's name"}`;
          }
        };
        checkPage(await step("console task page", page(`/console/tasks/${name}`)));
        const run = auditRun || mitigationRun;
        if (run) {
          checkPage(
            await step(
              `console ${auditRun ? "audit" : "mitigation"} run page`,
              page(`/console/tasks/${name}/runs/${run}`),
            ),
          );
          checkPage(await step("console task page again", page(`/console/tasks/${name}`)));
        }
      }
    }

    // ---- the end
    const hwm = procStatusMb(svc.pid, "VmHWM");
    probe.close();
    probe = null;
    await svc.stop();
    service = null;
    printTable(rows);
    log(`\nservice peak RSS (VmHWM at the end): ${hwm.toFixed(0)} MB`);
    for (const n of notes) log(`note: ${n}`);
    log(
      `load ${load0} → ${loadavg()}; the run took ${sec(performance.now() - tStart)} s` +
        (opts.keep ? `; kept ${tmp}` : ""),
    );
  } finally {
    probe?.close();
    if (service) {
      log(`stopping the service (pid ${service.pid})`);
      await service.stop();
    }
    if (!opts.keep) await Deno.remove(tmp, { recursive: true }).catch(() => {});
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
  }
}

function printTable(rows: Row[]) {
  const head = ["step", "seconds", "healthz max ms", "> 50 ms", "VmRSS max MB", "reference s"];
  const body = rows.map((r) => [
    r.step,
    r.seconds === null ? `— (${r.status})` : r.seconds.toFixed(2),
    r.probe?.probes ? r.probe.maxMs.toFixed(0) : "—",
    r.probe ? `${r.probe.over50}/${r.probe.probes}` : "",
    r.probe ? r.probe.rssMaxMb.toFixed(0) : "",
    r.reference,
  ]);
  const width = head.map((h, j) => Math.max(h.length, ...body.map((b) => b[j].length)));
  const line = (cells: string[]) =>
    "| " + cells.map((s, j) => (j === 0 ? s.padEnd(width[j]) : s.padStart(width[j]))).join(" | ") + " |";
  log("");
  log(line(head));
  log("|" + width.map((w, j) => (j === 0 ? "-".repeat(w + 2) : "-".repeat(w + 1) + ":")).join("|") + "|");
  for (const b of body) log(line(b));
}

if ((globalThis as { name?: string }).name === PROBE_NAME) probeWorker();
else if (import.meta.main) await main();
