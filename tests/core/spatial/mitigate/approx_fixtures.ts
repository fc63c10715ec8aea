/**
 * Small PROMIS-Approx instances shared by the approx tests: two by hand, whose optima scipy computed
 * (approx_bound_ref.py; the values are in the tests that use them), and random small overlapping problems.
 */
import fc from "fast-check";
import { buildProblem, type MitigationProblem } from "../../../../core/spatial/mitigate/problem.ts";
import { regionsOf } from "./fixtures.ts";

/** 14 individuals (P = 6) in four overlapping regions. */
export const FOURTEEN = {
  labels: Uint8Array.from([1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1]),
  regions: regionsOf([[0, 1, 2, 3, 4, 5], [2, 3, 4, 5, 6, 7, 8], [8, 9, 10, 11], [0, 5, 9, 12, 13]]),
};

/** 10 individuals (P = 5) in three overlapping regions. */
export const TEN = {
  labels: Uint8Array.from([1, 1, 1, 0, 0, 0, 1, 0, 1, 0]),
  regions: regionsOf([[0, 1, 2, 3, 4], [3, 4, 5, 6], [0, 6, 7, 8, 9]]),
};

/** A random small overlapping problem from fast-check's choices. */
export const problems = fc.record({
  labels: fc.array(fc.integer({ min: 0, max: 1 }), { minLength: 4, maxLength: 24 }),
  regionBits: fc.array(fc.array(fc.boolean(), { minLength: 24, maxLength: 24 }), {
    minLength: 1,
    maxLength: 5,
  }),
  budget: fc.constantFrom(0.1, 0.25, 0.5, 1, 2, 3),
  prTol: fc.constantFrom(0, 0.1, 0.3, 1),
}).map(({ labels, regionBits, budget, prTol }): MitigationProblem => {
  const members = regionBits.map((bits) => labels.map((_, j) => j).filter((j) => bits[j]));
  return buildProblem(Uint8Array.from(labels), regionsOf(members), { budget, prTol });
});
