/**
 * The spatial audit of a task (spec 2 `audit`), and the steps the mitigations repeat around their
 * solver: audit typed columns over the worker pool, draw an audit's maps (audit_maps.ts), and shape the
 * audit part of an answer.
 */
import type { Config } from "../../config.ts";
import { locateParams } from "../../core/errors.ts";
import type { AuditOutput, AuditPlan } from "../../core/spatial/audit.ts";
import type { Mapping } from "../../core/spatial/mapping.ts";
import { mapRegions } from "../../core/spatial/maps/features.ts";
import type {
  AuditResult,
  Individuals,
  Regions,
  RegionSource,
  Ring,
  RngMode,
} from "../../core/spatial/types.ts";
import { requireNeeds } from "../../core/spatial/loaded_columns.ts";
import { docIdsBytes } from "../../core/spatial/doc_ids.ts";
import type { Store } from "../../store/store.ts";
import type { WorkerPool } from "../../workers/pool.ts";
import {
  prepareAudit,
  spatialAudit,
  type SpatialAuditReply,
  type SpatialAuditRequest,
  type WorldsMemo,
} from "./on_pool.ts";
import type { AuditMaps } from "../../workers/tasks/maps.ts";
import { auditMaps, type MapSettings } from "./audit_maps.ts";
import { loadColumns } from "./individuals.ts";
import { taskCollection } from "./task_collection.ts";
import { datasetVersion } from "../datasets/registry.ts";
import { type DatasetKey, keptOrBuilt, type PreparedDatasets, typedBytes } from "../datasets/prepared.ts";
import { keepRun } from "./run_writer.ts";
import { type RunAnswer } from "./run_chunks.ts";
import { type RunSource } from "./run_documents.ts";
import { PhaseClock, type Phases } from "./phases.ts";

/** What the spatial and mitigation services use: the store, the worker pool, the configuration. */
export interface SpatialDeps {
  store: Store;
  pool: WorkerPool;
  config: Config;
  /** Prepared datasets kept between requests; absent: every request prepares its own. */
  prepared?: PreparedDatasets;
}

/** The audit settings of a request (audit, relabel and threshold share them), validated at the edge. */
export interface AuditSettings {
  /** Monte Carlo worlds W. */
  nWorlds: number;
  /** α in (0, 1). */
  signifLevel: number;
  /** Audit true-positive rates (individuals with y_true = 1) instead of positive rates. */
  equalOpp: boolean;
  /** Draw every individual in the distribution map instead of at most MAX_DRAWN. */
  fullDistribution: boolean;
  /** The request's region polygons, or null (regions from region_ids or k-means). */
  polygons: Ring[] | null;
  /** The fields the request mapped; keys left out take their defaults. */
  mapping: Partial<Mapping> | undefined;
  /** Seed of the worlds and of the map's sample; with rng "numpy", seed + nWorlds - 1 < 2^32. */
  seed: number;
  rng: RngMode;
  /** Answer the maps inline (default); false leaves them out, and the stored run still has them. */
  includeMaps?: boolean;
}

/** An audit's statistics (without the raw world maxima and timings), its regions' origin and its maps. */
export type AuditPayload =
  & Omit<AuditOutput, "world_max" | "timing_ms">
  & { regions_source: RegionSource; unassigned_individuals: number }
  & AuditMaps;

/** The answer of `audit`. */
export type AuditAnswer = AuditPayload & { phases: Phases; elapsed_ms: number };

/** Scope and regions of an audit: built by its first audit, kept with the prepared dataset. */
export interface Scoped {
  scope: Int32Array;
  regions: Regions;
}

/**
 * Audits `yPred` (default: the collection's) with the request's Monte Carlo settings, over scope and
 * regions `prepared` earlier when given (with the plan of these labels, or `basePlan` of other labels
 * whose signatures it takes); its preparing and its worlds count to `clock`.
 */
