/**
 * The spatial audit's worker tasks: "spatial.members", "spatial.count_members" and "spatial.fill_members"
 * make rule 1's member lists in parts, one per worker; "spatial.prepare" builds scope, regions (unless
 * made so) and the Monte Carlo plan (into SharedArrayBuffers, so every worker reads the same plan without a
 * copy), "spatial.worlds" runs a range of worlds over it, "spatial.regions" builds the regions of every
 * individual (the threshold mitigation's, under rules the parts do not make), "spatial.hulls" a map's
 * display polygons. The caller's side, spreading an audit over the pool, is services/spatial/on_pool.ts.
 */
import { type AuditPlan, planAudit, planForLabels, simulateWorlds } from "../../core/spatial/audit.ts";
import {
  buildRegions,
  countMembers,
  fillMembers,
  KMEANS_SEED,
  memberCuts,
  type MemberSource,
  memberSource,
  regionHulls,
} from "../../core/spatial/regions.ts";
import { scopeOf } from "../../core/spatial/loaded_columns.ts";
import { gather, restrictRegions } from "../../core/spatial/subset.ts";
import { sharedAlloc, toShared } from "../../core/memory.ts";
import type { Individuals, Regions, Ring, RngMode } from "../../core/spatial/types.ts";

/** What the prepare task needs: the audit's columns, and scope and regions when they were built before. */
export interface PreparePayload {
  ind: Individuals;
  equalOpp: boolean;
  polygons: Ring[] | null;
  seed: number;
  rng: RngMode;
  prepared: { scope: Int32Array; regions: Regions } | null;
  /** With `prepared`: a plan of other labels over them, whose signatures this plan takes as they are. */
  base?: AuditPlan | null;
}

export interface Prepared {
  scope: Int32Array;
  regions: Regions;
  plan: AuditPlan;
}

/**
 * Regions in shared memory, the member lists as views of one buffer: kept between requests and posted to
 * a worker for every audit of the dataset, they are then shared, never copied. Shared ones stay as they are.
 */
function shareRegions(regions: Regions): Regions {
  if (regions.members.every((m) => m.buffer instanceof SharedArrayBuffer)) return regions;
  const total = regions.members.reduce((s, m) => s + m.length, 0);
  const all = new Int32Array(new SharedArrayBuffer(4 * total));
  let at = 0;
  const members = regions.members.map((m) => {
    all.set(m, at);
    return all.subarray(at, at += m.length);
  });
  return { ...regions, members };
}

/** Scope and regions in shared memory (see shareRegions). */
function shareScoped(scope: Int32Array, regions: Regions): { scope: Int32Array; regions: Regions } {
  return {
    scope: toShared(scope),
    regions: shareRegions(regions),
  };
}

/** Scope, regions (built, or as prepared earlier) and the labels in scope. */
export function scoped(p: PreparePayload) {
  const scope = p.prepared?.scope ?? scopeOf(p.ind, p.equalOpp);
  // k-means takes its fixed seed, not the request's: the seed moves the worlds, not the regions
  const regions = p.prepared?.regions ?? buildRegions(p.ind, scope, p.polygons, KMEANS_SEED, sharedAlloc);
  return { scope, regions, labels: gather(p.ind.yPred, scope)! };
}

/** Worker task "spatial.prepare": scope and regions (shared), and a shared plan. */
function prepare(p: PreparePayload): Prepared {
  const { scope, regions, labels } = scoped(p);
  const plan = p.prepared && p.base
    ? planForLabels(p.base, labels, regions)
    : planAudit(labels, regions, p.rng);
  return { ...shareScoped(scope, regions), plan: toShared(plan) };
}

/** What "spatial.hulls" draws: the coordinates of every individual, the scope, the regions' members. */
export interface HullsPayload {
  lon: Float64Array;
  lat: Float64Array;
  scope: Int32Array;
  members: Int32Array[];
}

/** Worker task "spatial.hulls": rule 1's display polygons, the convex hulls of the members (for maps). */
function hulls(p: HullsPayload) {
  return regionHulls(gather(p.lon, p.scope)!, gather(p.lat, p.scope)!, p.members);
}

/** Worker task "spatial.regions": scope and regions over every individual (the threshold mitigation's fit). */
function regionsOfAll(p: { ind: Individuals; polygons: Ring[] | null }) {
  const all = Int32Array.from({ length: p.ind.n }, (_, i) => i);
  // k-means takes its fixed seed, as in the audit
  return shareScoped(all, buildRegions(p.ind, all, p.polygons, KMEANS_SEED, sharedAlloc));
}

/**
 * Worker task "spatial.restrict": regions over every individual seen through a part of them (`positions`,
 * ascending), in shared memory: the threshold's test part, audited over the regions of the fit.
 */
function restrict(p: { regions: Regions; positions: Int32Array; n: number }) {
  return shareRegions(restrictRegions(p.regions, p.positions, p.n));
}

/**
 * Worker task "spatial.members": rule 1's member source of an audit's scope (memberSource), in shared
 * memory, with the scope cut into `parts` of about as many memberships; null when another rule applies.
 */
function memberSourceOf(p: { ind: Individuals; equalOpp: boolean; polygons: Ring[] | null; parts: number }) {
  const source = memberSource(p.ind, scopeOf(p.ind, p.equalOpp), p.polygons);
  return source && { source: toShared(source), cuts: memberCuts(source, p.parts) };
}

/** What a part of the member lists' making reads: the source, and its positions [from, to). */
export interface MembersPart {
  source: MemberSource;
  from: number;
  to: number;
}

/** Entries for workers/tasks.ts. */
export const SPATIAL_TASKS = {
  "spatial.regions": regionsOfAll,
  "spatial.prepare": prepare,
  "spatial.members": memberSourceOf,
  "spatial.count_members": (p: MembersPart) => countMembers(p.source, p.from, p.to),
  "spatial.fill_members": (p: MembersPart & { all: Int32Array; next: Int32Array }) =>
    fillMembers(p.source, p.from, p.to, p.all, p.next),
  "spatial.hulls": hulls,
  "spatial.restrict": restrict,
  "spatial.worlds": (p: { plan: AuditPlan; seed: number; w0: number; w1: number }) =>
    simulateWorlds(p.plan, p.seed, p.w0, p.w1),
};
