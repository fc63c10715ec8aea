/**
 * The seeded train/test split of threshold mitigation (`train_ratio`, `stratified`, `random_state`).
 * Each stratum (or, unstratified, everyone) is shuffled by Fisher–Yates with core/random.ts's Rng and
 * its first round(count·train_ratio) positions go to training, so a stratum keeps its share in both
 * parts up to one individual, and the same seed gives the same split on every platform. Typed arrays
 * throughout, so a split of a million individuals stays cheap.
 */
import { ParamMismatchError } from "../../errors.ts";
import { Rng } from "../../random.ts";

/** Positions (ascending) of the two parts. */
export interface TrainTest {
  train: Int32Array;
  test: Int32Array;
}

/**
 * Asserts a ratio in (0, 1) and a seed that is an integer in 0 .. 2^32-1: the request schema checks both
 * (train_ratio, random_state), so another value here is a caller's bug.
 */
export function assertSplitParams(trainRatio: number, seed: number): void {
  if (!(trainRatio > 0 && trainRatio < 1)) {
    throw new RangeError(`train_ratio ${trainRatio}: strictly in (0, 1)`);
  }
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new RangeError(`random_state ${seed}: an integer in 0 .. 4294967295`);
  }
}

/**
 * Splits positions 0..n-1; with `strata` (0/1 per position: y_true when present, else y_pred) each
 * class is split on its own. An InvalidParamError (train_ratio) when either part would be empty.
 */
export function trainTestSplit(
  n: number,
  trainRatio: number,
  strata: Uint8Array | null,
  seed: number,
): TrainTest {
  assertSplitParams(trainRatio, seed);
  const rng = new Rng(seed), isTrain = new Uint8Array(n);
  const groups = strata
    ? [0, 1].map((c) => positionsOf(strata, c))
    : [Int32Array.from({ length: n }, (_, i) => i)];
  let nTrain = 0;
  for (const g of groups) {
    for (let i = g.length - 1; i > 0; i--) {
      const j = rng.int(i + 1), v = g[i];
      (g[i] = g[j], g[j] = v);
    }
    const k = Math.round(g.length * trainRatio);
    for (let t = 0; t < k; t++) isTrain[g[t]] = 1;
    nTrain += k;
  }
  if (nTrain === 0 || nTrain === n) {
    throw new ParamMismatchError(
      `train_ratio ${trainRatio} of ${n} individuals leaves the ${
        nTrain === 0 ? "training" : "test"
      } part empty`,
      ["train_ratio"],
    );
  }
  const train = new Int32Array(nTrain), test = new Int32Array(n - nTrain);
  for (let i = 0, a = 0, b = 0; i < n; i++) isTrain[i] ? (train[a++] = i) : (test[b++] = i);
  return { train, test };
}

function positionsOf(strata: Uint8Array, c: number): Int32Array {
  let k = 0;
  for (let i = 0; i < strata.length; i++) if (strata[i] === c) k++;
  const out = new Int32Array(k);
  for (let i = 0, t = 0; i < strata.length; i++) if (strata[i] === c) out[t++] = i;
  return out;
}
