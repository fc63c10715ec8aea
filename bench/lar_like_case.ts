/**
 * A loan-application-register-like spatial audit case for bench/http_end_to_end.ts, built from a seed:
 * N individuals placed on ~25,000 census-tract-like centroids drawn around 20 metropolitan clusters over
 * the continental United States (lat 25–49, lon −124 to −67), labels with a mild east–west drift, a
 * model that is right 85 % of the time with a probability consistent with its prediction, a few numeric
 * applicant columns, and overlapping square regions: S seed individuals × 30 half-sides from 0.05° to
 * 1.50°, each region the individuals inside its square (|Δlat| ≤ h and |Δlon| ≤ h), given per individual
 * as `region_ids`. The service takes only a non-empty list (docs/spatial-fairness.md), so an individual
 * inside no square gets the one id `regions` ("elsewhere"), as bench/spatial_fixtures.ts does.
 *
 * Every individual sits exactly on its tract's centroid (as a register gives tracts, not addresses), so
 * membership is computed once per tract over a grid of tracts and shared by the tract's individuals:
 * region lists are kept per tract (CSR), never per individual.
 */
import { Rng } from "../core/random.ts";

/** Half-sides per seed individual: 0.05°, ..., 1.50° in 30 equal steps. */
export const SIDES = 30;
export const HALF_SIDES = Float64Array.from({ length: SIDES }, (_, k) => 0.05 + (k * 1.45) / (SIDES - 1));

/** The bounding box of the continental United States the case lives in. */
const LAT0 = 25, LAT1 = 49, LON0 = -124, LON1 = -67;

/** 20 metropolitan areas: centre and relative population (millions, roughly). */
const METROS: [lat: number, lon: number, pop: number][] = [
  [40.71, -74.01, 19.5], // New York
  [34.05, -118.24, 13.0], // Los Angeles
  [41.88, -87.63, 9.5], // Chicago
  [32.78, -96.8, 7.6], // Dallas
  [29.76, -95.37, 7.1], // Houston
  [38.91, -77.04, 6.3], // Washington
  [39.95, -75.17, 6.2], // Philadelphia
  [25.9, -80.25, 6.1], // Miami
  [33.75, -84.39, 6.1], // Atlanta
  [42.36, -71.06, 4.9], // Boston
  [33.45, -112.07, 4.9], // Phoenix
  [37.77, -122.42, 4.7], // San Francisco
  [42.33, -83.05, 4.3], // Detroit
  [47.61, -122.33, 4.0], // Seattle
  [44.98, -93.27, 3.7], // Minneapolis
  [32.72, -117.16, 3.3], // San Diego
  [27.95, -82.46, 3.2], // Tampa
  [39.74, -104.99, 3.0], // Denver
  [38.63, -90.2, 2.8], // St. Louis
  [35.23, -80.84, 2.7], // Charlotte
];

export interface CaseOptions {
  /** Individuals (default 206,418). */
  n?: number;
  /** Regions: ceil(regions / 30) seed individuals × 30 half-sides, ids 0..regions-1 (default 3,000). */
  regions?: number;
  /** Tract centroids (default 25,000). */
  tracts?: number;
  seed?: number;
}

