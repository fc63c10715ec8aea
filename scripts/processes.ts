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
