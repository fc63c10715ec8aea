import assert from "node:assert/strict";
import { log, setLogLevel, withRequestId } from "../../core/log.ts";

type Stream = "stdout" | "stderr";

/** Runs fn with console.log (stdout) and console.warn/error (stderr) recorded, and LOG_LEVEL `level`. */
function capture(
  level: Parameters<typeof setLogLevel>[0],
  fn: () => void,
): [Stream, Record<string, unknown>][] {
  const out: [Stream, Record<string, unknown>][] = [];
  const saved = { log: console.log, warn: console.warn, error: console.error };
  const to = (s: Stream) => (line: string) => void out.push([s, JSON.parse(line)]);
  Object.assign(console, { log: to("stdout"), warn: to("stderr"), error: to("stderr") });
  setLogLevel(level);
  try {
    fn();
  } finally {
    Object.assign(console, saved);
    setLogLevel("silent"); // as the tests' apps run
  }
  return out;
}

const all = () => (["debug", "info", "warn", "error"] as const).forEach((l) => log(l, `a ${l} line`));

Deno.test("log: the threshold lets through its level and those above; silent writes nothing", () => {
  const levels = (threshold: Parameters<typeof setLogLevel>[0]) =>
    capture(threshold, all).map(([stream, l]) => `${l.level}>${stream}`);
  assert.deepEqual(levels("debug"), ["debug>stdout", "info>stdout", "warn>stderr", "error>stderr"]);
  assert.deepEqual(levels("info"), ["info>stdout", "warn>stderr", "error>stderr"]);
  assert.deepEqual(levels("warn"), ["warn>stderr", "error>stderr"]);
  assert.deepEqual(levels("error"), ["error>stderr"]);
  assert.deepEqual(levels("silent"), []);
});

Deno.test("log: one line of time, level, the current request id, msg and the fields", async () => {
  const lines = capture("info", () => {
    log("info", "outside", { n: 1 });
    withRequestId("req-7", () => log("warn", "inside", { file: "a.json", skipped: undefined }));
    withRequestId("req-8", () => log("info", "named", { request_id: "req-9" }));
  });
  const [outside, inside, named] = lines.map(([, l]) => l);
  assert.deepEqual(Object.keys(outside), ["time", "level", "msg", "n"]); // no request, no request_id
  assert.deepEqual({ ...outside, time: 0 }, { time: 0, level: "info", msg: "outside", n: 1 });
  assert.ok(Math.abs(Date.parse(outside.time as string) - Date.now()) < 5000);
  assert.deepEqual(Object.keys(inside), ["time", "level", "request_id", "msg", "file"]);
  assert.deepEqual([inside.request_id, inside.level, inside.msg], ["req-7", "warn", "inside"]);
  assert.equal(named.request_id, "req-9"); // a line written for a request after its context ended

  // the id follows awaits, as a store call deep inside a request would
  const later = await new Promise<string | undefined>((resolve) =>
    withRequestId("req-async", async () => {
      await new Promise((r) => setTimeout(r, 5));
      resolve(capture("info", () => log("info", "after an await"))[0][1].request_id as string);
    })
  );
  assert.equal(later, "req-async");
});
