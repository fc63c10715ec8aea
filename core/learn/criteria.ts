/** The gini split criterion and where a split's threshold goes between two values. */

/** Σ_c left² / nLeft + Σ_c right² / nRight: gini's split criterion maximises it. */
export function score(left: Float64Array, nLeft: number, total: Float64Array, n: number): number {
  let l = 0, r = 0;
  for (let c = 0; c < total.length; c++) {
    l += left[c] * left[c];
    r += (total[c] - left[c]) ** 2;
  }
  return l / nLeft + r / (n - nLeft);
}

/**
 * The last bin on the left of a split between the node's neighbouring bins `prev` and `next`: bins in
 * between (empty here, not in other folds) go to the side of the midpoint of the two values, as
 * scikit-learn's threshold (prev + next) / 2 sends them.
 */
export function between(centres: Float64Array, prev: number, next: number): number {
  const mid = (centres[prev] + centres[next]) / 2;
  let l = prev, r = next - 1;
  while (l < r) {
    const m = (l + r + 1) >> 1;
    if (centres[m] <= mid) l = m;
    else r = m - 1;
  }
  return l;
}
