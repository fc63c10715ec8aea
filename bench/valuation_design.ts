/**
 * Writes a prepared feature-importance design as JSON (features after Tessera's preparation, classes,
 * hold-out split, folds), so that `valuation_reference.py` trains scikit-learn and LightGBM on exactly
 * the rows and folds Tessera uses:
 *
 *   deno run -A bench/valuation_design.ts demo  /tmp/demo_design.json    # customer_churn, seed 0
 *   deno run -A bench/valuation_design.ts bench /tmp/bench_design.json   # 100,000 × 20, seed 0
 */
import { tabularDemo } from "../core/demo/datasets.ts";
import { frameOf } from "../core/stats/frame.ts";
import { type Design, prepare } from "../core/learn/prepare.ts";
import { stratifiedFolds, stratifiedSplit } from "../core/learn/folds.ts";
import { Rng } from "../core/random.ts";
import { importanceTable } from "./valuation_data.ts";

/** The design of the 100,000-row benchmark table (no gaps or text: the split and folds are all there is). */
export function benchDesign(n = 100_000, seed = 0, folds = 10): Design {
  const { names, columns, y } = importanceTable(n);
  const rng = new Rng(seed);
  const split = stratifiedSplit(y, 2, 0.7, rng);
  const fold = stratifiedFolds(y, 2, split.train, folds, rng);
  return { featureNames: names, columns, classNames: ["0", "1"], y, split, fold, dropped: [] };
}

/** The design of the demo churn table as the endpoint prepares it with seed 0. */
export function demoDesign(): Design {
  return prepare(frameOf([...tabularDemo()]), { trainSize: 0.7, folds: 10, seed: 0, maxCategories: 25 });
}

if (import.meta.main) {
  const [which, path] = Deno.args;
  const d = which === "bench" ? benchDesign() : demoDesign();
  Deno.writeTextFileSync(
    path,
    JSON.stringify({
      names: d.featureNames,
      X: d.columns.map((c) => [...c]),
      y: [...d.y],
      train: [...d.split.train],
      test: [...d.split.test],
      fold: [...d.fold],
    }),
  );
}
