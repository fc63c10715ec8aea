/**
 * The README's tour and docs/walkthroughs.md do not fail silently (issue 21, item 14). Statically: no token is cut out of
 * an answer with sed (which stores an error as the token), every request of a walkthrough stops on an
 * error answer (`api`, `curl -f`, `--fail-with-body`), no polling loop waits on a status it may never get.
 * Then the walkthrough's preamble runs in bash, as written, against a started Tessera: `tok` gets a token
 * or stops with a message, `api` renews an old token and fails on an error answer, `wait_job` stops on a
 * job that cannot be read instead of spinning.
 */
import assert from "node:assert/strict";

const README = await Deno.readTextFile(new URL("../README.md", import.meta.url));
const WALKTHROUGHS = await Deno.readTextFile(new URL("../docs/walkthroughs.md", import.meta.url));
const ANNOTATION = await Deno.readTextFile(new URL("../docs/annotation.md", import.meta.url));

/** The ```sh blocks of a markdown text, from the heading `from` on. */
function shellBlocks(md: string, from = ""): string[] {
  const text = from ? md.slice(md.indexOf(from)) : md;
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

/** A block's commands: continuation lines joined, comments dropped. */
const commands = (block: string) =>
  block.replace(/\\\n\s*/g, " ").split("\n").map((l) => l.replace(/(^|\s)#.*$/, "").trim()).filter(Boolean);

Deno.test("README, docs/walkthroughs.md, docs/annotation.md: every request stops on an error, no endless poll", () => {
  const walkthroughs = [
    ...shellBlocks(README, "## A five-minute tour"),
    ...shellBlocks(WALKTHROUGHS),
    ...shellBlocks(ANNOTATION),
  ];
  assert.ok(walkthroughs.length >= 6);
  for (const block of walkthroughs) {
    assert.doesNotMatch(block, /sed -E 's\/\.\*"access_token"/, "a token cut out by sed");
    assert.doesNotMatch(block, /sed -E 's\/\.\*"job_id"/, "a job id cut out by sed");
    assert.doesNotMatch(block, /until curl/, "a poll that spins on an error answer");
    for (const cmd of commands(block)) {
      // curl itself only inside the helper functions; everywhere else it must fail on an error answer
      for (const call of cmd.matchAll(/(?:^|[|;(&]\s*|\$\()curl\s([^|;)]*)/g)) {
        assert.match(
          call[1],
          /(^|\s)(-[a-zA-Z]*f[a-zA-Z]*|--fail|--fail-with-body)(\s|$)/,
          `curl without -f: ${cmd}`,
        );
      }
    }
  }
});

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** The walkthroughs' shell functions (the first block under "## The shell functions"), pointed at `base`. */
function preamble(base: string): string {
  const block = shellBlocks(WALKTHROUGHS, "## The shell functions")[0];
  assert.match(block, /^B=localhost:8000$/m);
  return block.replace(/^B=localhost:8000$/m, `B=${base}`);
}

/** Runs the preamble then `script` in bash; exit code, stdout and stderr, killed after 60 s. */
async function bash(base: string, script: string) {
  const out = await new Deno.Command("bash", {
    args: ["-c", `${preamble(base)}\n${script}`],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

Deno.test("walkthroughs' shell functions: tok, api and wait_job stop with a message on every error", async () => {
  const dir = await Deno.makeTempDir();
  const port = freePort();
  const base = `127.0.0.1:${port}`;
  // nothing listens yet: tok says so and fails (no error text stored as a token)
  const down = await bash(base, 'echo "TOKEN=[$TOKEN]"; tok');
  assert.notEqual(down.code, 0);
  assert.match(down.stdout, /TOKEN=\[\]/);
  assert.match(down.stderr, /tok: no token from 127\.0\.0\.1:\d+: no answer/);

  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      KV_PATH: `${dir}/s.kv`,
      LOG_LEVEL: "silent",
      TESSERA_USERS: "demo:demo",
      ALLOW_DEMO_CREDENTIALS: "true",
      WORKERS: "0",
    },
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    let up = false;
    for (let i = 0; i < 200 && !up; i++) {
      try {
        up = (await fetch(`http://${base}/healthz`)).ok;
      } catch { /* not yet */ }
      if (!up) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(up);

    const ok = await bash(base, 'echo "$TOKEN" | cut -c1-3; api $B/api/tasks/documents');
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout.split("\n")[0], "eyJ"); // a JWT, not an error answer
    assert.deepEqual(JSON.parse(ok.stdout.split("\n").slice(1).join("\n")), []);

    // an access token older than 4 minutes is renewed before the request
    const renew = await bash(
      base,
      'OLD=$TOKEN; TOKEN_AT=0; sleep 1; api $B/api/tasks/documents >/dev/null && [ "$TOKEN" != "$OLD" ] && echo renewed',
    );
    assert.equal(renew.code, 0, renew.stderr);
    assert.match(renew.stdout, /renewed/);

    // an error answer: the answer is shown and the command fails
    const missing = await bash(base, "api $B/api/tasks/document/nope");
    assert.notEqual(missing.code, 0);
    assert.match(missing.stdout + missing.stderr, /404/);

    // a poll of a job that cannot be read stops at once
    const t0 = performance.now();
    const poll = await bash(base, "wait_job no-such-job");
    assert.notEqual(poll.code, 0);
    assert.match(poll.stderr, /wait_job: cannot read job no-such-job/);
    assert.ok(performance.now() - t0 < 20_000);

    // a refused password: tok fails with a message and the answer, no token is kept
    const wrong = await new Deno.Command("bash", {
      args: ["-c", `${preamble(base).replace("password=demo", "password=wrong")}\necho "TOKEN=[$TOKEN]"`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(wrong.stderr);
    assert.match(err, /invalid_grant/);
    assert.match(err, /tok: no token/);
    assert.match(new TextDecoder().decode(wrong.stdout), /TOKEN=\[\]/);
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
});
