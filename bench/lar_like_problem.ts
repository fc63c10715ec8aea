/**
 * The mitigation problem of bench/lar_like_case.ts's case, built in process (no service, no store): the
 * scope (everyone, or y_true = 1 under equal opportunity), its regions from the tracts' region ids, and
 * buildProblem over them, as a relabel request with these settings would see it, or a threshold request's fit.
 */
import { buildProblem, type MitigationProblem } from "../core/spatial/mitigate/problem.ts";
import { trainTestSplit } from "../core/spatial/mitigate/train_test_split.ts";
import type { Regions } from "../core/spatial/types.ts";
import { type LarLikeCase, larLikeCase } from "./lar_like_case.ts";

export interface LarProblemOptions {
  n?: number;
  seed?: number;
  regions?: number;
  equalOpp: boolean;
  budget: number;
  prTol?: number;
}

/** Regions of the case over a scope: index = position among the ids present, members = scope positions. */
export function larRegions(c: LarLikeCase, scope: Int32Array): Regions {
  const present = new Uint8Array(c.nRegions + 1), idx = new Int32Array(c.nRegions + 1).fill(-1);
  for (const i of scope) {
    const t = c.tractOf[i];
    for (let k = c.tractStart[t]; k < c.tractStart[t + 1]; k++) present[c.tractIds[k]] = 1;
  }
  const ids: number[] = [];
  for (let r = 0; r <= c.nRegions; r++) if (present[r]) (idx[r] = ids.length, ids.push(r));
  const sizes = new Int32Array(ids.length);
  const each = (f: (r: number, j: number) => void) =>
    scope.forEach((i, j) => {
      const t = c.tractOf[i];
      for (let k = c.tractStart[t]; k < c.tractStart[t + 1]; k++) f(idx[c.tractIds[k]], j);
    });
  each((r) => sizes[r]++);
  const members = Array.from(sizes, (s) => new Int32Array(s)), fill = new Int32Array(ids.length);
  each((r, j) => (members[r][fill[r]++] = j));
  return { source: "region_ids", ids, members, polygons: null, unassigned: 0 };
}

/**
 * The problem threshold mitigation fits under `opts` (`fit`): the training part of the seeded split
 * (train_ratio 0.7, stratified by y_true, random_state 42, the request's defaults), else everyone.
 */
export function larLikeProblem(opts: LarProblemOptions & { fit?: boolean }): MitigationProblem {
  const c = larLikeCase({ n: opts.n, seed: opts.seed, regions: opts.regions });
  const part = opts.fit
    ? trainTestSplit(c.n, 0.7, c.yTrue, 42).train
    : Int32Array.from({ length: c.n }, (_, i) => i);
  const scope = part.filter((i) => !opts.equalOpp || c.yTrue[i] === 1);
  const labels = Uint8Array.from(scope, (i) => c.yPred[i]);
  return buildProblem(labels, larRegions(c, scope), { budget: opts.budget, prTol: opts.prTol ?? 0.1 });
}
