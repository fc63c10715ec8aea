/**
 * Start-up as an operator meets it (issue 21, items 8 and 9): `deno run main.ts` as a child process with a
 * bad environment ends with exit code 1 and one line on stderr saying why, before any store work; in
 * production (no --dev) the demo credentials are refused unless ALLOW_DEMO_CREDENTIALS=true.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** A production environment that starts: own client secret and user, a fresh KV file, auth local. */
function goodEnv(dir: string): Record<string, string> {
  return {
    PORT: String(freePort()),
    HOST: "127.0.0.1",
    KV_PATH: `${dir}/s.kv`,
    AUTH_MODE: "local",
    TESSERA_CLIENTS: "tessera:a-long-own-secret",
    TESSERA_USERS: "alice:wonderland",
    LOG_LEVEL: "silent",
    WORKERS: "0",
  };
}

/** Runs main.ts (with `args`) to its end, killed after 30 s; its exit code and the lines of its stderr. */
async function start(env: Record<string, string>, args: string[] = []) {
  const t0 = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts", ...args],
    env: { ...env, NO_COLOR: "1" },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    signal: AbortSignal.timeout(30_000), // a server that starts when it should not is killed, not waited on
  }).output();
  const lines = new TextDecoder().decode(out.stderr).split("\n").filter((l) => l.trim());
  return { code: out.code, lines, ms: performance.now() - t0 };
}

/** The one line a failed start writes: a JSON log line at level error whose msg starts "cannot start:". */
function oneLine(lines: string[]): string {
  assert.equal(lines.length, 1, `one line expected, got:\n${lines.join("\n")}`);
  const line = JSON.parse(lines[0]);
  assert.equal(line.level, "error");
  assert.match(line.msg, /^cannot start: /);
  assert.doesNotMatch(lines[0], /Uncaught|\s{4}at /);
  return line.msg;
}

async function withDir(fn: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "tessera-start-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("start: PORT=abc is one line naming PORT, exit 1", async () => {
  await withDir(async (dir) => {
    const r = await start({ ...goodEnv(dir), PORT: "abc" });
    assert.equal(r.code, 1);
    assert.match(
      oneLine(r.lines),
      /invalid configuration: PORT: must be a port number \(0-65535\), got 'abc'/,
    );
    assert.equal(existsSync(`${dir}/s.kv`), false, "no store was opened");
  });
});

Deno.test("start: MONGO_URL=not-a-url is one line naming MONGO_URL, exit 1", async () => {
  await withDir(async (dir) => {
    const r = await start({ ...goodEnv(dir), MONGO_URL: "not-a-url" });
    assert.equal(r.code, 1);
    assert.match(oneLine(r.lines), /MONGO_URL: must be a MongoDB connection string/);
  });
});

Deno.test("start: CORS_ORIGINS=* is one line naming CORS_ORIGINS, exit 1", async () => {
  await withDir(async (dir) => {
    const r = await start({ ...goodEnv(dir), CORS_ORIGINS: "*" });
    assert.equal(r.code, 1);
    assert.match(oneLine(r.lines), /invalid configuration: CORS_ORIGINS: '\*' is a wildcard/);
  });
});

Deno.test("start: every bad variable is named, in one line", async () => {
  await withDir(async (dir) => {
    const r = await start({ ...goodEnv(dir), AUTH_MODE: "bogus", JOB_CONCURRENCY: "0", LOG_LEVEL: "loud" });
    assert.equal(r.code, 1);
    const msg = oneLine(r.lines);
    for (const name of ["AUTH_MODE", "JOB_CONCURRENCY", "LOG_LEVEL"]) assert.match(msg, new RegExp(name));
  });
});

