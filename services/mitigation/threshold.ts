/**
 * The threshold mitigation of spec 2 (`mitigate/threshold`): per-region thresholds fitted on a training
 * part in a worker, the test part audited before and after, its maps and charts drawn and kept with the run as
 * they come, like relabel (relabel.ts). It runs as a live run (live_mitigation.ts): listed with its progress
 * from its start, and cancellable.
 */
import { auditCap } from "../../core/spatial/maps/map_value.ts";
import type { ThresholdFit } from "../../core/spatial/mitigate/threshold_mitigation.ts";
import type { TrainTest } from "../../core/spatial/mitigate/train_test_split.ts";
import { typedBytes } from "../datasets/prepared.ts";
import { scopeOf } from "../../core/spatial/loaded_columns.ts";
import { gather, subsetIndividuals } from "../../core/spatial/subset.ts";
import type { Individuals } from "../../core/spatial/types.ts";
import { beside, nextTurn } from "../../core/turns.ts";
import { regionsOfEveryone, type SpatialAuditReply } from "../spatial/on_pool.ts";
import { mitigateThreshold, thresholdFitOf, thresholdParts } from "./on_pool.ts";
import { auditMaps } from "../spatial/audit_maps.ts";
import { locateParams } from "../../core/errors.ts";
import {
  auditOf,
  auditPayload,
  preparedWorlds,
  regionsPart,
  type Scoped,
  scopedBytes,
  type SpatialDeps,
  spatialField,
  type TaskData,
  taskIndividuals,
  withHulls,
} from "../spatial/audit.ts";
import { liveOrDetached } from "./detached_mitigation.ts";
import { PhaseClock } from "../spatial/phases.ts";
import type { RunAnswer } from "../spatial/run_chunks.ts";
import {
  describeRun,
  keepMitigation,
  liveMitigation,
  type Mitigation,
  type MitigationTarget,
} from "./live_mitigation.ts";

import { constraintFields, solverInput, type ThresholdSettings } from "./settings.ts";
import { solverFields, type ThresholdAnswer } from "./answers.ts";
import { flipsMaps, sharedMapSettings, written, writtenPredictions } from "./mitigation_steps.ts";

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
  const load = (clock: PhaseClock) => taskIndividuals(deps, input, { prob: true }, clock);
  return locateParams(
    spatialField,
    () => liveMitigation(deps, input, "threshold", (m) => thresholdRun(m, input, t0, load)),
  );
}

/**
 * Fits thresholds on individuals already read (a toolkit request's: services/spatial_bias) with the split
 * `input.split` given (its fit set and its predict set), as a live run of the task `input.collectionName`
 * when `live`, else detached: nothing stored.
 */
export function thresholdIndividuals(
  deps: SpatialDeps,
  input: ThresholdInput & { split: TrainTest },
  data: TaskData,
  live: boolean,
): Promise<RunAnswer<ThresholdAnswer>> {
  const t0 = performance.now(), load = () => Promise.resolve(data);
  const work = (m: Mitigation) => thresholdRun(m, input, t0, load);
  return locateParams(spatialField, () => liveOrDetached(deps, input, "threshold", live, work));
}

/** A threshold request's settings, with the split when the caller gives it. */
type ThresholdInput = MitigationTarget & ThresholdSettings & { split?: TrainTest };

/** What the steps of one threshold run share once the split and every individual's regions are known. */
interface ThresholdParts {
  m: Mitigation;
  input: ThresholdInput;
  data: TaskData;
  clock: PhaseClock;
  /** The prepared dataset's keys: the regions of every individual, and this split's fit. */
  part: string;
  fitPart: string;
  keptFit: KeptFit | undefined;
  worlds: ReturnType<typeof preparedWorlds>;
  split: TrainTest;
  everyone: Scoped;
  /** The test part, audited before and after. */
  test: Individuals;
}

/** The split and the training part's fit, kept with the prepared dataset per split. */
interface KeptFit {
  split: TrainTest;
  fit: ThresholdFit;
}

/** The work of a threshold mitigation as run `m` (see relabelRun); `input.split`: the split given, else made. */
async function thresholdRun(
  m: Mitigation,
  input: ThresholdInput,
  t0: number,
  load: (clock: PhaseClock) => Promise<TaskData>,
): Promise<RunAnswer<ThresholdAnswer>> {
  const clock = new PhaseClock(), data = await load(clock);
  describeRun(m, data);
  const part = regionsPart(data, input, "everyone");
  // the split and the training part's fit, kept with the prepared dataset for the next request of this split
  const splitName = input.split
    ? `given|${input.split.train.length}|${input.split.test.length}`
    : `${input.trainRatio}|${input.stratified}|${input.randomState}`;
  const fitPart = `${part}|fit|${splitName}|${input.equalOpp}`;
  const keptFit = m.deps.prepared?.peek<KeptFit>(data.dataset, fitPart);
  // the test part's audits over the same regions: the after-audit finds its worlds drawn when the
  // thresholds keep the number of positives (no solution, or thresholds that balance), as does the
  // before-audit of the next request of this split
  const worlds = preparedWorlds(m.deps, data, input, `${fitPart}|test`);
  const [split, everyone] = await clock.time("prepare", () => splitAndRegions(m, input, data, part, keptFit));
  // the audits are of the test part, over the same regions as the fit (their region lists are not needed,
  // nor their document ids: the lines of mitigated_preds read the collection's)
  const test = subsetIndividuals({ ...data.ind, regionIds: null, docIds: [] }, split.test);
  const tp: ThresholdParts = { m, input, data, clock, part, fitPart, keptFit, worlds, split, everyone, test };
  m.live.phase("solving");
  // the run is written as its parts come (see mitigateByRelabel)
  const [before, r] = await beside(() => testBefore(tp), () => fitAndSolve(tp));
  m.live.solved(r.objective, r.bound);
  m.live.phase("auditing after");
  return await testAfter(tp, before, r, t0);
}

