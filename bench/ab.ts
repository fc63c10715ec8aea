/**
 * Two versions of the code compared in one process, alternating, because this VM's speed drifts by half
 * from one run to the next and only interleaved runs on the same data compare fairly. A and B are
 * checkouts (e.g. `git worktree add /tmp/old 78a8501`):
 *
 *   deno run -A bench/ab.ts folds   A B ["Extra Trees Classifier"] [reps]   # one CV fold each, in turn
 *   deno run -A bench/ab.ts ranking A B [rounds]                           # argsortPresent, 20 columns
 *   deno run -A bench/ab.ts pairs   A B [pearson|spearman|kendall|all] [rounds]  # the 190 pairs, one thread
 *
 * Prints each side's times, B/A of the sums and the pairwise ratios.
 */
const [mode, a, b, ...rest] = Deno.args;
if (!a || !b || !["folds", "ranking", "pairs"].includes(mode)) {
  console.error("usage: bench/ab.ts folds|ranking|pairs CHECKOUT_A CHECKOUT_B [model|method] [reps]");
  Deno.exit(2);
}
const root = (p: string) => new URL(`file://${Deno.realPathSync(p)}/`);

/** A function timing one unit of work (seconds) in checkout `repo`, and a value to check both agree on. */
type Unit = (i: number) => Promise<{ seconds: number; value: unknown }>;

async function foldsOf(repo: string, model: string): Promise<Unit> {
  const at = root(repo);
  const { problemOf } = await import(new URL("core/learn/compare.ts", at).href);
  const { runJob } = await import(new URL("core/learn/models.ts", at).href);
  const { benchDesign } = await import(new URL("bench/valuation_design.ts", at).href);
  const problem = problemOf(benchDesign());
  return (i) => {
    const r = runJob(problem, { model, fold: i % 10 }, 0);
    return Promise.resolve({ seconds: r.seconds, value: r.accuracy });
  };
}

async function rankingOf(repo: string): Promise<Unit> {
  const at = root(repo);
  const { argsortPresent } = await import(new URL("core/stats/sort.ts", at).href);
  const { correlationColumns } = await import(new URL("bench/valuation_data.ts", at).href);
  const cols: Float64Array[] = correlationColumns(1_000_000, 20);
  return () => {
    const t0 = performance.now();
    let check = 0;
    for (const c of cols) check += argsortPresent(c).rows[0];
    return Promise.resolve({ seconds: (performance.now() - t0) / 1000, value: check });
  };
}

/** The pairs' half of the correlations (columns prepared once per checkout); the value is the matrices. */
async function pairsOf(repo: string, method: string): Promise<Unit> {
  const at = root(repo);
  const { prepareColumn, pairCoefficients, METHODS } = await import(
    new URL("core/stats/correlation.ts", at).href
  );
  const { correlationColumns } = await import(new URL("bench/valuation_data.ts", at).href);
  const methods = method === "all" ? METHODS : [method];
  const prepared = correlationColumns(1_000_000, 20).map((c: Float64Array) => prepareColumn(c, methods));
  return () => {
    const t0 = performance.now();
    const m = pairCoefficients(prepared, methods);
    return Promise.resolve({ seconds: (performance.now() - t0) / 1000, value: m });
  };
}

/** 0 when equal (NaN equals NaN), else how far apart (Infinity for a number against NaN). */
const gap = (p: number, q: number) => p === q || (p !== p && q !== q) ? 0 : Math.abs(p - q) || Infinity;

/** Largest difference between two results: 0 for counts, a few ulps for sums taken in another order. */
function differs(x: unknown, z: unknown): number {
  if (typeof x === "number" && typeof z === "number") return gap(x, z);
  const mx = x as Record<string, Float64Array>, mz = z as Record<string, Float64Array>;
  let d = 0;
  for (const k of Object.keys(mx)) {
    for (let i = 0; i < mx[k].length; i++) d = Math.max(d, gap(mx[k][i], mz[k][i]));
  }
  return d;
}

const model = mode === "folds"
  ? (rest[0] ?? "Extra Trees Classifier")
  : mode === "pairs"
  ? (rest[0] ?? "all")
  : "";
const reps = Number(mode === "ranking" ? rest[0] ?? 4 : rest[1] ?? (mode === "folds" ? 6 : 4));
const units: Record<string, (repo: string) => Promise<Unit>> = {
  folds: (repo) => foldsOf(repo, model),
  ranking: rankingOf,
  pairs: (repo) => pairsOf(repo, model),
};
const [ua, ub] = [await units[mode](a), await units[mode](b)];
const ta: number[] = [], tb: number[] = [];
for (let i = 0; i < reps; i++) {
  const x = await ua(i), z = await ub(i);
  const d = differs(x.value, z.value);
  if (d > 0) console.log(`unit ${i}: A and B differ by ${d}`);
  ta.push(x.seconds);
  tb.push(z.seconds);
}
const sum = (v: number[]) => v.reduce((s, t) => s + t, 0);
const show = (v: number[]) => v.map((t) => t.toFixed(2)).join(" ");
console.log(`${mode} ${model}`.trim());
console.log(`A ${show(ta)}  sum ${sum(ta).toFixed(2)} s`);
console.log(`B ${show(tb)}  sum ${sum(tb).toFixed(2)} s`);
console.log(
  `B/A ${(sum(tb) / sum(ta)).toFixed(3)}; pairwise ${ta.map((t, i) => (tb[i] / t).toFixed(2)).join(" ")}`,
);
