/**
 * From a dataset to what the models learn from, as the reference prepared it: the target (default
 * the last column) as class numbers, rows without a target left out, a stratified training split,
 * numeric gaps filled with the training mean, text columns one-hot encoded with gaps filled by the
 * training mode. Identifier-like text (nearly every value distinct) is left out: one-hot encoding a
 * customer id makes thousands of columns that can only memorise rows.
 */
import { ParamMismatchError, UnknownParamError } from "../errors.ts";
import { Rng } from "../random.ts";
import type { Column, Frame } from "../stats/frame.ts";
import { checkFoldable, type HoldOut, stratifiedFolds, stratifiedSplit } from "./folds.ts";

export interface PrepareOptions {
  /** Target column; default the last column of the dataset. */
  target?: string;
  trainSize: number;
  folds: number;
  seed: number;
  /** Text columns with more levels keep the most frequent ones and an `_other` column. */
  maxCategories: number;
}

/** More distinct target values than this is a continuous quantity, not classes: an InvalidParamError. */
export const MAX_CLASSES = 100;

/** Features (imputed), classes and the split of the rows that have a target. */
export interface Design {
  featureNames: string[];
  /** One column per feature over the kept rows. */
  columns: Float64Array[];
  classNames: string[];
  y: Int32Array;
  split: HoldOut;
  /** Fold of each training row (by position in `split.train`). */
  fold: Int32Array;
  /** Columns left out and why, for the logs and the API description. */
  dropped: { column: string; reason: string }[];
}

interface Target {
  y: Int32Array;
  classNames: string[];
  /** Rows of the frame that have a target, ascending. */
  rows: Uint32Array;
}

function readTarget(frame: Frame, name: string): Target {
  const col = frame.columns.find((c) => c.name === name)!;
  const keys: (number | string)[] = [];
  const rows: number[] = [];
  for (let r = 0; r < frame.rows; r++) {
    if (col.kind === "numeric" && col.values[r] === col.values[r]) keys.push(col.values[r]);
    else if (col.kind === "text" && col.codes[r] >= 0) keys.push(col.levels[col.codes[r]]);
    else continue;
    rows.push(r);
  }
  const distinct = [...new Set(keys)].sort((a, b) =>
    typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b))
  );
  const index = new Map(distinct.map((k, i) => [k, i]));
  const param = ["target"];
  const label = (k: number | string) => (col.kind === "numeric" && col.boolean ? String(k === 1) : String(k));
  if (distinct.length < 2) {
    throw new ParamMismatchError(
      `target '${name}' has ${distinct.length ? `only one class (${label(distinct[0])})` : "no values"}; ` +
        "feature importance needs at least two classes",
      param,
    );
  }
  if (distinct.length > MAX_CLASSES) {
    throw new ParamMismatchError(
      `target '${name}' has ${distinct.length} distinct values, more than the ${MAX_CLASSES} classes a ` +
        "classifier is compared on; is it a continuous quantity?",
      param,
    );
  }
  return {
    y: Int32Array.from(keys, (k) => index.get(k)!),
    classNames: distinct.map(label),
    rows: Uint32Array.from(rows),
  };
}

/** The target column: the named one, else the last column of the dataset. */
export function targetName(frame: Frame, asked: string | undefined): string {
  const names = frame.columns.map((c) => c.name);
  if (asked === undefined) {
    if (!names.length) throw new ParamMismatchError("the dataset has no columns", ["target"]);
    return names[names.length - 1];
  }
  const col = frame.columns.find((c) => c.name === asked);
  if (!col) {
    throw new UnknownParamError(`target '${asked}' is not a column of the dataset (${names.join(", ")})`, [
      "target",
    ]);
  }
  if (col.kind === "other") {
    throw new ParamMismatchError(`target '${asked}' holds no usable values (arrays, objects or only nulls)`, [
      "target",
    ]);
  }
  return asked;
}

