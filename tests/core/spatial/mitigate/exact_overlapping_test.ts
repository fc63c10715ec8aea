import assert from "node:assert/strict";
import { Rng } from "../../../../core/random.ts";
import { buildProblem, type MitigationProblem } from "../../../../core/spatial/mitigate/problem.ts";
import { solveExactOverlapping } from "../../../../core/spatial/mitigate/exact_overlapping.ts";
import type { UnitSolution } from "../../../../core/spatial/mitigate/status.ts";
import { regionsOf } from "./fixtures.ts";

/** k ln(k/m) + (m-k) ln(1 - k/m), 0 ln 0 = 0: the log-likelihood term, written out for these tests. */
function ll(k: number, m: number): number {
  return (k > 0 ? k * Math.log(k / m) : 0) + (k < m ? (m - k) * Math.log((m - k) / m) : 0);
}

/** Σ_i max(0, l1_i - l0) after flipping the first counts[u] members of every unit u. */
function statAfter(
  pr: MitigationProblem,
  labels: Uint8Array,
  members: number[][],
  counts: ArrayLike<number>,
) {
  const y = labels.slice();
  for (let u = 0; u < counts.length; u++) {
    for (let m = 0; m < counts[u]; m++) y[pr.unitMembers[pr.unitMemStart[u] + m]] ^= 1;
  }
  const N = y.length, P = y.reduce((a, b) => a + b, 0), l0 = ll(P, N);
  let sum = 0;
  for (const reg of members) {
    const n = reg.length, p = reg.reduce((a, j) => a + y[j], 0);
    if (n > 0 && n < N) sum += Math.max(0, ll(p, n) + ll(P - p, N - n) - l0);
  }
  return { value: sum, newP: P };
}

/** The solution's flips per unit (|δ_u|, integers). */
const countsOf = (s: UnitSolution) => Array.from(s.unitDelta!, Math.abs);

/** |a - b| within 1e-9 relative (absolute below 1). */
const near = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

/** N individuals, each in every one of R regions with probability 1/2: nearly N distinct signatures. */
function randomOverlapping(N: number, R: number, seed: number) {
  const rng = new Rng(seed);
  const labels = Uint8Array.from({ length: N }, () => (rng.next() < 0.3 ? 1 : 0));
  const members: number[][] = Array.from({ length: R }, () => []);
  for (let j = 0; j < N; j++) for (let r = 0; r < R; r++) if (rng.next() < 0.5) members[r].push(j);
  return { labels, members, pr: buildProblem(labels, regionsOf(members), { budget: 0.05, prTol: 0.1 }) };
}

// the recursive search overflowed the call stack (RangeError) on this instance: one frame per unit
Deno.test("exact (overlapping) on 40,000 units stops at its work limit with a bound, no stack overflow", () => {
  const { labels, members, pr } = randomOverlapping(40_000, 24, 1);
  assert.ok(pr.overlapping && pr.unitSign.length > 20_000, `${pr.unitSign.length} units`);
  const r = solveExactOverlapping(pr, 2);
  assert.ok(r.status.code === 0 || r.status.code === 1, r.status.detail);
  assert.ok(r.bound! >= 0 && r.bound! <= r.objective!, `bound ${r.bound}, objective ${r.objective}`);
  assert.ok(r.seconds < 4, `${r.seconds} s`);
  assert.ok(near(statAfter(pr, labels, members, countsOf(r)).value, r.objective!));
});