export interface LarLikeCase {
  n: number;
  nRegions: number;
  nTracts: number;
  /** Individual → its tract. */
  tractOf: Int32Array;
  /** Tract centroids, rounded to 5 decimals (what the documents carry). */
  tractLat: Float64Array;
  tractLon: Float64Array;
  /** Region ids of tract t: ids[start[t] .. start[t+1]), ascending; [nRegions] when inside no square. */
  tractStart: Int32Array;
  tractIds: Int32Array;
  yTrue: Uint8Array;
  yPred: Uint8Array;
  /** y_pred_prob, 4 decimals: ≥ 0.5 exactly when y_pred = 1. */
  prob: Float64Array;
  income: Float64Array;
  loanAmount: Float64Array;
  applicantAge: Float64Array;
  /** The seed individuals of the squares. */
  seeds: Int32Array;
  /** Σ over individuals of |region_ids| (the "elsewhere" id included). */
  memberships: number;
  /** Individuals inside no square (their region_ids is [nRegions]). */
  elsewhere: number;
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;
const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** Index of the first cumulative weight above u·total (binary search). */
function pick(cum: Float64Array, u: number): number {
  const target = u * cum[cum.length - 1];
  let lo = 0, hi = cum.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cum[mid] > target) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Builds the case; the same options give the same case. */
export function larLikeCase(opts: CaseOptions = {}): LarLikeCase {
  const n = opts.n ?? 206_418;
  const nRegions = opts.regions ?? 3_000;
  const nTracts = opts.tracts ?? 25_000;
  const rng = new Rng(opts.seed ?? 20_240_601);

  // Tracts: 88 % around a metro (by population; spread grows with the metro), 12 % rural, uniform.
  const metroCum = new Float64Array(METROS.length);
  METROS.forEach(([, , pop], m) => (metroCum[m] = (m ? metroCum[m - 1] : 0) + pop));
  const tractLat = new Float64Array(nTracts), tractLon = new Float64Array(nTracts);
  const tractMetro = new Int32Array(nTracts), tractWeight = new Float64Array(nTracts);
  for (let t = 0; t < nTracts; t++) {
    let lat: number, lon: number, m = -1;
    if (rng.next() < 0.88) {
      m = pick(metroCum, rng.next());
      const [clat, clon, pop] = METROS[m];
      const sd = 0.22 + 0.16 * Math.sqrt(pop / 19.5);
      lat = clat + sd * rng.normal();
      lon = clon + sd * 1.25 * rng.normal();
    } else {
      lat = LAT0 + (LAT1 - LAT0) * rng.next();
      lon = LON0 + (LON1 - LON0) * rng.next();
    }
    tractLat[t] = round(clamp(lat, LAT0, LAT1), 5);
    tractLon[t] = round(clamp(lon, LON0, LON1), 5);
    tractMetro[t] = m;
    tractWeight[t] = Math.exp(0.6 * rng.normal()); // applications per tract vary
  }
  const tractCum = new Float64Array(nTracts);
  for (let t = 0; t < nTracts; t++) tractCum[t] = (t ? tractCum[t - 1] : 0) + tractWeight[t];

  // Individuals: a tract, a few applicant columns, labels with a mild east–west drift, an 85 % model.
  const tractOf = new Int32Array(n);
  const yTrue = new Uint8Array(n), yPred = new Uint8Array(n), prob = new Float64Array(n);
  const income = new Float64Array(n), loanAmount = new Float64Array(n), applicantAge = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t = pick(tractCum, rng.next());
    tractOf[i] = t;
    const metro = tractMetro[t] >= 0 ? 0.25 : 0;
    const zIncome = rng.normal();
    income[i] = Math.max(8, Math.round(Math.exp(4.1 + metro + 0.55 * zIncome))); // thousands
    loanAmount[i] = Math.max(5, Math.round(income[i] * clamp(2.6 + 0.9 * rng.normal(), 0.3, 6)));
    applicantAge[i] = clamp(Math.round(44 + 12 * rng.normal()), 18, 90);
    const east = (tractLon[t] - LON0) / (LON1 - LON0); // 0 west .. 1 east
    const pTrue = clamp(0.42 + 0.12 * east + 0.06 * Math.tanh(zIncome), 0.05, 0.95);
    yTrue[i] = rng.next() < pTrue ? 1 : 0;
    const right = rng.next() < 0.85;
    yPred[i] = right ? yTrue[i] : 1 - yTrue[i];
    const r = right ? 0.25 + 0.75 * rng.next() : 0.6 * rng.next(); // confidence in [0, 1)
    prob[i] = yPred[i] === 1
      ? Math.floor((0.5 + 0.4999 * r) * 1e4) / 1e4 // [0.5, 0.9999]
      : Math.floor((0.4999 - 0.4999 * r) * 1e4) / 1e4; // [0, 0.4999]
  }

  // Seeds: distinct individuals.
  const nSeeds = Math.ceil(nRegions / SIDES);
  const chosen = new Set<number>();
  while (chosen.size < Math.min(nSeeds, n)) chosen.add(rng.int(n));
  const seeds = Int32Array.from(chosen);

