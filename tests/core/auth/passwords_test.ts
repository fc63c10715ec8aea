/** Constant-time secret comparison and the name → secret table. */
import assert from "node:assert/strict";
import { secretsEqual, SecretTable } from "../../../core/auth/passwords.ts";

Deno.test("secretsEqual is true only for the same string, whatever the lengths", async () => {
  assert.equal(await secretsEqual("tessera-secret", "tessera-secret"), true);
  assert.equal(await secretsEqual("tessera-secret", "tessera-secreT"), false);
  assert.equal(await secretsEqual("tessera", "tessera-secret"), false);
  assert.equal(await secretsEqual("", ""), true);
  assert.equal(await secretsEqual("", "x"), false);
  assert.equal(await secretsEqual("pässwörd", "pässwörd"), true);
});

Deno.test("SecretTable refuses unknown names and wrong secrets", async () => {
  const t = new SecretTable(new Map([["alice", "wonderland"], ["eve", ""]]));
  assert.equal(await t.check("alice", "wonderland"), true);
  assert.equal(await t.check("alice", "Wonderland"), false);
  assert.equal(await t.check("bob", "wonderland"), false);
  assert.equal(await t.check("eve", ""), true);
  assert.equal(t.has("alice"), true);
  assert.equal(t.has("bob"), false);
  assert.equal(t.size, 2);
});
