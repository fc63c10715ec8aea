/** What the test servers (FerretDB, Keycloak) share: running, watching and stopping a child process. */

/** Runs a command to completion; its stdout on success, its stderr in the error otherwise. */
export async function run(
  cmd: string,
  args: string[],
  opts: { env?: Record<string, string>; cwd?: string } = {},
) {
  const out = await new Deno.Command(cmd, { args, ...opts, stdin: "null", stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder();
  if (!out.success) {
    throw new Error(
      `${cmd} ${args.join(" ")} failed (${out.code}):\n${text.decode(out.stderr).slice(-4000)}`,
    );
  }
  return text.decode(out.stdout);
}

/** Whether a file (or a folder) is there. */
export async function exists(path: string, kind: "file" | "dir"): Promise<boolean> {
  try {
    const info = await Deno.stat(path);
    return kind === "file" ? info.isFile : info.isDirectory;
  } catch {
    return false;
  }
}

/** A port nothing listens on right now (the OS picks it; tiny race until the child binds it). */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Copies a child's output into the log; an undrained pipe would eventually block the child. */
export async function drain(stream: ReadableStream<Uint8Array>, file: Deno.FsFile): Promise<void> {
  for await (const chunk of stream) await file.write(chunk);
}

/** SIGTERM, then SIGKILL if it lingers; resolves once the process is gone. */
export async function kill(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGTERM");
  } catch {
    return; // already exited
  }
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch { /* exited meanwhile */ }
  }, 5000);
  await child.status;
  clearTimeout(timer);
}

/** A server a test run started, stopped once whoever asks first (a signal handler, a finally block). */
export interface Server {
  stop(): Promise<void>;
}

/**
 * Spawns a throwaway server with its output in `<dir>/<name>.log` and waits until `ready` resolves. Its
 * stop kills it and deletes `dir`; a start that fails stops it and throws with the log's tail.
 */
export async function spawnServer(
  name: string,
  dir: string,
  command: string,
  options: Pick<Deno.CommandOptions, "args" | "env">,
  ready: (child: Deno.ChildProcess) => Promise<void>,
): Promise<Server> {
  const logPath = `${dir}/${name}.log`;
  const log = await Deno.open(logPath, { write: true, create: true, append: true });
  const child = new Deno.Command(command, { ...options, stdin: "null", stdout: "piped", stderr: "piped" })
    .spawn();
  const drained = Promise.all([drain(child.stdout, log), drain(child.stderr, log)]);
  let stopped: Promise<void> | undefined;
  const stop = () =>
    stopped ??= (async () => {
      await kill(child);
      await drained;
      log.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    })();
  try {
    await ready(child);
  } catch (err) {
    const tail = await Deno.readTextFile(logPath).catch(() => "");
    await stop();
    throw new Error(`${name} did not start: ${(err as Error).message}\n${tail.slice(-3000)}`);
  }
  return { stop };
}

/**
 * Polls `probe` every `everyMs` until it says yes, failing fast if the child exits first, and after
 * `timeoutMs` saying it never came (`what` names what was awaited).
 */
export async function waitUntil(
  child: Deno.ChildProcess,
  probe: () => Promise<boolean>,
  opts: { timeoutMs: number; everyMs: number; what: string },
): Promise<void> {
  const exited: { status?: Deno.CommandStatus } = {};
  child.status.then((s) => exited.status = s);
  const deadline = Date.now() + opts.timeoutMs;
  while (Date.now() < deadline) {
    if (exited.status) throw new Error(`exited with code ${exited.status.code}`);
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, opts.everyMs));
  }
  throw new Error(`${opts.what} not there after ${opts.timeoutMs / 1000} s`);
}

/** Whether `url` answers 2xx now (anything else, or no answer: not yet). */
export async function answersOk(url: string): Promise<boolean> {
  try {
    const res = await fetch(url);
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}