Deno.test("start: a port in use is found before any store work, in one line", async () => {
  await withDir(async (dir) => {
    const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const port = (busy.addr as Deno.NetAddr).port;
      // --dev would seed the empty store first (seconds of work) were the port not checked before it
      const r = await start({ ...goodEnv(dir), PORT: String(port) }, ["--dev"]);
      assert.equal(r.code, 1);
      assert.match(oneLine(r.lines), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
      assert.equal(existsSync(`${dir}/s.kv`), false, "the store was not opened, let alone seeded");
    } finally {
      busy.close();
    }
  });
});

Deno.test("start: production refuses the default client secret and the demo user, in one line", async () => {
  await withDir(async (dir) => {
    const { TESSERA_CLIENTS: _, ...noClients } = goodEnv(dir);
    const defaultSecret = await start(noClients);
    assert.equal(defaultSecret.code, 1);
    const msg = oneLine(defaultSecret.lines);
    assert.match(msg, /demo credentials in production/);
    assert.match(msg, /client 'tessera' has the default secret 'tessera-secret'/);
    assert.match(msg, /ALLOW_DEMO_CREDENTIALS=true/);
    assert.equal(existsSync(`${dir}/s.kv`), false);

    const explicit = await start({ ...goodEnv(dir), TESSERA_CLIENTS: "app:tessera-secret" });
    assert.match(oneLine(explicit.lines), /client 'app' has the default secret 'tessera-secret'/);

    const demoUser = await start({ ...goodEnv(dir), TESSERA_USERS: "alice:wonderland,demo:demo" });
    assert.equal(demoUser.code, 1);
    assert.match(oneLine(demoUser.lines), /the demo user demo:demo/);
  });
});

Deno.test("start: ALLOW_DEMO_CREDENTIALS=true starts with them; AUTH_MODE=oidc does not use them", async () => {
  const cases: Record<string, string>[] = [
    { ALLOW_DEMO_CREDENTIALS: "true", TESSERA_USERS: "demo:demo" },
    {
      AUTH_MODE: "oidc",
      OIDC_JWKS_URL: "http://127.0.0.1:9/certs",
      OIDC_ISSUER: "http://127.0.0.1:9",
      OIDC_AUDIENCE: "tessera",
    },
  ];
  for (const extra of cases) {
    await withDir(async (dir) => {
      const env: Record<string, string> = { ...goodEnv(dir), ...extra };
      delete env.TESSERA_CLIENTS;
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "main.ts"],
        env,
        clearEnv: true,
        stdout: "null",
        stderr: "null",
      }).spawn();
      try {
        let up = false;
        for (let i = 0; i < 200 && !up; i++) {
          try {
            up = (await fetch(`http://127.0.0.1:${env.PORT}/healthz`)).ok;
          } catch { /* not yet */ }
          if (!up) await new Promise((r) => setTimeout(r, 100));
        }
        assert.ok(up, JSON.stringify(extra));
      } finally {
        child.kill("SIGTERM");
        await child.status;
      }
    });
  }
});

Deno.test("start: while --dev seeds, the bound port answers 503 starting with Retry-After, then serves", async () => {
  await withDir(async (dir) => {
    const env = goodEnv(dir);
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "main.ts", "--dev"],
      env,
      clearEnv: true,
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const stdout = new Response(child.stdout).text();
    try {
      const seen: number[] = [];
      for (let i = 0; i < 600 && seen.at(-1) !== 200; i++) {
        try {
          const res = await fetch(`http://127.0.0.1:${env.PORT}/healthz`);
          if (res.status === 503 && !seen.includes(503)) {
            assert.equal(res.headers.get("retry-after"), "1");
            assert.deepEqual(await res.json(), { detail: "starting" });
          } else await res.body?.cancel();
          seen.push(res.status);
        } catch { /* not bound yet */ }
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(seen.includes(503), "the port answered while the demo data was seeded");
      assert.equal(seen.at(-1), 200);
    } finally {
      child.kill("SIGTERM");
      await child.status;
    }
    const out = await stdout;
    assert.match(out, /seeded /);
    assert.match(out, /client_secret=a-long-own-secret -d username=alice/); // --dev shows the credentials
  });
});
