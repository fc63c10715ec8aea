/**
 * The two mitigations of spec 2 (`mitigate/relabel`, `mitigate/threshold`) as one use case each:
 * mitigate in a worker while the audit before it and its maps run beside the solver, audit again over the
 * same regions with the before-audit's colour cap, draw the maps, keep the run (written a part at a time as
 * the parts come), note the mitigation on the task document, and answer with both audits and the flips.
 * Each runs as a live run (live_mitigation.ts): listed with its progress from its start, and cancellable.
 */
import { auditCap } from "../../core/spatial/maps/map_value.ts";
import type { Mapping } from "../../core/spatial/mapping.ts";
import type { ClassificationMetrics } from "../../core/spatial/mitigate/metrics.ts";
import type { RegionThreshold } from "../../core/spatial/mitigate/region_thresholds.ts";
import type { FlipOrder } from "../../core/spatial/mitigate/flips.ts";
import { DataMismatchError } from "../../core/errors.ts";
import type { MitigationOutcome } from "../../core/spatial/mitigate/outcome.ts";
import type { RelabelInput } from "../../core/spatial/mitigate/relabel.ts";
import type { SolverStatusCode } from "../../core/spatial/mitigate/status.ts";
import type { ThresholdFit, ThresholdInput } from "../../core/spatial/mitigate/threshold_mitigation.ts";
import type { TrainTest } from "../../core/spatial/mitigate/train_test_split.ts";
import { typedBytes } from "../datasets/prepared.ts";
import { scopeOf } from "../../core/spatial/load.ts";
import { gather, subsetIndividuals } from "../../core/spatial/subset.ts";
import { beside, nextTurn } from "../../core/turns.ts";
import type { Individuals, Regions } from "../../core/spatial/types.ts";
import type { WorkerPool } from "../../workers/pool.ts";
import { regionsOfEveryone, type SpatialAuditReply } from "../../workers/spatial.ts";
import {
  mitigateRelabel,
  mitigateThreshold,
  thresholdFitOf,
  thresholdParts,
} from "../../workers/mitigate.ts";
import {
  auditMaps,
  auditOf,
  type AuditPayload,
  auditPayload,
  type AuditSettings,
  type MapSettings,
  mapsPayload,
  preparedAudit,
  preparedWorlds,
  regionsPart,
  type Scoped,
  scopedBytes,
  type SpatialDeps,
  taskIndividuals,
  withHulls,
} from "../spatial/audit.ts";
import { PhaseClock, type Phases } from "../spatial/phases.ts";
import type { RunAnswer, RunWriter } from "../spatial/runs.ts";
import { PredictionLines } from "./prediction_lines.ts";
import {
  describeRun,
  keepMitigation,
  liveMitigation,
  type Mitigation,
  type MitigationTarget,
} from "./live_mitigation.ts";

export type { MitigationTarget };

/**
 * The settings of a relabel request: the audit's, the solver's under core's names, and flip_order
 * (undefined: "uncertainty" when every individual has a probability, else "index").
 */
export type RelabelSettings = AuditSettings & SolverSettings & { flipOrder?: FlipOrder };

/** The solver's knobs, as both of core's mitigations take them. */
type SolverSettings = Pick<RelabelInput, "approx" | "budget" | "prTol" | "workLimitSeconds">;

/** The solver's knobs of a relabel or threshold request. */
function solverSettings(s: SolverSettings): SolverSettings {
  return { approx: s.approx, budget: s.budget, prTol: s.prTol, workLimitSeconds: s.workLimitSeconds };
}

/** The settings of a threshold request: relabel's, and the split and boundary of the fit. */
export type ThresholdSettings =
  & RelabelSettings
  & Pick<ThresholdInput, "defaultBoundary" | "trainRatio" | "stratified" | "randomState">;

/** What relabels of one frontier share: the before-audit the first computes (frontier.ts). */
export interface SharedBefore {
  before?: Promise<{ regions: Regions; settings: Omit<MapSettings, "title">; payload: AuditPayload }>;
}