  // Membership per tract over a grid of tracts with cells of the largest half-side: a seed's square
  // reaches only the 3×3 cells around its own. Chebyshev distance d; the seed's squares k with
  // HALF_SIDES[k] ≥ d contain the tract, i.e. k from kmin to 29: ids s·30 + kmin .. s·30 + 29.
  const H = HALF_SIDES[SIDES - 1];
  const GX = Math.ceil((LON1 - LON0) / H) + 1, GY = Math.ceil((LAT1 - LAT0) / H) + 1;
  const cellOf = (lat: number, lon: number) =>
    Math.floor((lat - LAT0) / H) * GX + Math.floor((lon - LON0) / H);
  const cellStart = new Int32Array(GX * GY + 1);
  for (let t = 0; t < nTracts; t++) cellStart[cellOf(tractLat[t], tractLon[t]) + 1]++;
  for (let c = 0; c < GX * GY; c++) cellStart[c + 1] += cellStart[c];
  const cellTracts = new Int32Array(nTracts), fill = cellStart.slice(0, GX * GY);
  for (let t = 0; t < nTracts; t++) cellTracts[fill[cellOf(tractLat[t], tractLon[t])]++] = t;

  const lists: number[][] = Array.from({ length: nTracts }, () => []);
  seeds.forEach((seedInd, s) => {
    const st = tractOf[seedInd], slat = tractLat[st], slon = tractLon[st];
    const cy = Math.floor((slat - LAT0) / H), cx = Math.floor((slon - LON0) / H);
    for (let gy = Math.max(0, cy - 1); gy <= Math.min(GY - 1, cy + 1); gy++) {
      for (let gx = Math.max(0, cx - 1); gx <= Math.min(GX - 1, cx + 1); gx++) {
        const c = gy * GX + gx;
        for (let j = cellStart[c]; j < cellStart[c + 1]; j++) {
          const t = cellTracts[j];
          const d = Math.max(Math.abs(tractLat[t] - slat), Math.abs(tractLon[t] - slon));
          if (d > H) continue;
          let k = 0;
          while (HALF_SIDES[k] < d) k++;
          for (; k < SIDES; k++) {
            const id = s * SIDES + k;
            if (id < nRegions) lists[t].push(id);
          }
        }
      }
    }
  });
  for (const l of lists) if (!l.length) l.push(nRegions); // "elsewhere"
  const tractStart = new Int32Array(nTracts + 1);
  for (let t = 0; t < nTracts; t++) tractStart[t + 1] = tractStart[t] + lists[t].length;
  const tractIds = new Int32Array(tractStart[nTracts]);
  lists.forEach((l, t) => tractIds.set(l, tractStart[t])); // ascending: seeds in order, k ascending

  let memberships = 0, elsewhere = 0;
  for (let i = 0; i < n; i++) {
    const t = tractOf[i];
    memberships += tractStart[t + 1] - tractStart[t];
    if (tractIds[tractStart[t]] === nRegions) elsewhere++;
  }
  return {
    n,
    nRegions,
    nTracts,
    tractOf,
    tractLat,
    tractLon,
    tractStart,
    tractIds,
    yTrue,
    yPred,
    prob,
    income,
    loanAmount,
    applicantAge,
    seeds,
    memberships,
    elsewhere,
  };
}

/** Writes `text` pieces to `file` in ~1 MB chunks. */
class ChunkWriter {
  private parts: string[] = [];
  private size = 0;
  bytes = 0;
  constructor(private file: Deno.FsFile) {}
  async add(s: string) {
    this.parts.push(s);
    this.size += s.length;
    if (this.size >= 1 << 20) await this.flush();
  }
  async flush() {
    if (!this.parts.length) return;
    const buf = new TextEncoder().encode(this.parts.join(""));
    this.parts = [];
    this.size = 0;
    for (let off = 0; off < buf.length;) off += await this.file.write(buf.subarray(off));
    this.bytes += buf.length;
  }
}

/**
 * The case as NDJSON, one document per individual in order: lat, lon, y_true, y_pred, y_pred_prob,
 * income, loan_amount, applicant_age, region_ids. Returns the bytes written.
 */