/** Mean of a numeric column over the training rows that have a value (NaN when none has). */
function trainMean(values: Float64Array, rows: Uint32Array, train: Uint32Array): number {
  let s = 0;
  let n = 0;
  for (const t of train) {
    const v = values[rows[t]];
    if (v === v) {
      s += v;
      n++;
    }
  }
  return n ? s / n : NaN;
}

/** One-hot columns of a text column (gaps get the training mode), or why it is left out. */
function oneHot(
  col: Column & { kind: "text" },
  rows: Uint32Array,
  train: Uint32Array,
  maxCategories: number,
): { names: string[]; columns: Float64Array[] } | string {
  const counts = new Float64Array(col.levels.length);
  const trainCounts = new Float64Array(col.levels.length);
  let present = 0;
  for (const r of rows) if (col.codes[r] >= 0) counts[col.codes[r]]++, present++;
  for (const t of train) if (col.codes[rows[t]] >= 0) trainCounts[col.codes[rows[t]]]++;
  const distinct = counts.filter((c) => c > 0).length;
  if (distinct > maxCategories && distinct > present / 2) {
    return `identifier-like text: ${distinct} distinct values in ${present} rows`;
  }
  // Levels by training frequency (first-seen order breaks ties); the first one is the mode.
  const byFreq = [...col.levels.keys()].filter((l) => counts[l] > 0)
    .sort((a, b) => trainCounts[b] - trainCounts[a] || a - b);
  const kept = distinct > maxCategories ? byFreq.slice(0, maxCategories - 1) : byFreq;
  const slot = new Int32Array(col.levels.length).fill(kept.length); // the `_other` column
  kept.forEach((l, i) => (slot[l] = i));
  const mode = byFreq[0];
  const names = kept.map((l) => `${col.name}_${col.levels[l]}`);
  if (distinct > maxCategories) names.push(`${col.name}_other`);
  const columns = names.map(() => new Float64Array(rows.length));
  rows.forEach((r, i) => {
    const code = col.codes[r] >= 0 ? col.codes[r] : mode;
    columns[slot[code]][i] = 1;
  });
  return { names, columns };
}

/**
 * The design of a comparison: target, split, folds and imputed features. InvalidParamErrors name what is wrong
 * with the data: no such target, fewer than two classes, too few rows for the folds.
 */
export function prepare(frame: Frame, opts: PrepareOptions): Design {
  const target = targetName(frame, opts.target);
  const { y, classNames, rows } = readTarget(frame, target);
  const rng = new Rng(opts.seed);
  const split = stratifiedSplit(y, classNames.length, opts.trainSize, rng);
  checkFoldable(y, classNames, split, opts.folds, opts.trainSize);
  const fold = stratifiedFolds(y, classNames.length, split.train, opts.folds, rng);

  const featureNames: string[] = [];
  const columns: Float64Array[] = [];
  const dropped: Design["dropped"] = [];
  for (const col of frame.columns) {
    if (col.name === target) continue;
    if (col.kind === "other") {
      dropped.push({ column: col.name, reason: "no usable values (arrays, objects or only nulls)" });
    } else if (col.kind === "numeric") {
      const mean = trainMean(col.values, rows, split.train);
      if (mean !== mean) {
        dropped.push({ column: col.name, reason: "no value in the training split" });
        continue;
      }
      featureNames.push(col.name);
      columns.push(Float64Array.from(rows, (r) => (col.values[r] === col.values[r] ? col.values[r] : mean)));
    } else {
      const enc = oneHot(col, rows, split.train, opts.maxCategories);
      if (typeof enc === "string") dropped.push({ column: col.name, reason: enc });
      else featureNames.push(...enc.names), columns.push(...enc.columns);
    }
  }
  if (!columns.length) {
    throw new ParamMismatchError(`the dataset has no usable feature besides the target '${target}'`, [
      "target",
    ]);
  }
  return { featureNames, columns, classNames, y, split, fold, dropped };
}