/** The answer of `mitigate/relabel`, and the part `mitigate/threshold` shares. */
export interface MitigationAnswer {
  metrics_before: ClassificationMetrics | null;
  metrics_after: ClassificationMetrics | null;
  solver_status_code: SolverStatusCode;
  solver_status_message: string;
  solver_detail: string;
  objective: number | null;
  bound: number | null;
  gap: number | null;
  regions_delta: { idx: number; region_id: number; delta: number }[];
  n_flips: number;
  n_flips_per_region: RegionFlipCount[];
  flip_order: FlipOrder | null;
  positive_rate_before: number;
  positive_rate_after: number;
  flip_budget: number;
  new_positives_window: [number, number];
  solver_seconds: number;
  audit_before_mitigation: AuditPayload;
  audit_after_mitigation: AuditPayload;
  mitigated_preds: PredictionLines;
  flips_map_html: string;
  flips_map_image: string;
  phases: Phases;
  elapsed_ms: number;
}

/** The answer of `mitigate/threshold`. */
export interface ThresholdAnswer extends MitigationAnswer {
  threshold_chart_before: string;
  threshold_chart_after: string;
  new_thresholds: (RegionThreshold & { region_id: number })[];
  train_size: number;
  test_size: number;
}

/** One line of `n_flips_per_region`. */
export interface RegionFlipCount {
  idx: number;
  region_id: number;
  n_flips: number;
  n_to_positive: number;
  n_to_negative: number;
}

/**
 * The final predictions of the individuals at `positions` (ascending collection positions; null: every
 * one), as lines of `mitigated_preds`: relabel judges every individual (out of an equal-opportunity scope
 * nobody flips, so they keep y_pred), threshold the test part. Handed to the run's writer at once.
 */
function writtenPredictions(
  writer: RunWriter,
  ind: Individuals,
  positions: ArrayLike<number> | null,
  preds: Uint8Array,
): PredictionLines {
  const lines = new PredictionLines(ind.docIds, positions, preds, ind.yPred);
  writer.writePredictions(lines);
  return lines;
}

/**
 * The flip order of a relabel: the request's, else "uncertainty" when every individual has a
 * probability (the mapped y_pred_prob), else "index"; "uncertainty" without probabilities is a 422.
 */
function flipOrderOf(requested: FlipOrder | undefined, ind: Individuals, mapping: Mapping): FlipOrder {
  if (requested === "uncertainty" && !ind.prob) {
    throw new DataMismatchError(
      `flip_order "uncertainty" needs y_pred_prob for every individual, and field '${mapping.y_pred_prob}' ` +
        `(mapped to y_pred_prob) is missing in some or all documents: map y_pred_prob to a probability ` +
        `field, or choose "index" or "random"`,
      ["body", "flip_order"],
    );
  }
  return requested ?? (ind.prob ? "uncertainty" : "index");
}

/** What every map of a mitigation shares (the colour cap and the regions left out follow the before-audit). */
function sharedMapSettings(deps: SpatialDeps, input: AuditSettings) {
  return {
    full: input.fullDistribution,
    seed: input.seed,
    equalOpp: input.equalOpp,
    tileUrl: deps.config.MAP_TILE_URL,
  };
}

/** The flips map: flipped individuals coloured by their new prediction over the after-audit's regions. */
function flipsMaps(
  pool: WorkerPool,
  ind: Individuals,
  after: SpatialAuditReply,
  flipped: Int32Array,
  preds: Uint8Array,
  opts: MapSettings,
) {
  return pool.run("maps.flips", mapsPayload(ind, after, flipped, preds, opts));
}

/**
 * Maps of the answer handed to the run's writer as they come (at `prefix` in the answer), so that what
 * `keep` still writes after the last map is little: written one at a time while the others are drawn, the
 * after-maps no longer wait for the last of them (keep: 0.3 s → ~0.15 s at 206k).
 */
async function written<T extends object>(maps: Promise<T>, writer: RunWriter, prefix = ""): Promise<T> {
  const drawn = await maps;
  writer.writeMaps(drawn, prefix);
  return drawn;
}

