import assert from "node:assert/strict";
import fc from "fast-check";
import { jsonAscii, jsonStringRoom, putRaw, putString, putUint, withRoom } from "../../core/json_bytes.ts";

const decoder = new TextDecoder();

Deno.test("json bytes: integers as JSON.stringify writes them, at every change of length", () => {
  const values = [
    0,
    1,
    9,
    10,
    11,
    99,
    100,
    999,
    1000,
    65535,
    206417,
    999_999_999,
    1_000_000_000,
    2 ** 31 - 1,
  ];
  let buf = new Uint8Array(4), at = 0; // grows as it goes
  values.forEach((v, k) => {
    buf = withRoom(buf, at, 11);
    at = putUint(buf, k ? putRaw(buf, at, jsonAscii(",")) : at, v);
  });
  assert.equal(decoder.decode(buf.subarray(0, at)), values.join(","));
});

Deno.test("json bytes: any part of any string as JSON.stringify writes it, in UTF-8", () => {
  fc.assert(
    fc.property(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.string({ unit: "binary-ascii", maxLength: 40 }),
      fc.nat(),
      fc.nat(),
      (s, t, a, b) => {
        const from = a % (s.length + 1), to = from + b % (s.length - from + 1);
        // exactly the room each needs at most, so that an overrun would show
        let buf = new Uint8Array(1 + jsonStringRoom(to - from)), at = putRaw(buf, 0, jsonAscii("["));
        at = putString(buf, at, s, from, to);
        buf = withRoom(buf, at, 2 + jsonStringRoom(t.length));
        at = putRaw(buf, putString(buf, putRaw(buf, at, jsonAscii(",")), t, 0, t.length), jsonAscii("]"));
        const expected = JSON.stringify([s.slice(from, to), t]);
        assert.deepEqual(buf.subarray(0, at), new TextEncoder().encode(expected));
      },
    ),
    { numRuns: 500 },
  );
  // by hand: a quote, a backslash, a tab, é, an emoji and a lone surrogate
  const s = 'a"b\\c\td é😀\ud800', buf = new Uint8Array(jsonStringRoom(s.length));
  const text = decoder.decode(buf.subarray(0, putString(buf, 0, s, 0, s.length)));
  assert.equal(text, '"a\\"b\\\\c\\td é😀\\ud800"');
});