export async function auditOf(
  pool: WorkerPool,
  ind: Individuals,
  settings: AuditSettings,
  clock: PhaseClock,
  extra: Pick<SpatialAuditRequest, "yPred" | "prepared" | "plan" | "basePlan" | "worlds"> = {},
): Promise<SpatialAuditReply> {
  const reply = await spatialAudit(pool, {
    individuals: ind,
    equalOpp: settings.equalOpp,
    polygons: settings.polygons,
    nWorlds: settings.nWorlds,
    signifLevel: settings.signifLevel,
    seed: settings.seed,
    rng: settings.rng,
    ...extra,
  });
  const t = reply.audit.timing_ms;
  clock.add("prepare", t.plan / 1000);
  clock.add("worlds", (t.worlds + t.summary) / 1000);
  return reply;
}

/**
 * The name of the scope and regions of an audit of a task's individuals among the prepared dataset's
 * parts: they depend on the columns read, the scope (y_true = 1 for equal_opp, else every individual, as
 * for the threshold's fit) and the request's polygons. An audit without equal_opp and a threshold's fit
 * share one part, so the first threshold after such an audit builds no regions (nor hulls).
 */
export function regionsPart(
  data: TaskData,
  settings: Pick<AuditSettings, "equalOpp" | "polygons">,
  scope: "audit" | "everyone" = "audit",
): string {
  const who = scope === "audit" && settings.equalOpp ? "y_true=1" : "all";
  return `${data.columns}|regions|${who}|${
    settings.polygons ? hashText(JSON.stringify(settings.polygons)) : "-"
  }`;
}

/** FNV-1a (64 bits) over a string's UTF-16 units: names a request's polygons in a part's name. */
function hashText(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h = BigInt.asUintN(64, (h ^ BigInt(text.charCodeAt(i))) * 0x100000001b3n);
  }
  return h.toString(36);
}

/**
 * Bytes of scope and regions kept with a prepared dataset: their typed arrays, about 64 a region beyond
 * them, and about 40 a point of the polygons the regions came with (rules 2 and 3).
 */
export function scopedBytes(s: Scoped): number {
  const points = (s.regions.polygons ?? []).reduce((sum, ring) => sum + (ring?.length ?? 0), 0);
  return typedBytes(s) + 64 * s.regions.ids.length + 40 * points;
}

/**
 * Scope, regions and Monte Carlo plan of an audit of the task's own predictions: those kept with its
 * prepared dataset, else built in a worker (regions kept but not the plan: the plan alone) and kept.
 */
export async function preparedAudit(
  deps: SpatialDeps,
  data: TaskData,
  settings: AuditSettings,
  clock: PhaseClock,
): Promise<Scoped & { plan: AuditPlan }> {
  const part = regionsPart(data, settings), planPart = `${part}|plan|${settings.rng}`;
  const kept = deps.prepared?.peek<Scoped>(data.dataset, part);
  const keptPlan = kept && deps.prepared!.peek<AuditPlan>(data.dataset, planPart);
  if (kept && keptPlan) return { ...kept, plan: keptPlan };
  const built = await clock.time(
    "prepare",
    () => prepareAudit(deps.pool, { ...settings, individuals: data.ind, prepared: kept }),
  );
  if (!kept) {
    const scoped = { scope: built.scope, regions: built.regions };
    deps.prepared?.put(data.dataset, part, { value: scoped, bytes: scopedBytes(scoped) });
  }
  deps.prepared?.put(data.dataset, planPart, { value: built.plan, bytes: typedBytes(built.plan) });
  return built;
}

/**
 * The world maxima of audits over a prepared dataset's scope and regions (`part`) with the request's
 * seed, W and rng, kept beside them by number of positives (WorldsMemo); none without prepared datasets.
 */
export function preparedWorlds(
  deps: SpatialDeps,
  data: TaskData,
  settings: AuditSettings,
  part = regionsPart(data, settings),
): WorldsMemo | undefined {
  const { prepared } = deps;
  if (!prepared) return undefined;
  const name = (positives: number) =>
    `${part}|worlds|${JSON.stringify([settings.rng, settings.seed, settings.nWorlds, positives])}`;
  return {
    get: (positives) => prepared.peek<Float64Array>(data.dataset, name(positives)),
    put: (positives, worldMax) =>
      prepared.put(data.dataset, name(positives), { value: worldMax, bytes: worldMax.byteLength + 64 }),
  };
}