export async function writeCaseNdjson(c: LarLikeCase, path: string): Promise<number> {
  const idsJson = Array.from(
    { length: c.nTracts },
    (_, t) => `[${c.tractIds.subarray(c.tractStart[t], c.tractStart[t + 1]).join(",")}]`,
  );
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  try {
    const w = new ChunkWriter(file);
    for (let i = 0; i < c.n; i++) {
      const t = c.tractOf[i];
      await w.add(
        `{"lat":${c.tractLat[t]},"lon":${c.tractLon[t]},"y_true":${c.yTrue[i]},"y_pred":${c.yPred[i]},` +
          `"y_pred_prob":${c.prob[i]},"income":${c.income[i]},"loan_amount":${c.loanAmount[i]},` +
          `"applicant_age":${c.applicantAge[i]},"region_ids":${idsJson[t]}}\n`,
      );
    }
    await w.flush();
    return w.bytes;
  } finally {
    file.close();
  }
}

/** Columns (NaN: a gap) as NDJSON documents c0..c{k-1}, a gap written as null. Returns the bytes. */
export async function writeColumnsNdjson(cols: Float64Array[], path: string): Promise<number> {
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  try {
    const w = new ChunkWriter(file);
    const rows = cols[0].length;
    for (let r = 0; r < rows; r++) {
      let line = "{";
      for (let j = 0; j < cols.length; j++) {
        const v = cols[j][r];
        line += `${j ? "," : ""}"c${j}":${v === v ? v : "null"}`;
      }
      await w.add(line + "}\n");
    }
    await w.flush();
    return w.bytes;
  } finally {
    file.close();
  }
}

/**
 * The audit input as bench/reference_audit.py reads it (the layout of `bench/spatial_audit.ts export`):
 * labels.u8 (y_pred of the individuals in scope: all, or those with y_true = 1 under equal opportunity),
 * members_start.i32 and members.i32 (CSR of each region's members as positions in scope), over the
 * distinct region ids in scope, ascending, as the service builds them (core/spatial/regions.ts).
 */
export function exportReferenceAudit(
  c: LarLikeCase,
  dir: string,
  equalOpp: boolean,
): { n: number; r: number } {
  const scope: number[] = [];
  for (let i = 0; i < c.n; i++) if (!equalOpp || c.yTrue[i] === 1) scope.push(i);
  const ids = c.nRegions + 1; // the "elsewhere" id included
  const size = new Int32Array(ids);
  for (const i of scope) {
    const t = c.tractOf[i];
    for (let j = c.tractStart[t]; j < c.tractStart[t + 1]; j++) size[c.tractIds[j]]++;
  }
  const index = new Int32Array(ids).fill(-1);
  let R = 0;
  for (let id = 0; id < ids; id++) if (size[id] > 0) index[id] = R++;
  const start = new Int32Array(R + 1);
  for (let id = 0; id < ids; id++) if (index[id] >= 0) start[index[id] + 1] = size[id];
  for (let r = 0; r < R; r++) start[r + 1] += start[r];
  const members = new Int32Array(start[R]), at = start.slice(0, R);
  scope.forEach((i, pos) => {
    const t = c.tractOf[i];
    for (let j = c.tractStart[t]; j < c.tractStart[t + 1]; j++) members[at[index[c.tractIds[j]]]++] = pos;
  });
  const labels = Uint8Array.from(scope, (i) => c.yPred[i]);
  Deno.mkdirSync(dir, { recursive: true });
  Deno.writeFileSync(`${dir}/labels.u8`, labels);
  Deno.writeFileSync(`${dir}/members_start.i32`, new Uint8Array(start.buffer));
  Deno.writeFileSync(`${dir}/members.i32`, new Uint8Array(members.buffer));
  return { n: scope.length, r: R };
}

/** Columns as bench/correlation_reference.py reads them: column after column, float64 (NaN: a gap). */
export function exportReferenceColumns(cols: Float64Array[], path: string): void {
  const all = new Float64Array(cols.length * cols[0].length);
  cols.forEach((col, j) => all.set(col, j * col.length));
  Deno.writeFileSync(path, new Uint8Array(all.buffer));
}
