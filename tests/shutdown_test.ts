import assert from "node:assert/strict";
import { KvStore } from "../store/kv.ts";

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function waitUp(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("server did not start");
}

/** Starts main.ts, opens a slow upload, sends `signal` mid-upload, then checks the upload and the store. */
async function shutdownOn(signal: "SIGTERM" | "SIGINT"): Promise<void> {
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
    const base = `http://127.0.0.1:${port}`;
    await waitUp(`${base}/healthz`);
    const enc = new TextEncoder();
    let send!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (send = c) });
    send.enqueue(enc.encode("a,b\n1,2\n"));
    const pending = fetch(`${base}/api/datasets/demo/slow`, {
      method: "POST",
      body,
      headers: { "content-type": "text/csv" },
    });
    await new Promise((r) => setTimeout(r, 300));
    child.kill(signal);
    await new Promise((r) => setTimeout(r, 300));
    send.enqueue(enc.encode("3,4\n"));
    send.close();
    const res = await pending;
    assert.equal(res.status, 200);
    assert.equal((await res.json()).inserted, 2);
    const status = await child.status;
    assert.equal(status.code, 0);
    const store = await KvStore.open(`${dir}/s.kv`);
    assert.equal(await store.count({ db: "demo", collection: "slow" }), 2);
    await store.close();
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("shutdown: SIGTERM lets an in-flight upload finish, then closes the store and exits 0", () =>
  shutdownOn("SIGTERM"));

Deno.test("shutdown: SIGINT (Ctrl-C) does the same as SIGTERM", () => shutdownOn("SIGINT"));

Deno.test("start: an unreachable MongoDB ends the process with exit 1 and one line saying why", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    env: {
      PORT: String(freePort()),
      MONGO_URL: `mongodb://127.0.0.1:${freePort()}/`,
      AUTH_MODE: "local",
      TESSERA_CLIENTS: "tessera:own-secret", // production refuses the demo secret before any store work
    },
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 1);
  const line = JSON.parse(new TextDecoder().decode(out.stderr).trim().split("\n").at(-1)!);
  assert.equal(line.level, "error");
  assert.match(line.msg, /cannot start: .* needs the store/); // the first start-up step that reads it
});
