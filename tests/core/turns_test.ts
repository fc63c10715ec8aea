import assert from "node:assert/strict";
import { beside } from "../../core/turns.ts";

Deno.test("beside: both results; a failure of either rejects only once both have settled, never unhandled", async () => {
  const later = <T>(ms: number, v: T) => new Promise<T>((r) => setTimeout(() => r(v), ms));
  assert.deepEqual(await beside(() => later(5, "side"), () => later(1, 2)), ["side", 2]);
  // main starts first
  const order: string[] = [];
  await beside(
    () => Promise.resolve(void order.push("side")),
    () => Promise.resolve(void order.push("main")),
  );
  assert.deepEqual(order, ["main", "side"]);
  // main fails first: the rejection waits for side to finish
  let sideDone = false;
  const side = later(30, 0).then(() => (sideDone = true));
  await assert.rejects(beside(() => side, () => Promise.reject(new Error("main"))), /main/);
  assert.equal(sideDone, true);
  // side fails while main still runs: no unhandled rejection, and main's end brings side's error
  const failing = later(1, 0).then(() => Promise.reject(new Error("side")));
  await assert.rejects(beside(() => failing, () => later(20, 1)), /side/);
  // both fail: main's error is the one reported
  const both = later(1, 0).then(() => Promise.reject(new Error("side")));
  await assert.rejects(
    beside(() => both, () => later(5, 0).then(() => Promise.reject(new Error("main")))),
    /main/,
  );
});
