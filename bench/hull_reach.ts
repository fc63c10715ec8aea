/**
 * How far one hull relaxation's multipliers bound PROMIS-Exact around their own D, on the LAR-like case
 * (docs/spatial-fairness.md "Where the budget binds everywhere"): the hull's value at a grid of D, then,
 * for the hull at --at, the Lagrangian bound g(D) under its multipliers at D around it.
 *   deno run -A bench/hull_reach.ts [--seed S] [--sp] [--budget 2000] [--at -200] [--from -900] [--to 500]
 *     [--step 100]
 * Prints two Markdown tables.
 */
import { approxRows } from "../core/spatial/mitigate/approx_bound.ts";
import { chainsOf } from "../core/spatial/mitigate/approx_chains.ts";
import { dualValues } from "../core/spatial/mitigate/exact_dual_bound.ts";
import { ALL_PIECES, hullAtD } from "../core/spatial/mitigate/exact_hull.ts";
import { xlogxTable } from "../core/spatial/statistic.ts";
import { larLikeProblem } from "./lar_like_problem.ts";

const arg = (name: string, dflt: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : dflt;
};
const seed = arg("seed", 20_240_601), budget = arg("budget", 2000), at = arg("at", -200);
const equalOpp = !Deno.args.includes("--sp");
const pr = larLikeProblem({ seed, equalOpp, budget });
const t = xlogxTable(pr.N), rows = approxRows(pr), chains = chainsOf(rows);
const hull = (D: number) => hullAtD(pr, t, rows, chains, D, Infinity, ALL_PIECES);

console.log(`LAR-like case, ${equalOpp ? "EO" : "SP"}, budget ${budget}, seed ${seed}: hull value per D`);
console.log("| D | hull value | seconds |\n|---|---|---|");
for (let D = arg("from", -900); D <= arg("to", 500); D += arg("step", 100)) {
  const s = performance.now(), h = hull(D);
  console.log(`| ${D} | ${h ? h.value.toFixed(4) : "—"} | ${((performance.now() - s) / 1000).toFixed(2)} |`);
}

const h = hull(at);
if (!h) throw new Error(`no hull at D ${at}`);
const offsets = [0, 1, 2, 5, 10, 20, 40, 80, 160, 400];
const wanted = new Set(offsets.flatMap((o) => [at - o, at + o]).map((D) => D - pr.dMin));
const g = new Float64Array(pr.dMax - pr.dMin + 1);
dualValues(pr, t, h.y, g, Infinity, (j) => wanted.has(j));
const show = (D: number) => (D >= pr.dMin && D <= pr.dMax ? g[D - pr.dMin].toFixed(4) : "—");
console.log(`\nMultipliers of the hull at D ${at} (value ${h.value.toFixed(4)}): the bound g at D ${at} ± δ`);
console.log("| δ | g(D - δ) | g(D + δ) |\n|---|---|---|");
for (const o of offsets) console.log(`| ${o} | ${show(at - o)} | ${show(at + o)} |`);
