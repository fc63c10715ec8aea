import assert from "node:assert/strict";
import {
  auditCap,
  auditMapValues,
  divergingColor,
  globalRate,
  mapValue,
} from "../../../../core/spatial/maps/map_value.ts";
import { fourRegions } from "./fixtures.ts";

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} != ${b}`);

Deno.test("mapValue: below the threshold, 0.2·s/T with the sign of rate − global rate", () => {
  close(mapValue(0.05, 0.4, 0.3, 0.1, 0.5), 0.1);
  close(mapValue(0.05, 0.2, 0.3, 0.1, 0.5), -0.1);
  close(mapValue(0.025, 0.2, 0.3, 0.1, 0.5), -0.05);
});

Deno.test("mapValue: at and above the threshold, 0.2 + 0.8·(s − T)/(cap − T), clipped at cap", () => {
  close(mapValue(0.1, 0.4, 0.3, 0.1, 0.5), 0.2);
  close(mapValue(0.3, 0.4, 0.3, 0.1, 0.5), 0.6); // 0.2 + 0.8·0.2/0.4
  close(mapValue(0.2, 0.1, 0.3, 0.1, 0.5), -0.4); // −(0.2 + 0.8·0.1/0.4)
  close(mapValue(0.5, 0.4, 0.3, 0.1, 0.5), 1);
  close(mapValue(0.7, 0.4, 0.3, 0.1, 0.5), 1); // after mitigation s may exceed the before cap
  close(mapValue(0.7, 0.2, 0.3, 0.1, 0.5), -1);
});

Deno.test("mapValue: no bias to show gives 0 (s = 0, empty region, rate equal to the global rate)", () => {
  assert.equal(mapValue(0, 0.4, 0.3, 0.1, 0.5), 0);
  assert.equal(mapValue(0.2, null, 0.3, 0.1, 0.5), 0);
  assert.equal(mapValue(0.2, 0.3, 0.3, 0.1, 0.5), 0);
  assert.equal(mapValue(Number.NaN, 0.4, 0.3, 0.1, 0.5), 0);
});

Deno.test("mapValue: T = 0 puts every s > 0 on the upper ramp", () => {
  close(mapValue(0.25, 0.4, 0.3, 0, 0.5), 0.6); // 0.2 + 0.8·0.25/0.5
  close(mapValue(0.5, 0.2, 0.3, 0, 0.5), -1);
});

Deno.test("mapValue: cap ≤ T gives a significant region the full ±1, the lower ramp is unchanged", () => {
  assert.equal(mapValue(0.1, 0.4, 0.3, 0.1, 0.1), 1); // cap = T = s
  assert.equal(mapValue(0.2, 0.2, 0.3, 0.1, 0.05), -1); // cap < T (no significant region before)
  close(mapValue(0.05, 0.4, 0.3, 0.1, 0.05), 0.1);
  assert.equal(mapValue(0.3, 0.4, 0.3, 0, 0), 1); // T = cap = 0
});

Deno.test("auditMapValues: per region of an audit, cap from the audit unless given", () => {
  const { audit } = fourRegions();
  close(globalRate(audit), 0.3);
  assert.equal(auditCap(audit), 0.5);
  const v = auditMapValues(audit);
  [1, -0.6, 0.1, -0.04].forEach((want, i) => close(v[i], want));
  // A larger cap from a before-mitigation audit lowers r0: 0.2 + 0.8·0.4/0.9.
  close(auditMapValues(audit, 1)[0], 0.2 + 0.8 * 0.4 / 0.9);
});

Deno.test("divergingColor: RdBu endpoints, midpoint, clamping and interpolation between stops", () => {
  assert.equal(divergingColor(-1), "#053061");
  assert.equal(divergingColor(0), "#f7f7f7");
  assert.equal(divergingColor(1), "#67001f");
  assert.equal(divergingColor(3), "#67001f");
  assert.equal(divergingColor(-3), "#053061");
  assert.equal(divergingColor(Number.NaN), "#f7f7f7");
  // 0.1 is halfway between stop 5 (#f7f7f7) and stop 6 (#fddbc7): (250, 233, 223).
  assert.equal(divergingColor(0.1), "#fae9df");
  // −0.2 is exactly stop 4.
  assert.equal(divergingColor(-0.2), "#d1e5f0");
});