/**
 * The split (kept, given or made) beside the regions of every individual (kept with the prepared dataset,
 * else built): two workers at once.
 */
function splitAndRegions(
  { deps }: Mitigation,
  input: ThresholdInput,
  data: TaskData,
  part: string,
  keptFit: KeptFit | undefined,
): Promise<[TrainTest, Scoped]> {
  const { ind } = data;
  return beside(
    async () =>
      keptFit?.split ?? input.split ?? await thresholdParts(deps.pool, {
        yPred: ind.yPred,
        yTrue: ind.yTrue,
        trainRatio: input.trainRatio,
        stratified: input.stratified,
        randomState: input.randomState,
      }),
    async () => {
      const kept = deps.prepared?.peek<Scoped>(data.dataset, part);
      if (kept) return kept;
      const built = await regionsOfEveryone(deps.pool, ind, input.polygons);
      deps.prepared?.put(data.dataset, part, { value: built, bytes: scopedBytes(built) });
      return built;
    },
  );
}

/** The test part's chart settings. */
const chartOf = (input: ThresholdInput) => ({
  defaultBoundary: input.defaultBoundary,
  equalOpp: input.equalOpp,
});

/** The test part's audit before, its maps and its chart (no solution needed), written as they come. */
async function testBefore({ m, input, data, clock, part, worlds, split, everyone, test }: ThresholdParts) {
  const { deps, writer } = m, { pool } = deps, { regions } = everyone;
  const scope = scopeOf(test, input.equalOpp);
  const prepared = await clock.time("prepare", async () => ({
    scope,
    regions: await pool.run("spatial.restrict", {
      regions,
      positions: gather(split.test, scope)!,
      n: data.ind.n,
    }),
  }));
  const before = await auditOf(pool, test, input, clock, { prepared, worlds });
  return await clock.time("maps", async () => {
    // display polygons: hulls of the fit's regions (every individual), kept with them, for the regions
    // the test part's before-audit draws
    const { regions: drawn, capped } = await withHulls(deps, data, part, everyone, before.audit);
    const settings = { ...sharedMapSettings(deps, input), cap: auditCap(before.audit), capped };
    const shown = (a: SpatialAuditReply) => ({ ...a, regions: { ...a.regions, polygons: drawn.polygons } });
    const title = `Test part before: ${input.collectionName}`;
    const [maps, chartBefore] = await Promise.all([
      auditMaps(pool, test, shown(before), test.yPred, { ...settings, title }),
      // the chart before needs no solution either: t0 everywhere
      pool.run("maps.threshold_chart", {
        ...chartOf(input),
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
}

/** The training part's fit (kept per split, else built) then the solver, on one worker. */
async function fitAndSolve({ m, input, data, clock, fitPart, keptFit, split, everyone }: ThresholdParts) {
  const { deps } = m, { pool } = deps, { ind } = data, { regions } = everyone;
  const fit = keptFit?.fit ?? await clock.time("prepare", async () => {
    const built = await thresholdFitOf(pool, {
      yTrue: ind.yTrue,
      regions,
      equalOpp: input.equalOpp,
      train: split.train,
      n: ind.n,
    });
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
      ...solverInput(input, regions),
      defaultBoundary: input.defaultBoundary,
      trainRatio: input.trainRatio,
      stratified: input.stratified,
      randomState: input.randomState,
      split,
      fit,
    }, m.live.solver));
}

/** The test part's audit after the thresholds, its maps, the flips and the chart after; then the run kept. */
async function testAfter(
  { m, input, data, clock, worlds, everyone, test }: ThresholdParts,
  { prepared, before, shown, settings, payload, chartBefore }: Awaited<ReturnType<typeof testBefore>>,
  r: Awaited<ReturnType<typeof fitAndSolve>>,
  t0: number,
): Promise<RunAnswer<ThresholdAnswer>> {
  const { deps: { pool }, writer } = m, { ind, mapping } = data, { regions } = everyone;
  const name = input.collectionName;
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
        ...chartOf(input),
        before: before.audit,
        thresholds: r.newThresholds.map((t) => t.threshold),
        after: after.audit,
      }).then((chart) => (writer.writeMaps({ threshold_chart_after: chart }, ""), chart)),
    ]));
  return await keepMitigation(m, input, { kind: "threshold", mapping }, {
    ...solverFields(r, regions),
    ...constraintFields(input),
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