/** Audits the task's own predictions over its prepared scope, regions, plan and worlds (preparedAudit). */
export async function auditTaskData(
  deps: SpatialDeps,
  data: TaskData,
  settings: AuditSettings,
  clock: PhaseClock,
): Promise<SpatialAuditReply> {
  const prepared = await preparedAudit(deps, data, settings, clock);
  const worlds = preparedWorlds(deps, data, settings);
  return await auditOf(deps.pool, data.ind, settings, clock, { prepared, plan: prepared.plan, worlds });
}

/**
 * Scope and regions with their display polygons, and how many regions the maps leave out: rule 1's
 * regions are drawn as the convex hulls of their members (coordinates needed), in a worker, only for the
 * regions a map draws (mapRegions of `audit`: at most MAX_MAP_REGIONS), each hull once per prepared
 * dataset; other rules come with theirs. `positions` maps scope positions to individuals.
 */
export async function withHulls<S extends Scoped>(
  deps: SpatialDeps,
  data: TaskData,
  part: string,
  scoped: S,
  audit: AuditResult,
  positions: Int32Array = scoped.scope,
): Promise<S & { capped: number }> {
  const { regions } = scoped, { lat, lon } = data.ind;
  if (regions.polygons || regions.source !== "region_ids" || !lat || !lon) return { ...scoped, capped: 0 };
  const drawn = mapRegions(audit), hullPart = `${part}|hulls`;
  const known = deps.prepared?.peek<(Ring | null | undefined)[]>(data.dataset, hullPart) ?? [];
  const missing = drawn.filter((r) => known[r] === undefined);
  let hulls = known;
  if (missing.length) {
    const members = missing.map((r) => regions.members[r]);
    const made = await deps.pool.run("spatial.hulls", { lon, lat, scope: positions, members });
    if (!made) return { ...scoped, capped: 0 }; // coordinates that are not all finite: no hulls
    hulls = known.slice();
    missing.forEach((r, k) => (hulls[r] = made[k]));
    const points = hulls.reduce((sum, ring) => sum + (ring?.length ?? 0), 0);
    deps.prepared?.put(data.dataset, hullPart, { value: hulls, bytes: 40 * points + 16 * hulls.length });
  }
  const polygons: (Ring | null)[] = regions.members.map(() => null);
  for (const r of drawn) polygons[r] = hulls[r] ?? null;
  return { ...scoped, regions: { ...regions, polygons }, capped: regions.members.length - drawn.length };
}

/** The audit part of an answer: statistics without the raw world maxima, and the maps. */
export function auditPayload(reply: SpatialAuditReply, maps: AuditMaps): AuditPayload {
  const { world_max: _w, timing_ms: _t, ...audit } = reply.audit;
  return {
    ...audit,
    regions_source: reply.regions.source,
    unassigned_individuals: reply.regions.unassigned,
    ...maps,
  };
}

/** A task's individuals as a request reads them, and where they are kept among the prepared datasets. */
export interface TaskData {
  ind: Individuals;
  /** The whole mapping read (omitted keys resolved to the fields they read). */
  mapping: Mapping;
  /** Where they came from, for the run. */
  source: RunSource;
  /** The dataset's content version, and the name of these columns among its prepared parts. */
  dataset: DatasetKey;
  columns: string;
}

/**
 * The individuals of a task's collection as the request maps them (y_true when it audits equal
 * opportunity, y_pred_prob when asked), from the prepared dataset when it is kept, else read from the
 * store (and kept): where an audit and each mitigation start.
 */
