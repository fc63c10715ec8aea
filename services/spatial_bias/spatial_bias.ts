/**
 * The reference toolkit's stateless routes (issue 39) over the same services as a stored task: the
 * individuals come with the request (read by read_body.ts, checked at the edge) instead of from a task's
 * collection, and the audit, relabel and threshold are those of services/spatial and services/mitigation.
 * Nothing is stored, in the store or among the prepared datasets, unless the request asks to keep it
 * (keep.ts): then the individuals become a dataset with a task, and the answer that task's run.
 */
import type { LoadedColumns } from "../../core/spatial/loaded_columns.ts";
import { DataMismatchError, locateParams } from "../../core/errors.ts";
import type { SetFacts } from "../../core/spatial/toolkit_individuals.ts";
import type { Decider } from "../decisions/entry.ts";
import {
  type AuditAnswer,
  auditData,
  type AuditSettings,
  type SpatialDeps,
  type TaskData,
} from "../spatial/audit.ts";
import { PhaseClock } from "../spatial/phases.ts";
import { keepRun } from "../spatial/run_writer.ts";
import type { RunAnswer } from "../spatial/run_chunks.ts";
import type { RelabelSettings, ThresholdSettings } from "../mitigation/settings.ts";
import type { MitigationAnswer, ThresholdAnswer } from "../mitigation/answers.ts";
import { relabelIndividuals } from "../mitigation/relabel.ts";
import { thresholdIndividuals } from "../mitigation/threshold.ts";
import { keepIndividuals } from "./keep.ts";
import type { ToolkitKind } from "./read_body.ts";

/** A toolkit request's individuals, read and checked, and what to do with them beside answering. */
export interface ToolkitInput {
  columns: LoadedColumns;
  sets: SetFacts[];
  /** Who asked, and the request's settings as validated (kept with a run). */
  who: Decider;
  request: unknown;
  /** Keep the individuals as a dataset in database `keep` (and the answer as its task's run); null: store nothing. */
  keep: string | null;
}

/** An answer: the service's, with the dataset and task it was kept as (`kept`), or none. */
export type ToolkitAnswer<T> = RunAnswer<T> & { kept: { database_name: string; task: string } | null };

/** The title of a map of a request not kept. */
const REQUEST = "the request's individuals";

/** Where the individuals are: the request's columns, or the kept dataset's (its ids, its task). */
async function requestData(
  deps: SpatialDeps,
  input: ToolkitInput & { equalOpp: boolean },
  kind: ToolkitKind,
): Promise<{ data: TaskData; task: string | null }> {
  const { ind, mapping } = input.columns;
  requireScope(input);
  const bare = { db: "", collection: "", generation: null };
  if (!input.keep) {
    const data = { ind, mapping, source: bare, dataset: { ref: bare, version: null }, columns: "request" };
    return { data, task: null };
  }
  const kept = await keepIndividuals(deps, { ind, sets: input.sets, kind, db: input.keep, who: input.who });
  const data = {
    ind: kept.ind,
    mapping,
    source: kept.source,
    dataset: { ref: kept.source, version: null },
    columns: "request",
  };
  return { data, task: kept.name };
}

/**
 * Under equal opportunity only individuals with y_true = 1 are audited: a request without one in every set
 * is refused (409) before anything is kept, as the audit would refuse it after.
 */
function requireScope(input: ToolkitInput & { equalOpp: boolean }): void {
  const yTrue = input.columns.ind.yTrue;
  if (!input.equalOpp || !yTrue) return;
  for (const s of input.sets) {
    if (!yTrue.subarray(s.offset, s.offset + s.n).includes(1)) {
      throw new DataMismatchError(
        `no individuals in scope in ${s.field} (with equal_opp=true only individuals with y_true = 1 are ` +
          "audited)",
        ["body", "equal_opp"],
      );
    }
  }
}

/**
 * Where a toolkit request carries a parameter core names: in its body, by the same name (the audit's; the
 * mitigations locate theirs as a stored task's do).
 */
const inBody = (param: (string | number)[]) => ["body", ...param];

/** What the answer says of where it was kept. */
const keptAs = (input: ToolkitInput, task: string | null) =>
  task && input.keep ? { database_name: input.keep, task } : null;

/** Nothing of a request goes among the prepared datasets: its individuals are its own. */
const unprepared = (deps: SpatialDeps): SpatialDeps => ({ ...deps, prepared: undefined });

/** The toolkit's `audit`: the audit of services/spatial over the request's individuals. */
export async function toolkitAudit(
  deps: SpatialDeps,
  input: ToolkitInput & AuditSettings,
): Promise<ToolkitAnswer<AuditAnswer>> {
  return await locateParams(inBody, async () => {
    const t0 = performance.now(), clock = new PhaseClock(), own = unprepared(deps);
    const { data, task } = await requestData(own, input, "audit");
    const answer = await auditData(own, data, input, `Spatial audit of ${task ?? REQUEST}`, clock, t0);
    if (!task) return { ...answer, run_id: "", kept: null };
    const run = { kind: "audit" as const, task, source: data.source, mapping: data.mapping };
    const kept = await keepRun(own, { ...run, requestedBy: input.who.sub, request: input.request }, answer);
    return { ...kept, kept: keptAs(input, task) };
  });
}

/** The toolkit's `mitigate/relabel`: relabel of services/mitigation over the request's individuals. */
export async function toolkitRelabel(
  deps: SpatialDeps,
  input: ToolkitInput & RelabelSettings,
): Promise<ToolkitAnswer<MitigationAnswer>> {
  const own = unprepared(deps);
  const { data, task } = await requestData(own, input, "relabel");
  const target = { ...input, collectionName: task ?? REQUEST, requestedBy: input.who.sub };
  const answer = await relabelIndividuals(own, target, data, task !== null);
  return { ...answer, kept: keptAs(input, task) };
}

/**
 * The toolkit's `mitigate/threshold`: thresholds fitted on the fit set and applied to the predict set (the
 * split is the request's: the predict set's individuals come first in the columns, the fit set's after).
 */
export async function toolkitThreshold(
  deps: SpatialDeps,
  input: ToolkitInput & ThresholdSettings,
): Promise<ToolkitAnswer<ThresholdAnswer>> {
  const own = unprepared(deps);
  const { data, task } = await requestData(own, input, "threshold");
  const [predict, fit] = input.sets;
  const range = (s: SetFacts) => Int32Array.from({ length: s.n }, (_, j) => s.offset + j);
  const split = { train: range(fit), test: range(predict) };
  const target = { ...input, split, collectionName: task ?? REQUEST, requestedBy: input.who.sub };
  const answer = await thresholdIndividuals(own, target, data, task !== null);
  return { ...answer, kept: keptAs(input, task) };
}
