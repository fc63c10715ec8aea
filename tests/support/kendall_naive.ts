/**
 * Kendall's tau-b by its definition, over every pair: O(n²). The reference the O(n log n) version is
 * tested and benchmarked against (tests/core/stats, bench/correlation_bench.ts).
 */
export function kendallQuadratic(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const rows: number[] = [];
  for (let i = 0; i < x.length; i++) if (x[i] === x[i] && y[i] === y[i]) rows.push(i);
  let concordant = 0, discordant = 0, tiedX = 0, tiedY = 0;
  for (let a = 0; a < rows.length; a++) {
    for (let b = a + 1; b < rows.length; b++) {
      const dx = Math.sign(x[rows[a]] - x[rows[b]]);
      const dy = Math.sign(y[rows[a]] - y[rows[b]]);
      if (dx === 0 && dy === 0) continue;
      if (dx === 0) tiedX++;
      else if (dy === 0) tiedY++;
      else if (dx === dy) concordant++;
      else discordant++;
    }
  }
  const d = Math.sqrt((concordant + discordant + tiedX) * (concordant + discordant + tiedY));
  return d === 0 ? NaN : (concordant - discordant) / d;
}
