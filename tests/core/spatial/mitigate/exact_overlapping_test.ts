import assert from "node:assert/strict";
import fc from "fast-check";
import { Rng } from "../../../../core/random.ts";
import { buildProblem } from "../../../../core/spatial/mitigate/problem.ts";
import { solveExactOverlapping } from "../../../../core/spatial/mitigate/exact_overlapping.ts";
import { solveProblem } from "../../../../core/spatial/mitigate/relabel.ts";
import { regionsOf } from "./fixtures.ts";
import { bruteForce, countsOf, near, setUp, statAfter, tiny } from "./exact_reference.ts";

/** N individuals, each in every one of R regions with probability 1/2: nearly N distinct signatures. */
function randomOverlapping(N: number, R: number, seed: number) {
  const rng = new Rng(seed);
  const labels = Uint8Array.from(
    { length: N },
    () => (rng.next() < 0.3 ? 1 : 0),
  );
  const members: number[][] = Array.from({ length: R }, () => []);
  for (let j = 0; j < N; j++) {
    for (let r = 0; r < R; r++) if (rng.next() < 0.5) members[r].push(j);
  }
  return {
    labels,
    members,
    pr: buildProblem(labels, regionsOf(members), { budget: 0.05, prTol: 0.1 }),
  };
}

// the recursive search overflowed the call stack (RangeError) on this instance: one frame per unit
Deno.test("exact (overlapping) on 40,000 units stops at its work limit with a bound, no stack overflow", () => {
  const { labels, members, pr } = randomOverlapping(40_000, 24, 1);
  assert.ok(
    pr.overlapping && pr.unitSign.length > 20_000,
    `${pr.unitSign.length} units`,
  );
  const r = solveExactOverlapping(pr, 2);
  assert.ok(r.status.code === 0 || r.status.code === 1, r.status.detail);
  assert.ok(
    r.bound! >= 0 && r.bound! <= r.objective!,
    `bound ${r.bound}, objective ${r.objective}`,
  );
  assert.ok(r.seconds < 4, `${r.seconds} s`);
  assert.ok(
    near(statAfter(pr, labels, members, countsOf(r)).value, r.objective!),
  );
});

Deno.test("solveProblem (approx = false) on 40,000 overlapping units answers a status, not a throw", async () => {
  const { pr } = randomOverlapping(40_000, 24, 1);
  const r = await solveProblem(pr, false, 2);
  assert.ok(r.status.code === 0 || r.status.code === 1, r.status.detail);
  assert.ok(r.bound! >= 0 && r.bound! <= r.objective!, `bound ${r.bound}, objective ${r.objective}`);
});

Deno.test("solveProblem turns a solver's throw into status 4; a bad work limit still throws", async () => {
  const { pr } = randomOverlapping(50, 3, 2);
  // N < 0 makes the exact search's x·ln x table throw a RangeError; a missing n makes the approx model throw
  const broken = [{ approx: false, pr: { ...pr, N: -5 } }, {
    approx: true,
    pr: { ...pr, n: undefined as unknown as Int32Array },
  }];
  for (const { approx, pr: bad } of broken) {
    const r = await solveProblem(bad, approx, 1);
    assert.equal(r.status.code, 4);
    assert.match(r.status.detail, approx ? /^the solver failed: / : /RangeError: Invalid typed array length/);
    assert.equal(r.unitDelta, null);
  }
  await assert.rejects(() => solveProblem(pr, false, 0), RangeError);
});

Deno.test("exact (overlapping) at a work limit of 1 µs: bound ≤ brute-force optimum ≤ objective", () => {
  let stopped = 0;
  for (let seed = 0; seed < 8; seed++) {
    const rng = new Rng(seed), N = 16, R = 6;
    const labels = Uint8Array.from(
      { length: N },
      () => (rng.next() < 0.4 ? 1 : 0),
    );
    const members: number[][] = Array.from({ length: R }, () => []);
    for (let j = 0; j < N; j++) {
      for (let r = 0; r < R; r++) if (rng.next() < 0.5) members[r].push(j);
    }
    const pr = buildProblem(labels, regionsOf(members), {
      budget: 5,
      prTol: 0,
    });
    const opt = bruteForce(pr, labels, members),
      r = solveExactOverlapping(pr, 1e-6);
    const tol = 1e-9 * Math.max(1, opt),
      ctx = `seed ${seed}: bound ${r.bound}, optimum ${opt}`;
    assert.ok(
      r.bound! >= 0 && r.bound! <= opt + tol && opt <= r.objective! + tol,
      ctx,
    );
    if (r.status.code === 0) assert.ok(near(r.objective!, opt), ctx);
    else (assert.equal(r.status.code, 1, ctx), stopped++);
  }
  assert.ok(stopped >= 3, `only ${stopped} of 8 searches stopped`); // those of more than 1,024 nodes
});

Deno.test("exact (overlapping) on tiny instances: status 0 at the brute-force optimum, bound = objective", () => {
  fc.assert(
    fc.property(tiny, (c) => {
      const { labels, members, pr, start, opt } = setUp(c);
      const r = solveExactOverlapping(pr, 30, start);
      assert.equal(r.status.code, 0);
      assert.ok(
        near(r.objective!, opt),
        `objective ${r.objective}, optimum ${opt}`,
      );
      assert.ok(
        r.bound! <= opt + 1e-9 * Math.max(1, opt),
        `bound ${r.bound}, optimum ${opt}`,
      );
      assert.ok(
        near(statAfter(pr, labels, members, countsOf(r)).value, r.objective!),
      );
    }),
    { numRuns: 1000, seed: 35 },
  );
});

Deno.test("exact (overlapping) stopped early: root bound ≤ bound ≤ brute-force optimum ≤ objective", () => {
  let stopped = 0, tighter = 0;
  fc.assert(
    fc.property(tiny, (c) => {
      const { pr, start, opt } = setUp(c);
      const r = solveExactOverlapping(pr, 30, start, 0, c.nodeLimit);
      const root = solveExactOverlapping(pr, 30, start, 0, 0).bound!; // stopped before any node
      const tol = 1e-9 * Math.max(1, opt),
        ctx = `bound ${r.bound}, root ${root}, optimum ${opt}`;
      assert.ok(r.status.code === 0 || r.status.code === 1, r.status.detail);
      assert.ok(
        r.bound! <= opt + tol && r.bound! <= r.objective! &&
          opt <= r.objective! + tol,
        ctx,
      );
      assert.ok(root <= r.bound! + tol, ctx);
      if (r.status.code === 1) (stopped++, r.bound! > root + tol && tighter++);
    }),
    { numRuns: 1000, seed: 36 },
  );
  assert.ok(stopped >= 250, `only ${stopped} of 1000 searches stopped`);
  assert.ok(
    tighter >= 10,
    `the open nodes bound above the root in only ${tighter} stopped searches`,
  );
});
