/**
 * The container image (issue 21, item 13): a HEALTHCHECK on /healthz that needs nothing but deno (no curl
 * or wget in the image), run here as Docker would run it (its exec form, with the image's PORT) against a
 * started Tessera and against a port where nothing listens; and the image still runs as the `deno` user.
 */
import assert from "node:assert/strict";

const dockerfile = await Deno.readTextFile(new URL("../Dockerfile", import.meta.url));
/** The Dockerfile's instructions, continuation lines joined. */
const instructions = dockerfile.replace(/\\\n/g, " ").split("\n").map((l) => l.trim()).filter((l) =>
  l && !l.startsWith("#")
);

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** The HEALTHCHECK's options and its command in exec form. */
function healthcheck(): { options: string; argv: string[] } {
  const line = instructions.find((l) => l.startsWith("HEALTHCHECK "));
  assert.ok(line, "the Dockerfile has a HEALTHCHECK");
  const m = /^HEALTHCHECK\s+(.*?)\s*CMD\s+(\[.*\])$/.exec(line);
  assert.ok(m, `HEALTHCHECK ... CMD [exec form]: ${line}`);
  return { options: m[1], argv: JSON.parse(m[2]) };
}

/** Runs the check's command as the image would (its `deno` is ours), with PORT as given; the exit code. */
async function runCheck(port: number): Promise<number> {
  const [cmd, ...args] = healthcheck().argv;
  assert.equal(cmd, "deno", "the check needs nothing the Deno image lacks");
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    env: { PORT: String(port) },
    stdout: "null",
    stderr: "null",
    signal: AbortSignal.timeout(30_000),
  }).output();
  return out.code;
}

Deno.test("Dockerfile: HEALTHCHECK on /healthz with deno alone, timed, and the image runs as deno", () => {
  const { options, argv } = healthcheck();
  assert.match(options, /--interval=\d+s/);
  assert.match(options, /--timeout=\d+s/);
  assert.match(options, /--start-period=\d+s/);
  assert.match(argv.join(" "), /\/healthz/);
  const user = instructions.findIndex((l) => l === "USER deno");
  const cmd = instructions.findIndex((l) => l.startsWith("CMD "));
  assert.ok(user >= 0 && user < cmd, "USER deno before CMD");
  assert.ok(!instructions.slice(user + 1).some((l) => /^USER\s+(root|0)\b/.test(l)), "never back to root");
});

Deno.test("Dockerfile: the HEALTHCHECK command passes against a started Tessera and fails where none listens", async () => {
  const dir = await Deno.makeTempDir();
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      KV_PATH: `${dir}/s.kv`,
      AUTH_MODE: "off",
      LOG_LEVEL: "silent",
    },
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    let up = false;
    for (let i = 0; i < 200 && !up; i++) {
      try {
        up = (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
      } catch { /* not yet */ }
      if (!up) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(up);
    assert.equal(await runCheck(port), 0);
    assert.notEqual(await runCheck(freePort()), 0);
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Dockerfile: the image starts Tessera as `deno task start` does, flags and permissions alike", async () => {
  const tasks = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url))).tasks;
  const line = instructions.find((l) => l.startsWith("CMD "));
  assert.ok(line, "the Dockerfile has a CMD");
  const argv: string[] = JSON.parse(line.slice(4)); // the image's entrypoint is deno
  assert.deepEqual(["deno", ...argv], tasks.start.split(" "));
});