/** The fields relabel and threshold answers share, from the solver's result. */
function solverFields(r: MitigationOutcome, regions: Regions) {
  return {
    metrics_before: r.metricsBefore,
    metrics_after: r.metricsAfter,
    solver_status_code: r.status.code,
    solver_status_message: r.status.message,
    solver_detail: r.status.detail,
    objective: r.objective,
    bound: r.bound,
    gap: r.gap,
    regions_delta: Array.from(r.regionsDelta, (delta, idx) => ({ idx, region_id: regions.ids[idx], delta })),
    n_flips: r.nFlips,
    n_flips_per_region: Array.from(r.regionFlips.toPositive, (up, idx) => {
      const down = r.regionFlips.toNegative[idx];
      return { idx, region_id: regions.ids[idx], n_flips: up + down, n_to_positive: up, n_to_negative: down };
    }),
    positive_rate_before: r.positiveRateBefore,
    positive_rate_after: r.positiveRateAfter,
    flip_budget: r.flipBudget,
    new_positives_window: r.newPositivesWindow,
    solver_seconds: r.seconds.solve,
  };
}

/**
 * Flips predictions where the audit finds bias (PROMIS), then shows the reviewer both audits. The
 * before-audit and its maps need no solution, so they run beside the solver (which holds one worker).
 */
export function mitigateByRelabel(
  deps: SpatialDeps,
  input: MitigationTarget & RelabelSettings & { shared?: SharedBefore },
): Promise<RunAnswer<MitigationAnswer>> {
  const t0 = performance.now();
  return liveMitigation(deps, input, "relabel", (m) => relabelRun(m, deps, input, t0));
}

/** The work of mitigateByRelabel as run `m` (whose deps end their pool tasks when it is cancelled). */
async function relabelRun(
  m: Mitigation,
  unsignalled: SpatialDeps,
  input: MitigationTarget & RelabelSettings & { shared?: SharedBefore },
  t0: number,
): Promise<RunAnswer<MitigationAnswer>> {
  const { deps, writer, live } = m, clock = new PhaseClock();
  const { pool } = deps, name = input.collectionName;
  // the columns may be a read other requests share (keptOrBuilt): a cancel of this run does not end it
  const data = await taskIndividuals(unsignalled, input, { prob: false }, clock);
  describeRun(m, data);
  const { ind, mapping } = data;
  const flipOrder = flipOrderOf(input.flipOrder, ind, mapping);
  const prepared = await preparedAudit(deps, data, input, clock);
  // both audits draw their worlds over the prepared regions: the after-audit finds them drawn when the
  // flips keep the number of positives (pr_constr 0, or no flip)
  const worlds = preparedWorlds(deps, data, input);
  const common = sharedMapSettings(deps, input);
  // the run is written as its parts come: the before-audit's maps during the solver, the predictions
  // during the after-audit
  const auditBefore = async () => {
    const audited = await auditOf(pool, ind, input, clock, { prepared, plan: prepared.plan, worlds });
    return await clock.time("maps", async () => {
      // the regions the before-audit's map draws are drawn in every map, so before and after compare
      const { regions, capped } = await withHulls(
        deps,
        data,
        regionsPart(data, input),
        prepared,
        audited.audit,
      );
      // the before-audit's colour cap and regions left out hold for every map of the request
      const settings = { ...common, cap: auditCap(audited.audit), capped };
      const title = `Before mitigation: ${name}`;
      const maps = await auditMaps(pool, ind, { ...audited, regions }, ind.yPred, { ...settings, title });
      return { regions, settings, payload: auditPayload(audited, maps) };
    });
  };
  const beforeWork = async () => {
    // the points of a frontier (frontier.ts) share the first one's before-audit: same data and settings
    const before = await (input.shared ? (input.shared.before ??= auditBefore()) : auditBefore());
    writer.writeMaps(before.payload, "audit_before_mitigation.");
    return before;
  };
  live.phase("solving");
  const [{ regions, settings, payload }, r] = await beside(
    beforeWork,
    () =>
      clock.time("solve", () =>
        mitigateRelabel(pool, {
          yPred: ind.yPred,
          yTrue: ind.yTrue,
          scope: prepared.scope,
          regions: prepared.regions,
          ...solverSettings(input),
          flipOrder,
          prob: flipOrder === "uncertainty" ? ind.prob : null,
          seed: input.seed,
          plan: prepared.plan,
        }, live.solver)),
  );
  live.solved(r.objective, r.bound);
  live.phase("auditing after");
  const preds = writtenPredictions(writer, ind, null, r.mitigatedPreds);
  await nextTurn(); // the predictions' chunks are made in this turn; the audit after is posted in the next
  const afterAudit = await auditOf(pool, ind, input, clock, {
    yPred: r.mitigatedPreds,
    prepared,
    basePlan: prepared.plan,
    worlds,
  });
  const after = { ...afterAudit, regions };
  const [mapsAfter, flips] = await clock.time("maps", () =>
    Promise.all([
      written(
        auditMaps(pool, ind, after, r.mitigatedPreds, { ...settings, title: `After relabeling: ${name}` }),
        writer,
        "audit_after_mitigation.",
      ),
      written(
        flipsMaps(pool, ind, after, r.flipped, r.mitigatedPreds, { ...settings, title: `Flips: ${name}` }),
        writer,
      ),
    ]));
  return await keepMitigation(m, input, { kind: "relabel", mapping }, {
    ...solverFields(r, prepared.regions),
    audit_before_mitigation: payload,
    audit_after_mitigation: auditPayload(afterAudit, mapsAfter),
    mitigated_preds: preds,
    flip_order: r.flipOrder,
    ...flips,
    phases: clock.phases,
    elapsed_ms: Math.round(performance.now() - t0),
  });
}

