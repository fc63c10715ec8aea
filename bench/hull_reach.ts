/**
 * How far one hull relaxation's multipliers bound PROMIS-Exact around their own D, on the LAR-like case
 * (docs/spatial-fairness.md "How far one hull reaches"): the hull's value at a grid of D; the lowest
 * Lagrangian bound over the grid's span under all their multipliers, and with the multipliers blended
 * between neighbouring grid points at each D between them; then, for the hull at --at, the bound g(D)
 * under its multipliers at D around it.
 *   deno run -A bench/hull_reach.ts [--seed S] [--sp] [--budget 2000] [--at -200] [--from -900] [--to 500]
 *     [--step 100]
 * Prints two Markdown tables and the lowest bounds between them.
 */
import { approxRows } from "../core/spatial/mitigate/approx_bound.ts";
import { chainsOf } from "../core/spatial/mitigate/approx_chains.ts";
import { dualValues } from "../core/spatial/mitigate/exact_dual_bound.ts";
import { ALL_PIECES, hullAtD, type HullPoint } from "../core/spatial/mitigate/exact_hull.ts";
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
// the grid, within the window
const from = Math.max(pr.dMin, arg("from", -900)),
  to = Math.min(pr.dMax, arg("to", 500)),
  step = arg("step", 100);
const grid: HullPoint[] = [];
for (let D = from; D <= to; D += step) {
  const s = performance.now(), h = hull(D);
  if (h) grid.push(h);
  console.log(`| ${D} | ${h ? h.value.toFixed(4) : "—"} | ${((performance.now() - s) / 1000).toFixed(2)} |`);
}

// the bound per D over [from, to]: the best g under the grid's multipliers, then also under blends
const g = new Float64Array(pr.dMax - pr.dMin + 1), env = new Float64Array(to - from + 1).fill(-Infinity);
const inSpan = (j: number) => j + pr.dMin >= from && j + pr.dMin <= to;
for (const h of grid) {
  dualValues(pr, t, h.y, g, Infinity, inSpan);
  for (let D = from; D <= to; D++) env[D - from] = Math.max(env[D - from], g[D - pr.dMin]);
}
const lowest = (a: Float64Array) => a.reduce((m, v) => Math.min(m, v), Infinity).toFixed(4);
const plain = lowest(env);
for (let k = 0; k + 1 < grid.length; k++) {
  const a = grid[k], b = grid[k + 1];
  for (let D = a.D + 1; D < b.D; D++) {
    const s = (D - a.D) / (b.D - a.D), y = a.y.map((v, i) => v + s * (b.y[i] - v));
    dualValues(pr, t, y, g, Infinity, (j) => j + pr.dMin === D);
    env[D - from] = Math.max(env[D - from], g[D - pr.dMin]);
  }
}
console.log(
  `\nLowest bound over [${from}, ${to}]: ${plain} under the grid's multipliers, ${lowest(env)} with blends`,
);

const h = grid.find((p) => p.D === at) ?? hull(at);
if (!h) throw new Error(`no hull at D ${at}`);
const offsets = [0, 1, 2, 5, 10, 20, 40, 80, 160, 400];
const wanted = new Set(offsets.flatMap((o) => [at - o, at + o]).map((D) => D - pr.dMin));
dualValues(pr, t, h.y, g, Infinity, (j) => wanted.has(j));
const show = (D: number) => (D >= pr.dMin && D <= pr.dMax ? g[D - pr.dMin].toFixed(4) : "—");
console.log(`\nMultipliers of the hull at D ${at} (value ${h.value.toFixed(4)}): the bound g at D ${at} ± δ`);
console.log("| δ | g(D - δ) | g(D + δ) |\n|---|---|---|");
for (const o of offsets) console.log(`| ${o} | ${show(at - o)} | ${show(at + o)} |`);
