/**
 * A file POSTed as curl sends one (`-T`: read from disk as it goes, with its Content-Length), as an
 * answer. curl, not Deno's fetch: a body streamed by fetch costs Deno 2.9.6's server some 0.1 ms of its
 * main thread per KB read (op_read; curl's uploads, chunked or not, do not), which would be measured as
 * the import's. Shared by bench/import_bench.ts and bench/http_end_to_end.ts, as is demoToken.
 */
export async function curlUpload(
  url: string,
  path: string,
  headers: Record<string, string>,
): Promise<Response> {
  const out = await Deno.makeTempFile({ prefix: "tessera-upload-", suffix: ".json" });
  try {
    const args = ["-sS", "-X", "POST", "-T", path, "-H", "Expect:", "-o", out, "-w", "%{http_code}"];
    for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}: ${v}`);
    const run = await new Deno.Command("curl", { args: [...args, url], stderr: "inherit" }).output();
    if (!run.success) throw new Error(`curl failed (exit ${run.code})`);
    const status = Number(new TextDecoder().decode(run.stdout));
    return new Response(await Deno.readFile(out), { status });
  } finally {
    await Deno.remove(out).catch(() => {});
  }
}

/** Whether curl can be run here (else the benchmarks upload with fetch, and say so). */
export async function hasCurl(): Promise<boolean> {
  try {
    return (await new Deno.Command("curl", { args: ["--version"], stdout: "null" }).output()).success;
  } catch {
    return false;
  }
}

/** A token of the demo user from the local issuer of a `--dev` service at `base` (password grant). */
export async function demoToken(base: string): Promise<string> {
  const res = await fetch(`${base}/realms/tessera/protocol/openid-connect/token`, {
    method: "POST",
    body: new URLSearchParams({
      client_id: "tessera",
      client_secret: "tessera-secret",
      username: "demo",
      password: "demo",
      grant_type: "password",
    }),
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok || !body.access_token) throw new Error(`no token: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token as string;
}