/**
 * Fits per-region decision thresholds on y_pred_prob over a training part and applies them to the test
 * part, whose audits before and after the reviewer sees. The regions of the fit, over every individual,
 * are kept with the prepared dataset (those of an audit without equal_opp: regionsPart), and so are the
 * split and its training part's fit, per split. The split comes first, so the test part's before-audit, its
 * maps and its chart before run beside the fit and the solver.
 */
export function mitigateByThreshold(
  deps: SpatialDeps,
  input: MitigationTarget & ThresholdSettings,
): Promise<RunAnswer<ThresholdAnswer>> {
  const t0 = performance.now();
  return liveMitigation(deps, input, "threshold", (m) => thresholdRun(m, deps, input, t0));
}

/** The work of mitigateByThreshold as run `m` (see relabelRun). */
async function thresholdRun(
  m: Mitigation,
  unsignalled: SpatialDeps,
  input: MitigationTarget & ThresholdSettings,
  t0: number,
): Promise<RunAnswer<ThresholdAnswer>> {
  const { deps, writer, live } = m, clock = new PhaseClock();
  const { pool } = deps, name = input.collectionName;
  const data = await taskIndividuals(unsignalled, input, { prob: true }, clock);
  describeRun(m, data);
  const { ind, mapping } = data;
  const part = regionsPart(data, input, "everyone");
  // the split and the training part's fit, kept with the prepared dataset for the next request of this split
  const fitPart =
    `${part}|fit|${input.trainRatio}|${input.stratified}|${input.randomState}|${input.equalOpp}`;
  const keptFit = deps.prepared?.peek<{ split: TrainTest; fit: ThresholdFit }>(data.dataset, fitPart);
  // the test part's audits over the same regions: the after-audit finds its worlds drawn when the
  // thresholds keep the number of positives (no solution, or thresholds that balance), as does the
  // before-audit of the next request of this split
  const worlds = preparedWorlds(deps, data, input, `${fitPart}|test`);
  // the split beside the regions of every individual (kept with the prepared dataset): two workers at once
  const [split, everyone] = await clock.time("prepare", () =>
    beside(
      async () =>
        keptFit?.split ?? await thresholdParts(pool, {
          yPred: ind.yPred,
          yTrue: ind.yTrue,
          trainRatio: input.trainRatio,
          stratified: input.stratified,
          randomState: input.randomState,
        }),
      async () => {
        const kept = deps.prepared?.peek<Scoped>(data.dataset, part);
        if (kept) return kept;
        const built = await regionsOfEveryone(pool, ind, input.polygons);
        deps.prepared?.put(data.dataset, part, { value: built, bytes: scopedBytes(built) });
        return built;
      },
    ));
  const regions = everyone.regions;
  // the audits are of the test part, over the same regions as the fit (their region lists are not needed,
  // nor their document ids: the lines of mitigated_preds read the collection's)
  const test = subsetIndividuals({ ...ind, regionIds: null, docIds: [] }, split.test);
  const common = sharedMapSettings(deps, input);
  // the run is written as its parts come (see mitigateByRelabel)
  const chartSettings = { defaultBoundary: input.defaultBoundary, equalOpp: input.equalOpp };
  const beforeWork = async () => {
    const scope = scopeOf(test, input.equalOpp);
    const prepared = await clock.time("prepare", async () => ({
      scope,
      regions: await pool.run("spatial.restrict", {
        regions,
        positions: gather(split.test, scope)!,
        n: ind.n,
      }),
    }));
    const before = await auditOf(pool, test, input, clock, { prepared, worlds });
    return await clock.time("maps", async () => {
      // display polygons: hulls of the fit's regions (every individual), kept with them, for the regions
      // the test part's before-audit draws
      const { regions: drawn, capped } = await withHulls(deps, data, part, everyone, before.audit);
      const settings = { ...common, cap: auditCap(before.audit), capped };
      const shown = (a: SpatialAuditReply) => ({ ...a, regions: { ...a.regions, polygons: drawn.polygons } });
      const title = `Test part before: ${name}`;
      const [maps, chartBefore] = await Promise.all([
        auditMaps(pool, test, shown(before), test.yPred, { ...settings, title }),
        // the chart before needs no solution either: t0 everywhere
        pool.run("maps.threshold_chart", {
          ...chartSettings,
          before: before.audit,
          thresholds: null,
          after: null,
        }),
      ]);
      const payload = auditPayload(before, maps);
      writer.writeMaps(payload, "audit_before_mitigation.");
      writer.writeMaps({ threshold_chart_before: chartBefore }, "");
      return { prepared, before, shown, settings, payload, chartBefore };
    });
  };
  live.phase("solving");
  const [{ prepared, before, shown, settings, payload, chartBefore }, r] = await beside(
    beforeWork,
    async () => {
      // the fit then the solver, on one worker, while the before-audit takes the other
      const fit = keptFit?.fit ?? await clock.time("prepare", async () => {
        const fitInput = {
          yTrue: ind.yTrue,
          regions,
          equalOpp: input.equalOpp,
          train: split.train,
          n: ind.n,
        };
        const built = await thresholdFitOf(pool, fitInput);
        const bytes = typedBytes(built) + typedBytes(split);
        deps.prepared?.put(data.dataset, fitPart, { value: { split, fit: built }, bytes });
        return built;
      });
      return await clock.time("solve", () =>
        mitigateThreshold(pool, {
          yPred: ind.yPred,
          yTrue: ind.yTrue,
          prob: ind.prob!,
          regions,
          equalOpp: input.equalOpp,
          ...solverSettings(input),
          defaultBoundary: input.defaultBoundary,
          trainRatio: input.trainRatio,
          stratified: input.stratified,
          randomState: input.randomState,
          split,
          fit,
        }, live.solver));
    },
  );
  live.solved(r.objective, r.bound);
  live.phase("auditing after");
  const testPreds = gather(r.mitigatedPreds, r.test)!;
  const preds = writtenPredictions(writer, ind, r.test, r.mitigatedPreds);
  await nextTurn(); // as in relabel: the audit after is posted in a turn of its own
  const after = await auditOf(pool, test, input, clock, {
    prepared,
    yPred: testPreds,
    basePlan: before.plan,
    worlds,
  });
  const [mapsAfter, flips, chartAfter] = await clock.time("maps", () =>
    Promise.all([
      written(
        auditMaps(pool, test, shown(after), testPreds, {
          ...settings,
          title: `Test part after thresholds: ${name}`,
        }),
        writer,
        "audit_after_mitigation.",
      ),
      written(
        flipsMaps(pool, ind, shown(after), r.flipped, r.mitigatedPreds, {
          ...settings,
          title: `Flips: ${name}`,
        }),
        writer,
      ),
      pool.run("maps.threshold_chart", {
        ...chartSettings,
        before: before.audit,
        thresholds: r.newThresholds.map((t) => t.threshold),
        after: after.audit,
      }).then((chart) => (writer.writeMaps({ threshold_chart_after: chart }, ""), chart)),
    ]));
  return await keepMitigation(m, input, { kind: "threshold", mapping }, {
    ...solverFields(r, regions),
    audit_before_mitigation: payload,
    audit_after_mitigation: auditPayload(after, mapsAfter),
    mitigated_preds: preds,
    flip_order: null,
    ...flips,
    threshold_chart_before: chartBefore,
    threshold_chart_after: chartAfter,
    new_thresholds: r.newThresholds.map((t) => ({ ...t, region_id: regions.ids[t.idx] })),
    train_size: r.train.length,
    test_size: r.test.length,
    phases: clock.phases,
    elapsed_ms: Math.round(performance.now() - t0),
  });
}
