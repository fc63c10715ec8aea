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
 *   exact       (only when named in --steps: each runs to its 30 s work limit) POST .../mitigate/relabel,
 *               approx false, the six cases of `budgets`, then .../mitigate/threshold, approx false, SP and EO
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
 *     [--steps import,task,audit,relabel,frontier,budgets,exact,threshold,corr,wide,console] [--wide ROWS] [--parity]
 *     [--env NAME=VALUE ...] [--keep] [--no-reference]
 *
 * --steps picks steps (import and task run whenever a later step of the case needs them: the store is
 * fresh); --parity audits statistical parity (equal_opp false) instead of the default equal opportunity;
 * --env passes a variable to the service (repeatable); --keep keeps the temporary directory (the KV file,
 * the NDJSON files, the service's log). The imports are sent by curl where there is one (bench/upload.ts),
 * under the import's own body limit. Talks to 127.0.0.1 only; the service is stopped on exit, error or
 * Ctrl-C. The parts are in bench/http/: the service and its /healthz probe, the timed requests, the
 * session every step shares, and the steps by area.
 */
import { type LarLikeCase, larLikeCase, writeCaseNdjson, writeColumnsNdjson } from "./lar_like_case.ts";
import { correlationColumns } from "./valuation_data.ts";
import { Probe } from "./http/probe.ts";
import { loadavg, log, mb, printTable, type Row, sec } from "./http/report.ts";
import { findPython, freePort, procStatusMb, Service } from "./http/service.ts";
import { type Options, type Session, sessionHelpers, stepRunner } from "./http/session.ts";
import { auditSteps, importAndTask } from "./http/audit_steps.ts";
import { mitigationSteps } from "./http/mitigation_steps.ts";
import { correlationSteps } from "./http/correlation_steps.ts";
import { consoleSteps } from "./http/console_steps.ts";

function parseArgs(args: string[]): Options {
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
    "exact",
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

/** The case and the wide dataset the steps need, written as NDJSON into `tmp`. */
async function makeData(
  opts: Options,
  tmp: string,
  notes: string[],
  needCase: boolean,
  want: (s: string) => boolean,
) {
  let c: LarLikeCase | null = null;
  const caseFile = `${tmp}/case.ndjson`;
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
        `${c.elsewhere.toLocaleString("en")} individuals inside no square carry region_ids [${c.nRegions}] ` +
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

  return { c, caseFile: needCase ? caseFile : null, caseBytes, wide, wideFile };
}

/** The service on a fresh KV file in `tmp`, on a free port, with `--env`'s variables. */
async function startService(opts: Options, tmp: string, notes: string[]): Promise<Service> {
  const port = freePort();
  const env: Record<string, string> = {
    KV_PATH: `${tmp}/tessera.kv`,
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: "warn",
    ...opts.env,
  };
  for (const k of Object.keys(opts.env)) notes.push(`${k}=${opts.env[k]} passed to the service (--env)`);
  const t0 = performance.now();
  const service = new Service(tmp, port, env);
  await service.ready();
  log(
    `service: pid ${service.pid}, ${service.base}, ready in ${sec(performance.now() - t0)} s ` +
      `(--dev seeds the demo data first); env ${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(" ")}`,
  );
  return service;
}

async function main() {
  const opts = parseArgs(Deno.args);
  const tStart = performance.now();
  const load0 = loadavg();
  const want = (s: string) => !opts.steps || opts.steps.has(s);
  const caseNames = ["audit", "relabel", "frontier", "budgets", "exact", "threshold", "corr", "console"];
  const caseSteps = caseNames.filter(want);
  const needCase = want("import") || want("task") || caseSteps.length > 0;
  const needTask = want("task") ||
    ["audit", "relabel", "frontier", "budgets", "exact", "threshold", "console"].some(want);

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
    const data = await makeData(opts, tmp, notes, needCase, want);
    service = await startService(opts, tmp, notes);
    const svc = service;
    probe = new Probe(svc.base, svc.pid);
    await new Promise((r) => setTimeout(r, 300)); // the probe's first requests
    const py = opts.reference ? await findPython() : null;
    if (opts.reference && !py) notes.push("no python3 with numpy, pandas and scipy: references skipped");
    const name = `lar_like_${opts.n}`;
    const s: Session = {
      opts,
      svc,
      tmp,
      name,
      task: `/api/spatial-hitl/task/${name}`,
      c: data.c,
      equalOpp: !opts.parity,
      py,
      rows,
      notes,
      want,
      step: stepRunner(svc, probe, rows),
      ...sessionHelpers(svc, rows),
    };

    // the probe's noise floor: nothing asked of the service
    await s.step("idle, 3 s (probe baseline)", async () => {
      await new Promise((r) => setTimeout(r, 3000));
      return { status: 200, ms: 3000, bytes: 0, text: "", headers: new Headers() };
    });
    s.lastRow().seconds = null;
    s.lastRow().status = "idle";

    await importAndTask(s, data.caseFile, data.caseBytes, needTask);
    const auditRun = await auditSteps(s);
    const mitigationRun = await mitigationSteps(s);
    await correlationSteps(s, data.wide, data.wideFile);
    if (want("console")) await consoleSteps(s, auditRun, mitigationRun);

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

if (import.meta.main) await main();
