/** The timing the benchmark scripts share: one warm-up run, then the best and the median of `runs` runs. */

/** Milliseconds of the fastest run and of the median run of `f`, after one warm-up run. */
export async function bestAndMedian(
  f: () => unknown | Promise<unknown>,
  runs: number,
): Promise<{ best: number; median: number }> {
  await f();
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await f();
    t.push(performance.now() - t0);
  }
  t.sort((a, b) => a - b);
  return { best: t[0], median: t[Math.floor(t.length / 2)] };
}
