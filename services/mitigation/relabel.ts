/**
 * The relabel mitigation of spec 2 (`mitigate/relabel`): mitigate in a worker while the audit before it and
 * its maps run beside the solver, audit again over the same regions with the before-audit's colour cap, draw
 * the maps, keep the run (written a part at a time as the parts come), note the mitigation on the task
 * document, and answer with both audits and the flips. It runs as a live run (live_mitigation.ts): listed
 * with its progress from its start, and cancellable.
 */
import { auditCap } from "../../core/spatial/maps/map_value.ts";
import type { Mapping } from "../../core/spatial/mapping.ts";
import type { FlipOrder } from "../../core/spatial/mitigate/flips.ts";
import { DataMismatchError, locateParams } from "../../core/errors.ts";
import { beside, nextTurn } from "../../core/turns.ts";
import type { Individuals, Regions } from "../../core/spatial/types.ts";
import { mitigateRelabel } from "./on_pool.ts";
import type { RelabelResult } from "../../core/spatial/mitigate/relabel.ts";
import { sameFlipsAt } from "../../core/spatial/mitigate/same_flips.ts";
import { auditMaps, type MapSettings } from "../spatial/audit_maps.ts";
import {
  auditOf,
  type AuditPayload,
  auditPayload,
  preparedAudit,
  preparedWorlds,
  regionsPart,
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
import { constraintFields, type RelabelSettings, solverInput } from "./settings.ts";
import { type MitigationAnswer, solverFields } from "./answers.ts";
import { flipsMaps, sharedMapSettings, writtenPredictions } from "./mitigation_steps.ts";

/**
 * What relabels of one frontier share (frontier.ts): the before-audit the first computes, and what was
 * drawn from each solved point's predictions.
 */
export interface SharedBefore {
  before?: Promise<{ regions: Regions; settings: Omit<MapSettings, "title">; payload: AuditPayload }>;
  /**
   * The solved points' predictions and their after-audits with maps: a point whose solver keeps the same
   * flips as an earlier point (a budget past the zero gap keeps those it starts from) has the same
   * predictions, so the same audit and maps, which it takes instead of drawing them again.
   */
  after?: { preds: Uint8Array; drawn: Promise<AfterDrawn> }[];
}

/** What a solved frontier point tells the points after it (frontier.ts). */
export interface SolvedPoint {
  result: RelabelResult;
  /** The individuals in scope, and the positives among them: the flip budget and window of any budget. */
  scopeSize: number;
  positives: number;
}

/** A frontier point's place in its sequence (frontier.ts). */
export interface PointHooks {
  /** The unit flips of another point, which this point's solver starts from. */
  warm: Float64Array | null;
  /**
   * A larger budget's answer whose flips reach 0 and fit this budget (zeroFlipsFit): the solver would
   * return them as they are, so the point takes that answer at its own budget instead of solving.
   */
  same?: SolvedPoint;
  /** Called once the point's solver has started (its dataset prepared, the before-audit under way). */
  started: () => void;
  /** Called once the point is solved (its predictions in `shared.after`). */
  solved: (point: SolvedPoint) => void;
  /** The run of the next smaller budget: this one is kept after it, so the task notes the last budget last. */
  previous: Promise<unknown> | null;
}

type RelabelInput = MitigationTarget & RelabelSettings & { shared?: SharedBefore; point?: PointHooks };

/** What a relabel draws from its predictions: the audit after, its maps, and the flips' maps. */
interface AfterDrawn {
  afterAudit: Awaited<ReturnType<typeof auditOf>>;
  mapsAfter: Awaited<ReturnType<typeof auditMaps>>;
  flips: Awaited<ReturnType<typeof flipsMaps>>;
}

/** Whether two prediction arrays are equal. */
function samePredictions(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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

/**
 * Flips predictions where the audit finds bias (PROMIS), then shows the reviewer both audits. The
 * before-audit and its maps need no solution, so they run beside the solver (which holds one worker).
 */
export function mitigateByRelabel(
  deps: SpatialDeps,
  input: RelabelInput,
): Promise<RunAnswer<MitigationAnswer>> {
  const t0 = performance.now();
  // the columns may be a read other requests share (keptOrBuilt): a cancel of this run does not end it
  const load = (clock: PhaseClock) => taskIndividuals(deps, input, { prob: false }, clock);
  return locateParams(
    spatialField,
    () => liveMitigation(deps, input, "relabel", (m) => relabelRun(m, input, t0, load)),
  );
}

/**
 * Relabels individuals already read (a toolkit request's: services/spatial_bias), as a live run of the task
 * `input.collectionName` when `live`, else detached: nothing stored.
 */
export function relabelIndividuals(
  deps: SpatialDeps,
  input: MitigationTarget & RelabelSettings,
  data: TaskData,
  live: boolean,
): Promise<RunAnswer<MitigationAnswer>> {
  const t0 = performance.now(), load = () => Promise.resolve(data);
  const work = (m: Mitigation) => relabelRun(m, input, t0, load);
  return locateParams(spatialField, () => liveOrDetached(deps, input, "relabel", live, work));
}

/**
 * The audit before as a frontier's points share it: the regions every map draws, their settings, the
 * payload.
 */
type Before = Awaited<NonNullable<SharedBefore["before"]>>;

/** What the steps of one relabel share once its data is read and its audit prepared. */
interface RelabelParts {
  m: Mitigation;
  input: RelabelInput;
  data: TaskData;
  clock: PhaseClock;
  flipOrder: FlipOrder;
  prepared: Awaited<ReturnType<typeof preparedAudit>>;
  worlds: ReturnType<typeof preparedWorlds>;
}

/**
 * The work of a relabel as run `m` (whose deps end their pool tasks when it is cancelled) over `load`'s
 * rows.
 */
async function relabelRun(
  m: Mitigation,
  input: RelabelInput,
  t0: number,
  load: (clock: PhaseClock) => Promise<TaskData>,
): Promise<RunAnswer<MitigationAnswer>> {
  const clock = new PhaseClock(), data = await load(clock);
  describeRun(m, data);
  const flipOrder = flipOrderOf(input.flipOrder, data.ind, data.mapping);
  const prepared = await preparedAudit(m.deps, data, input, clock);
  // both audits draw their worlds over the prepared regions: the after-audit finds them drawn when the
  // flips keep the number of positives (pr_constr 0, or no flip)
  const worlds = preparedWorlds(m.deps, data, input);
  const rp: RelabelParts = { m, input, data, clock, flipOrder, prepared, worlds };
  // the run is written as its parts come: the before-audit's maps during the solver, the predictions
  // during the after-audit
  m.live.phase("solving");
  const both = beside(() => writtenBefore(rp), () => clock.time("solve", () => solverAnswer(rp)));
  input.point?.started();
  const [before, r] = await both;
  m.live.solved(r.objective, r.bound);
  m.live.phase("auditing after");
  return await relabelAfter(rp, before, r, t0);
}

/** The audit before and its map; the regions it draws and its settings hold for every map of the request. */
async function auditBefore(
  { m: { deps }, input, data, clock, prepared, worlds }: RelabelParts,
): Promise<Before> {
  const audited = await auditOf(deps.pool, data.ind, input, clock, { prepared, plan: prepared.plan, worlds });
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
    const settings = { ...sharedMapSettings(deps, input), cap: auditCap(audited.audit), capped };
    const title = `Before mitigation: ${input.collectionName}`;
    const ind = data.ind;
    const maps = await auditMaps(deps.pool, ind, { ...audited, regions }, ind.yPred, { ...settings, title });
    return { regions, settings, payload: auditPayload(audited, maps) };
  });
}

