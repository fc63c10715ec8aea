/**
 * PROMIS-Approx on the LAR-like scan case (bench/lar_like_case.ts: 3,000 overlapping squares, ~100 per
 * individual), the solver alone, next to HiGHS's generic dual simplex on the whole model in the same run:
 *   deno run -A bench/mitigate_lar_bench.ts [--n 206418] [--seed S] [--limit 30] [--no-reference] [--exact]
 *     [--one-core] [--scope SP|EO] [--budget B]
 * With --exact: PROMIS-Exact (approx = false) instead, its objective, bound and gap at the work limit, and
 * after the six cases the two that threshold mitigation fits at its defaults (budget 0.2, the training part),
 * with the second core's search the service's workers give it (--one-core: without).
 * Cases: statistical parity and equal opportunity × budget_constr 0.05, 0.2 and 2,000; pr_constr 0.1
 * (--scope, --budget: only the cases of that scope or budget, threshold's fits among them).
 * Prints a Markdown table: status, objective, bound, gap, seconds, columns of the last master.
 */
import { approxModel, solveApprox } from "../core/spatial/mitigate/approx.ts";
import { solveSparse } from "../core/spatial/mitigate/highs.ts";
import { solveProblem } from "../core/spatial/mitigate/relabel.ts";
import { relativeGap } from "../core/spatial/mitigate/status.ts";
import { larLikeProblem } from "./lar_like_problem.ts";
import { searchElsewhere } from "../workers/search_elsewhere.ts";

const only = (name: string) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : null;
};
const arg = (name: string, dflt: number) => Number(only(name) ?? dflt);
const n = arg("n", 206_418), seed = arg("seed", 20_240_601), limit = arg("limit", 30);
const reference = !Deno.args.includes("--no-reference"), exact = Deno.args.includes("--exact");
const oneCore = Deno.args.includes("--one-core");
const onlyScope = only("scope"), onlyBudget = only("budget");
const f = (v: number | null, d = 6) => (v === null ? "—" : v.toPrecision(d));

console.log(`LAR-like case, n = ${n}, seed ${seed}, work limit ${limit} s`);
console.log(
  "| scope | budget | solver | status | objective | bound | gap | seconds | columns or Newton steps |",
);
console.log("|---|---|---|---|---|---|---|---|---|");
// [equal opportunity, budget, threshold's fit]: the six relabel cases, then (exact) threshold's two fits
const cases: (readonly [boolean, number, boolean])[] = [false, true].flatMap((e) =>
  [0.05, 0.2, 2000].map((b) => [e, b, false] as const)
);
if (exact) cases.push([false, 0.2, true], [true, 0.2, true]);
const chosen = cases.filter(([e, b]) =>
  (onlyScope === null || onlyScope === (e ? "EO" : "SP")) && (onlyBudget === null || Number(onlyBudget) === b)
);
for (const [equalOpp, budget, fit] of chosen) {
  const pr = larLikeProblem({ n, seed, equalOpp, budget, fit });
  const scope = (equalOpp ? "EO" : "SP") + (fit ? ", threshold fit" : "");
  if (exact) {
    // a second core as the service's worker has it (workers/search_elsewhere.ts), unless --one-core
    const r = await solveProblem(pr, false, limit, undefined, null, oneCore ? undefined : searchElsewhere);
    const gap = relativeGap(r.objective ?? NaN, r.bound ?? NaN);
    console.log(
      `| ${scope} | ${budget} | Tessera exact | ${r.status.code} | ${f(r.objective, 10)} | ${
        f(r.bound, 10)
      } | ` +
        `${gap.toExponential(1)} | ${r.seconds.toFixed(2)} | ${pr.unitSign.length} units |`,
    );
    continue;
  }
  await solveApprox(pr, 1); // HiGHS compiled, the pages warm
  const r = await solveApprox(pr, limit);
  console.log(
    `| ${scope} | ${budget} | Tessera (zero gap, else column generation) | ${r.status.code} | ${
      f(r.objective, 10)
    } | ${f(r.bound, 10)} | ` +
      `${
        r.objective !== null && r.bound !== null ? relativeGap(r.objective, r.bound).toExponential(1) : "—"
      } | ` +
      `${r.seconds.toFixed(2)} | ${
        r.columns ? `${r.columns} of ${pr.unitSign.length}` : `${r.rounds} steps`
      } |`,
  );
  if (!reference) continue;
  const g = await solveSparse(approxModel(pr), limit);
  console.log(
    `| ${scope} | ${budget} | HiGHS dual simplex, whole model | ${g.status.code} | ${
      f(g.objective, 10)
    } | — | — | ` +
      `${g.seconds.toFixed(2)} | ${pr.unitSign.length} |`,
  );
}
