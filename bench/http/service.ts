/** The service as bench/http_end_to_end.ts runs it: a child process on a free port, and helper processes. */
import { devTaskArgs, ROOT } from "../dev_task.ts";
import { log } from "./report.ts";

/** A free TCP port on 127.0.0.1. */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** A field of /proc/<pid>/status in MB (NaN once the process has ended). */
export function procStatusMb(pid: number, field: "VmHWM" | "VmRSS"): number {
  try {
    const m = Deno.readTextFileSync(`/proc/${pid}/status`).match(new RegExp(`${field}:\\s+(\\d+) kB`));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** A command run to its end, timed, its output decoded. */
export async function run(cmd: string, args: string[], opts: { cwd?: string } = {}) {
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
export async function findPython(): Promise<string | null> {
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

/** Variables of the parent kept for the service: what Deno needs to run, never a Tessera setting. */
function childEnv(extra: Record<string, string>): Record<string, string> {
  const keep = ["PATH", "HOME", "USER", "LANG", "LC_ALL", "TZ", "TMPDIR", "XDG_CACHE_HOME", "NO_COLOR"];
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(Deno.env.toObject())) {
    if (keep.includes(k) || (k.startsWith("DENO_") && k !== "DENO_DEPLOYMENT_ID")) env[k] = v;
  }
  return { ...env, ...extra };
}

/** The service started as `deno task dev` starts it, its output in `dir`. */
export class Service {
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