/** The audit before (a frontier's points share the first one's: same data and settings), written. */
async function writtenBefore(rp: RelabelParts): Promise<Before> {
  const shared = rp.input.shared;
  const before = await (shared ? (shared.before ??= auditBefore(rp)) : auditBefore(rp));
  rp.m.writer.writeMaps(before.payload, "audit_before_mitigation.");
  return before;
}

/** The solver's answer, or a frontier point's that keeps a larger budget's flips (PointHooks.same). */
function solverAnswer(
  { m, input, data: { ind }, flipOrder, prepared }: RelabelParts,
): Promise<RelabelResult> {
  const same = input.point?.same;
  if (same) return Promise.resolve(sameFlipsAt(same.result, input, same.scopeSize, same.positives));
  return mitigateRelabel(m.deps.pool, {
    yPred: ind.yPred,
    yTrue: ind.yTrue,
    scope: prepared.scope,
    regions: prepared.regions,
    ...solverInput(input, prepared.regions),
    flipOrder,
    prob: flipOrder === "uncertainty" ? ind.prob : null,
    seed: input.seed,
    plan: prepared.plan,
    warm: input.point?.warm ?? null,
    // a frontier's points share the pool's cores already
    secondCore: !input.point,
  }, m.live.solver);
}

/** The audit after the flips and its maps, drawn once per predictions over a frontier; then the run kept. */
async function relabelAfter(
  { m, input, data: { ind, mapping }, clock, prepared, worlds }: RelabelParts,
  { regions, settings, payload }: Before,
  r: RelabelResult,
  t0: number,
): Promise<RunAnswer<MitigationAnswer>> {
  const { deps: { pool }, writer } = m, name = input.collectionName;
  // a frontier's points past the zero gap are answered together: each writes its predictions in a turn of
  // its own
  if (input.point?.same) await nextTurn();
  const preds = writtenPredictions(writer, ind, null, r.mitigatedPreds);
  await nextTurn(); // the predictions' chunks are made in this turn; the audit after is posted in the next
  const draw = async (): Promise<AfterDrawn> => {
    const afterAudit = await auditOf(pool, ind, input, clock, {
      yPred: r.mitigatedPreds,
      prepared,
      basePlan: prepared.plan,
      worlds,
    });
    const after = { ...afterAudit, regions };
    const [mapsAfter, flips] = await clock.time("maps", () =>
      Promise.all([
        auditMaps(pool, ind, after, r.mitigatedPreds, { ...settings, title: `After relabeling: ${name}` }),
        flipsMaps(pool, ind, after, r.flipped, r.mitigatedPreds, { ...settings, title: `Flips: ${name}` }),
      ]));
    return { afterAudit, mapsAfter, flips };
  };
  const earlier = input.shared?.after?.find((a) => samePredictions(a.preds, r.mitigatedPreds));
  const drawn = earlier?.drawn ?? draw();
  if (input.shared && !earlier) (input.shared.after ??= []).push({ preds: r.mitigatedPreds, drawn });
  // the plan of these predictions counts the scope and its positives
  input.point?.solved({ result: r, scopeSize: prepared.plan.n, positives: prepared.plan.positives });
  const { afterAudit, mapsAfter, flips } = await drawn;
  if (earlier) await nextTurn(); // and writes the maps they share in a turn of its own
  writer.writeMaps(mapsAfter, "audit_after_mitigation.");
  writer.writeMaps(flips, "");
  await input.point?.previous?.then(() => {}, () => {});
  return await keepMitigation(m, input, { kind: "relabel", mapping }, {
    ...solverFields(r, prepared.regions),
    ...constraintFields(input),
    audit_before_mitigation: payload,
    audit_after_mitigation: auditPayload(afterAudit, mapsAfter),
    mitigated_preds: preds,
    flip_order: r.flipOrder,
    ...flips,
    phases: clock.phases,
    elapsed_ms: Math.round(performance.now() - t0),
  });
}
