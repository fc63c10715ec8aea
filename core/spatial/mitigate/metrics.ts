/**
 * Classification metrics of predictions against y_true (positive class 1), reported before and after
 * a mitigation. A ratio whose denominator is 0 is 0 (scikit-learn's zero_division=0).
 */

/** Accuracy, precision, recall and F1 with the confusion counts they come from. */
export interface ClassificationMetrics {
  accuracy: number;
  precision: number;
  recall: number;
  f1: number;
  tp: number;
  fp: number;
  tn: number;
  fn: number;
  n: number;
}

/** Metrics of `yPred` against `yTrue` over `positions` (default: every index). */
export function classificationMetrics(
  yPred: ArrayLike<number>,
  yTrue: ArrayLike<number>,
  positions?: ArrayLike<number>,
): ClassificationMetrics {
  let tp = 0, fp = 0, tn = 0, fn = 0;
  const n = positions ? positions.length : yTrue.length;
  for (let k = 0; k < n; k++) {
    const i = positions ? positions[k] : k;
    if (yPred[i]) yTrue[i] ? tp++ : fp++;
    else yTrue[i] ? fn++ : tn++;
  }
  const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);
  const precision = ratio(tp, tp + fp), recall = ratio(tp, tp + fn);
  return {
    accuracy: ratio(tp + tn, n),
    precision,
    recall,
    f1: ratio(2 * tp, 2 * tp + fp + fn),
    tp,
    fp,
    tn,
    fn,
    n,
  };
}
