/** The long OpenAPI descriptions of the mitigation operations (spec 2; the methods of docs/spatial-fairness.md). */
import { SOLVER_STATUS } from "../../core/spatial/mitigate/status.ts";

/** The solver status codes, as the OpenAPI descriptions list them. */
export const statusTable = Object.entries(SOLVER_STATUS).map(([k, v]) => `${k} = ${v}`).join("; ");

/** What the relabel and threshold descriptions share: statuses, work_limit, the methods. */
const METHOD_NOTES =
  `Solver status codes (solver_status_code, solver_status_message): ${statusTable}. Every ` +
  "status answers 200; only 0 and 1 come with flips (1: the best solution found when the limit stopped the " +
  "search, applied, with a proven lower bound in `bound` for the exact method). 3 cannot come from a " +
  "request: the rate window always contains the current number of positives and zero flips are always " +
  "within the budget, so a solver never meets an infeasible model. work_limit is seconds of wall-clock " +
  "solver time: HiGHS's time_limit for approx, the deadline of the exact search. " +
  "approx=true (PROMIS-Approx): the PROMIS LP on HiGHS, real δ with newP integer. approx=false " +
  "(PROMIS-Exact, integer flips): with disjoint regions a branch and bound over newP whose every fixed " +
  "newP is solved exactly (greedy over marginal gains), which proves optimality unless the limit stops it; " +
  "with overlapping regions a depth-first branch and bound over groups of interchangeable individuals, " +
  "which proves optimality only on small instances and otherwise answers status 1 with the best found " +
  "and the root node's bound. Beyond 24 such groups, half of work_limit first goes to the approx LP, " +
  "whose rounded solution seeds that search. Individuals in no region: with disjoint regions they never " +
  "flip (the model has one δ per region, newP = P + Σ δ_i); with overlapping regions every " +
  "individual has its own δ_j, so they can. They count in N and P either way.";

/** The relabel-specific part: from δ to flips. */
const ROUNDING =
  "From δ to flips: disjoint regions round each region's δ half to even, overlapping regions " +
  "each individual's δ_j likewise; that fixes how many members of each group of interchangeable " +
  "individuals (same regions, same prediction) flip, and `flip_order` then chooses which: the least " +
  'certain by y_pred_prob ("uncertainty", the default when every individual has one), a seeded random ' +
  'choice ("random") or the first in collection order ("index", the default otherwise). ' +
  "When that rounding would exceed the flip budget or leave the rate window (possible with the LP's real " +
  "δ), the values are instead truncated toward zero and the missing units handed out one at a time to the " +
  "largest fractional remainders (on ties the lowest region, or with overlapping regions the group whose " +
  "first member comes first) while the budget allows, so n_flips ≤ " +
  "flip_budget and the new positives stay in new_positives_window always. Exact solutions are integers " +
  "and apply as they are. The answer lists every individual's final prediction in `mitigated_preds` " +
  "(flipped or not) and the flips of each region in `n_flips_per_region`.";

/** `POST .../mitigate/relabel`. */
export const RELABEL_DESCRIPTION = `${METHOD_NOTES} ${ROUNDING}`;

/** `POST .../mitigate/threshold`. */
export const THRESHOLD_DESCRIPTION =
  `Splits the individuals (train_ratio, stratified on y_true when present, else y_pred; ` +
  `random_state), fits per-region thresholds on the train part and predicts the test part; audits and ` +
  `metrics are of the test part. The fit uses the solver's δ per region: real for approx=true, the ` +
  `exact integer optimum for approx=false (no rounding either way: the thresholds take fractions). ` +
  `There is no flip_order: a threshold moves the least certain first by construction (to 1, the highest ` +
  `y_pred_prob below it first). mitigated_preds lists every test individual's final prediction. ` +
  METHOD_NOTES;

/** `POST .../mitigate/writeback`. */
export const WRITEBACK_DESCRIPTION =
  "Sets `new_field` = `y_pred` on each listed document (by `doc_id`), in batches; or, given `run_id` " +
  "instead of `preds` (exactly one of the two, else 422 naming the field), on every document a kept " +
  "relabel or threshold run judged, each to its final prediction, flipped or not. A `run_id` is refused " +
  "with 409, saying why, when the run belongs to another task or collection, is an audit (it has no " +
  "predictions), or was computed on rows imported again, replaced or appended to since (writing a field " +
  "is no such change); an unknown or removed run (a task keeps its last 20) is a 404. Running it " +
  "twice changes nothing the second time (`modified` = 0), and one interrupted may be run again. The " +
  "task document records when, by whom, under which field, with which counts and `run_id` " +
  "(`last_writeback`, `writebacks`, and every field written in " +
  "`writeback_fields`). `new_field` may not be `_id`, a mapping key's default name (lat, lon, y_true, " +
  "y_pred, region_ids, y_pred_prob), a field any mapping recorded on the task names (a mitigation " +
  "records every field it read, defaults included; a run's own mapping counts too), or a field any " +
  "document to be written already holds unless an earlier write-back of this task created it: 422 " +
  "otherwise, naming the field and such a document, so data fields are never overwritten.";
