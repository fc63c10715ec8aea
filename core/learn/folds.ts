/**
 * Stratified hold-out split and stratified k folds, as the reference prepared its comparison
 * (PyCaret: 70 % training split stratified by the target, then stratified k-fold on it). Seeded, so a
 * request with the same seed draws the same rows.
 */
import { Rng } from "../random.ts";
import { ParamMismatchError } from "../errors.ts";

/** Row indices of a hold-out split. */
export interface HoldOut {
  train: Uint32Array;
  test: Uint32Array;
}

function shuffle(a: number[], rng: Rng): number[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

function byClass(y: ArrayLike<number>, classes: number, rows?: ArrayLike<number>): number[][] {
  const out: number[][] = Array.from({ length: classes }, () => []);
  const n = rows ? rows.length : y.length;
  for (let k = 0; k < n; k++) {
    const r = rows ? rows[k] : k;
    out[y[r]].push(r);
  }
  return out;
}

/**
 * Each class split in the proportion `trainSize` (rounded per class), rows in ascending order, so
 * the training split keeps the class balance the model comparison depends on.
 */
export function stratifiedSplit(y: Int32Array, classes: number, trainSize: number, rng: Rng): HoldOut {
  const train: number[] = [];
  const test: number[] = [];
  for (const rows of byClass(y, classes)) {
    shuffle(rows, rng);
    const nTrain = Math.round(rows.length * trainSize);
    train.push(...rows.slice(0, nTrain));
    test.push(...rows.slice(nTrain));
  }
  const asc = (a: number, b: number) => a - b;
  return { train: Uint32Array.from(train.sort(asc)), test: Uint32Array.from(test.sort(asc)) };
}

/**
 * Fold number (0..k-1) of each position of `rows`: every class dealt round-robin over the folds
 * after a shuffle, so fold sizes differ by at most one and each fold has each class's share.
 */
export function stratifiedFolds(
  y: Int32Array,
  classes: number,
  rows: Uint32Array,
  k: number,
  rng: Rng,
): Int32Array {
  const position = new Map<number, number>();
  rows.forEach((r, i) => position.set(r, i));
  const fold = new Int32Array(rows.length);
  let t = 0;
  for (const members of byClass(y, classes, rows)) {
    for (const r of shuffle(members, rng)) fold[position.get(r)!] = t++ % k;
  }
  return fold;
}

/**
 * An InvalidParamError (folds) unless every class has at least `folds` rows in the training split (stratified k-fold needs
 * one per fold) and the hold-out has a row, because otherwise the comparison cannot be made.
 */
export function checkFoldable(
  y: Int32Array,
  classNames: string[],
  split: HoldOut,
  folds: number,
  trainSize: number,
): void {
  const counts = byClass(y, classNames.length, split.train).map((r) => r.length);
  const smallest = Math.min(...counts);
  if (smallest < folds || split.test.length === 0) {
    const cls = classNames[counts.indexOf(smallest)];
    throw new ParamMismatchError(
      `too few rows for ${folds}-fold cross-validation: class '${cls}' has ${smallest} rows in the ` +
        `${
          Math.round(trainSize * 100)
        } % training split (${split.train.length} rows; ${split.test.length} held ` +
        `out), and every class needs at least ${folds}; use fewer folds or a larger dataset`,
      ["folds"],
    );
  }
}
