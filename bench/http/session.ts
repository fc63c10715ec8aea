/**
 * What every step of bench/http_end_to_end.ts shares: the options, the running service and its probe, the
 * table's rows and notes, and `step`, which times one request under the probe and records it.
 */
import { demoToken } from "../upload.ts";
import type { LarLikeCase } from "../lar_like_case.ts";
import type { Probe } from "./probe.ts";
import { type Answer, request } from "./requests.ts";
import { log, type Row, sec, size } from "./report.ts";
import type { Service } from "./service.ts";

/** The run's options (http_end_to_end.ts parseArgs). */
export interface Options {
  n: number;
  regions: number;
  worlds: number;
  seed: number;
  steps: Set<string> | null;
  wide: number | null;
  parity: boolean;
  keep: boolean;
  reference: boolean;
  env: Record<string, string>;
}

export interface Session {
  opts: Options;
  svc: Service;
  /** The temporary directory: the KV file, the NDJSON files, the service's log. */
  tmp: string;
  /** The case's collection, and its task's spatial path. */
  name: string;
  task: string;
  /** The case (null when no step needs it). */
  c: LarLikeCase | null;
  equalOpp: boolean;
  /** A python3 with numpy, pandas and scipy for the references, or null. */
  py: string | null;
  rows: Row[];
  notes: string[];
  want: (step: string) => boolean;
  token: () => Promise<string>;
  /** One timed step; a refused answer is shown and recorded, never timed as a success (`must`: throws). */
  step: (label: string, f: () => Promise<Answer>, must?: boolean) => Promise<Answer | null>;
  /** A POST of `body` as JSON with `tok`, for `step`. */
  post: (tok: string, path: string, body: unknown) => () => Promise<Answer>;
  lastRow: () => Row;
}

/** The step runner over `svc` and `probe`, recording into `rows`. */
export function stepRunner(svc: Service, probe: Probe, rows: Row[]): Session["step"] {
  return async (label, f, must = false) => {
    if (!svc.running) {
      rows.push({ step: label, seconds: null, status: "service ended", probe: null, reference: "" });
      return null;
    }
    probe.begin();
    let a: Answer | null = null, error = "";
    try {
      a = await f();
    } catch (e) {
      error = (e as Error).message;
    }
    const stats = await probe.end();
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
        stats.over50At.length ? `, asked at ${stats.over50At.map((t) => `+${t.toFixed(2)} s`).join(" ")}` : ""
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
}

/** A session's token and POST helpers over `svc`. */
export function sessionHelpers(svc: Service, rows: Row[]): Pick<Session, "token" | "post" | "lastRow"> {
  return {
    token: () => demoToken(svc.base),
    post: (tok, path, body) => () =>
      request(`${svc.base}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${tok}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    lastRow: () => rows[rows.length - 1],
  };
}