export async function taskIndividuals(
  deps: SpatialDeps,
  input: Pick<AuditSettings, "mapping" | "equalOpp"> & { collectionName: string },
  needs: { prob: boolean },
  clock: PhaseClock,
): Promise<TaskData> {
  const ref = await taskCollection(deps, input.collectionName);
  // read before the rows: an import that changes them from now on leaves the run a stale generation,
  // and what is read is kept under the version read, which a later write changes
  const { generation, content } = await datasetVersion(deps.store, deps.config.TESSERA_DB, ref);
  const dataset = { ref: { db: ref.db, collection: ref.collection }, version: content };
  const requested = Object.entries(input.mapping ?? {}).filter(([, v]) => v !== undefined).sort();
  const columns = `columns|${JSON.stringify(requested)}`;
  const loaded = await clock.time("load", () =>
    keptOrBuilt(deps.prepared, dataset, columns, async () => {
      const value = await loadColumns(deps, ref, input.mapping);
      const { docIds, ...typed } = value.ind;
      return { value, bytes: typedBytes(typed) + docIdsBytes(docIds) };
    }));
  const ind = requireNeeds(loaded, { yTrue: input.equalOpp, prob: needs.prob });
  return { ind, mapping: loaded.mapping, source: { ...dataset.ref, generation }, dataset, columns };
}

/** Who asked for a run and how (kept with it): the caller, and the request body as validated. */
export interface RunOrigin {
  requestedBy?: string;
  request?: unknown;
}

/** Audits a task's collection and draws its maps: the reviewer's first look at where a model is unfair. */
export function auditTask(
  deps: SpatialDeps,
  input: AuditSettings & RunOrigin & { collectionName: string },
): Promise<RunAnswer<AuditAnswer>> {
  return locateParams(spatialField, () => auditTaskHere(deps, input));
}

/**
 * Where a spatial request (an audit's or a mitigation's) carries a parameter core names: the task's
 * collection in the path, any other in the body.
 */
export const spatialField = (param: (string | number)[]): (string | number)[] => [
  param[0] === "data_collection_name" ? "path" : "body",
  ...param,
];

async function auditTaskHere(
  deps: SpatialDeps,
  input: AuditSettings & RunOrigin & { collectionName: string },
): Promise<RunAnswer<AuditAnswer>> {
  const t0 = performance.now(), clock = new PhaseClock();
  const data = await taskIndividuals(deps, input, { prob: false }, clock);
  const answer = await auditData(deps, data, input, `Spatial audit of ${input.collectionName}`, clock, t0);
  const { mapping, source } = data;
  const run = { kind: "audit" as const, task: input.collectionName, source, mapping };
  const origin = { requestedBy: input.requestedBy, request: input.request };
  return await keepRun(deps, { ...run, ...origin }, answer, input.includeMaps);
}

/**
 * Audits individuals already read (a task's, or a toolkit request's: services/spatial_bias) and draws the
 * maps titled `title`; started at `t0` on `clock`.
 */
export async function auditData(
  deps: SpatialDeps,
  data: TaskData,
  input: AuditSettings,
  title: string,
  clock: PhaseClock,
  t0: number,
): Promise<AuditAnswer> {
  const audited = await auditTaskData(deps, data, input, clock);
  const opts: MapSettings = {
    full: input.fullDistribution,
    seed: input.seed,
    title,
    equalOpp: input.equalOpp,
    tileUrl: deps.config.MAP_TILE_URL,
  };
  // the maps follow from the rows and the request's settings alone: an audit asked again draws nothing
  const { nWorlds, signifLevel, seed, rng } = input;
  const mapsPart = `${regionsPart(data, input)}|maps|${
    JSON.stringify([nWorlds, signifLevel, seed, rng, opts])
  }`;
  const maps = await clock.time("maps", () =>
    keptOrBuilt(deps.prepared, data.dataset, mapsPart, async () => {
      const { capped, ...reply } = await withHulls(
        deps,
        data,
        regionsPart(data, input),
        audited,
        audited.audit,
      );
      const value = await auditMaps(deps.pool, data.ind, reply, data.ind.yPred, { ...opts, capped });
      return { value, bytes: Object.values(value).reduce((sum, text) => sum + 2 * text.length, 0) };
    }));
  return {
    ...auditPayload(audited, maps),
    phases: clock.phases,
    elapsed_ms: Math.round(performance.now() - t0),
  };
}
