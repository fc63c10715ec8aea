/**
 * A primal-dual interior point (Mehrotra's predictor-corrector) for linear programs of a few thousand rows
 * and tens of thousands of columns: minimise cᵀv subject to A v = b, 0 ≤ v ≤ u (u may be infinite). Each
 * step solves the normal equations A Θ Aᵀ Δy = r with the sparse Cholesky (sparse_cholesky.ts), the
 * matrix summed straight into the factor's layout; one dense column (D of PROMIS-Approx) stays out of it
 * and is added by Sherman–Morrison. PROMIS-Approx uses it to find the columns and the duals of an optimum
 * (approx_interior.ts), to the accuracy a crossover needs, not to certify one. Where the dense column
 * dominates rows the other columns leave nearly empty, Sherman–Morrison loses the solve's digits and the
 * steps break down: the answer is then null, and PROMIS-Approx seeds its master another way.
 */
import {
  type CholeskyFactor,
  choleskyFactorLaid,
  type CholeskyPattern,
  choleskyPatternOfColumns,
  choleskySolve,
  laidIndex,
} from "./sparse_cholesky.ts";

/** min cᵀv, A v = b, 0 ≤ v ≤ upper; A in CSC (rows ascending); `dense`: a column kept out of A Θ Aᵀ, or -1. */
export interface BoxLP {
  rows: number;
  cost: Float64Array;
  upper: Float64Array;
  rhs: Float64Array;
  start: Int32Array;
  index: Int32Array;
  value: Float64Array;
  dense: number;
  /** A starting v, strictly inside its bounds (else the middle of each box, 1 where unbounded); every box
   * has an inside (upper > 0). */
  from?: Float64Array;
}

/** A primal-dual point: v, row duals y, and the duals of v's lower (z) and upper (q) bounds. */
export interface InteriorPoint {
  v: Float64Array;
  y: Float64Array;
  z: Float64Array;
  q: Float64Array;
  iterations: number;
  /** |cᵀv − (bᵀy − uᵀq)| / (1 + |cᵀv|) at the end. */
  gap: number;
}

/** The normal matrix's pattern and, for each column's pairs of rows, where its product goes in L's layout. */
interface Normal {
  pattern: CholeskyPattern;
  pos: Int32Array;
  laid: Float64Array;
}

/**
 * Most row pairs the columns may hold (their scatter positions take 4 bytes each) and most multiply-adds a
 * factorisation may take (Σ of its columns' squared counts): beyond, a step would cost more than the
 * interior point can save (the LAR-like case: 1.9 million pairs, 32 million multiply-adds).
 */
const MAX_PAIRS = 16_000_000, MAX_FACTOR_WORK = 150_000_000;

/**
 * The pattern of A Θ Aᵀ without the dense column, and the scatter positions of every column's pairs; null
 * past MAX_PAIRS or MAX_FACTOR_WORK.
 */
function normalLayout(lp: BoxLP): Normal | null {
  const { rows: m, start, index, dense } = lp, n = lp.cost.length;
  let pairs = 0;
  for (let j = 0; j < n; j++) {
    if (j !== dense) pairs += ((start[j + 1] - start[j]) * (start[j + 1] - start[j] + 1)) / 2;
  }
  if (pairs > MAX_PAIRS) return null;
  const pattern = choleskyPatternOfColumns(m, start, index, dense);
  let work = 0;
  for (let k = 0; k < m; k++) work += (pattern.start[k + 1] - pattern.start[k]) ** 2;
  if (work > MAX_FACTOR_WORK) return null;
  const inv = new Int32Array(m);
  pattern.perm.forEach((r, k) => (inv[r] = k));
  const pos = new Int32Array(pairs);
  let k = 0;
  for (let j = 0; j < n; j++) {
    if (j === dense) continue;
    for (let p = start[j]; p < start[j + 1]; p++) {
      for (let q = start[j]; q <= p; q++) pos[k++] = laidIndex(pattern, inv, index[p], index[q]);
    }
  }
  return { pattern, pos, laid: new Float64Array(m + pattern.rows.length) };
}

/** The normal matrix's ridge, relative to its largest diagonal: a row Θ leaves empty stays solvable. */
const RIDGE = 1e-12;

/** A Θ Aᵀ (without the dense column) factored, with a small ridge (refinement makes up for it: stepSolver). */
function factorNormal(lp: BoxLP, nl: Normal, theta: Float64Array): CholeskyFactor {
  const { start, value, dense } = lp, n = lp.cost.length, laid = nl.laid, m = lp.rows;
  laid.fill(0);
  let k = 0;
  for (let j = 0; j < n; j++) {
    if (j === dense) continue;
    const t = theta[j];
    for (let p = start[j]; p < start[j + 1]; p++) {
      const vp = value[p] * t;
      for (let q = start[j]; q <= p; q++) laid[nl.pos[k++]] += vp * value[q];
    }
  }
  // the ridge scales with the whole matrix, dense column included: where that column dominates a row the
  // sparse part alone may vanish there, and Sherman–Morrison needs it invertible
  let top = 0;
  for (let i = 0; i < m; i++) top = Math.max(top, laid[i]);
  if (dense >= 0) {
    for (let p = start[dense]; p < start[dense + 1]; p++) top = Math.max(top, theta[dense] * value[p] ** 2);
  }
  for (let i = 0; i < m; i++) laid[i] += RIDGE * top;
  return choleskyFactorLaid(nl.pattern, laid);
}

/** Solves (A Θ Aᵀ + θ_d a_d a_dᵀ) Δy = r: the factor for the sparse part, Sherman–Morrison for the dense column. */
function normalSolver(lp: BoxLP, f: CholeskyFactor, theta: Float64Array): (r: Float64Array) => Float64Array {
  if (lp.dense < 0) return (r) => choleskySolve(f, r);
  const ad = new Float64Array(lp.rows), td = theta[lp.dense];
  for (let p = lp.start[lp.dense]; p < lp.start[lp.dense + 1]; p++) ad[lp.index[p]] = lp.value[p];
  const w = choleskySolve(f, ad);
  let aw = 0;
  for (let i = 0; i < lp.rows; i++) aw += ad[i] * w[i];
  return (r) => {
    const d = choleskySolve(f, r);
    let ad1 = 0;
    for (let i = 0; i < lp.rows; i++) ad1 += ad[i] * d[i];
    const s = (td * ad1) / (1 + td * aw);
    for (let i = 0; i < lp.rows; i++) d[i] -= s * w[i];
    return d;
  };
}

/** A x. */
function times(lp: BoxLP, x: Float64Array): Float64Array {
  const out = new Float64Array(lp.rows);
  for (let j = 0; j < x.length; j++) {
    if (x[j] !== 0) {
      for (let p = lp.start[j]; p < lp.start[j + 1]; p++) out[lp.index[p]] += lp.value[p] * x[j];
    }
  }
  return out;
}

/** Aᵀ y (its reduced costs are c − Aᵀy). */
export function timesT(lp: BoxLP, y: Float64Array): Float64Array {
  const n = lp.cost.length, out = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    let s = 0;
    for (let p = lp.start[j]; p < lp.start[j + 1]; p++) s += lp.value[p] * y[lp.index[p]];
    out[j] = s;
  }
  return out;
}

/** The iterate: primal v (its slack to the upper bound is u − v), row duals y, bound duals z and q. */
interface Iterate {
  v: Float64Array;
  y: Float64Array;
  z: Float64Array;
  q: Float64Array;
}

/** What every direction of one step shares: the iterate, Θ, the factored solve and the residuals. */
interface Step {
  lp: BoxLP;
  it: Iterate;
  theta: Float64Array;
  solve: (r: Float64Array) => Float64Array;
  rp: Float64Array;
  rd: Float64Array;
}

/**
 * The Newton direction for complementarity targets rz = σμ − v∘z (− corrections) and rq = σμ − w∘q:
 * Δv = Θ (AᵀΔy − h) with h = rd − rz/v + rq/w, and A Θ Aᵀ Δy = rp + A Θ h.
 */
function direction({ lp, it, theta, solve, rp, rd }: Step, rz: Float64Array, rq: Float64Array) {
  const n = lp.cost.length, { v, z, q } = it, th = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const w = lp.upper[j] - v[j];
    const h = rd[j] - rz[j] / v[j] + (w < Infinity ? rq[j] / w : 0);
    th[j] = theta[j] * h;
  }
  const Ath = times(lp, th), rhs = rp.map((r, i) => r + Ath[i]);
  const dy = solve(rhs), atdy = timesT(lp, dy);
  const dv = new Float64Array(n), dz = new Float64Array(n), dq = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    dv[j] = theta[j] * atdy[j] - th[j];
    dz[j] = (rz[j] - z[j] * dv[j]) / v[j];
    const w = lp.upper[j] - v[j];
    if (w < Infinity) dq[j] = (rq[j] + q[j] * dv[j]) / w;
  }
  return { dy, dv, dz, dq };
}

/** The longest primal and dual steps (at most 1) that keep v, w, z and q non-negative. */
function stepLengths(lp: BoxLP, it: Iterate, d: ReturnType<typeof direction>): { ap: number; ad: number } {
  let ap = 1, ad = 1;
  for (let j = 0; j < d.dv.length; j++) {
    const dv = d.dv[j];
    if (dv < 0) ap = Math.min(ap, -it.v[j] / dv);
    else if (dv > 0 && lp.upper[j] < Infinity) ap = Math.min(ap, (lp.upper[j] - it.v[j]) / dv);
    if (d.dz[j] < 0) ad = Math.min(ad, -it.z[j] / d.dz[j]);
    if (d.dq[j] < 0) ad = Math.min(ad, -it.q[j] / d.dq[j]);
  }
  return { ap, ad };
}

/** Gondzio's centrality correctors per step at most: each costs a solve, not a factorisation. */
const CORRECTORS = 2;

/** The relative gap below which each solve is refined (stepSolver). */
const REFINE_GAP = 1e-2;

/**
 * One centrality corrector (Gondzio): where a longer step would leave products v∘z or w∘q far from
 * σμ (below a tenth, above ten times), the complementarity targets move them back into that band; the
 * corrected direction is kept when it allows a clearly longer step. `rz`, `rq` take the corrections.
 */
function centred(
  step: Step,
  rz: Float64Array,
  rq: Float64Array,
  d: ReturnType<typeof direction>,
  s: { ap: number; ad: number },
  target: number,
) {
  const { lp, it } = step,
    n = lp.cost.length,
    ap = Math.min(1, 1.5 * s.ap + 0.1),
    ad = Math.min(1, 1.5 * s.ad + 0.1);
  const lo = 0.1 * target, hi = 10 * target;
  const fix = (t: number) => (t < lo ? lo - t : t > hi ? Math.max(hi - t, -hi) : 0);
  const cz = new Float64Array(n), cq = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    cz[j] = fix((it.v[j] + ap * d.dv[j]) * (it.z[j] + ad * d.dz[j]));
    const w = lp.upper[j] - it.v[j];
    if (w < Infinity) cq[j] = fix((w - ap * d.dv[j]) * (it.q[j] + ad * d.dq[j]));
  }
  const rz2 = rz.map((r, j) => r + cz[j]), rq2 = rq.map((r, j) => r + cq[j]);
  const d2 = direction(step, rz2, rq2), s2 = stepLengths(lp, it, d2);
  if (Math.min(s2.ap, s2.ad) < 1.01 * Math.min(s.ap, s.ad)) return null;
  (rz.set(rz2), rq.set(rq2));
  return { d: d2, s: s2 };
}

/** The start: `from` (or the boxes' middles), dual slacks balancing complementarity at μ₀. */
function startingPoint(lp: BoxLP): Iterate {
  const n = lp.cost.length, v = new Float64Array(n), z = new Float64Array(n), q = new Float64Array(n);
  let top = 1;
  for (let j = 0; j < n; j++) top = Math.max(top, Math.abs(lp.cost[j]));
  const mu0 = 1e-2 * top;
  for (let j = 0; j < n; j++) {
    const u = lp.upper[j];
    v[j] = lp.from ? lp.from[j] : u < Infinity ? u / 2 : 1;
    z[j] = Math.max(lp.cost[j], 0) + mu0 / v[j];
    if (u < Infinity) q[j] = mu0 / (u - v[j]);
  }
  return { v, y: new Float64Array(lp.rows), z, q };
}

export interface InteriorOptions {
  /** Stop once the relative duality gap is at most this and the residuals are small. */
  stopGap: number;
  maxIterations: number;
  /** performance.now() past which it gives up. */
  deadline: number;
}

/** The residuals rp = b − Av and rd = c − Aᵀy − z + q, the relative gap and infeasibilities, and μ. */
function measure(lp: BoxLP, it: Iterate) {
  const n = lp.cost.length, U = lp.upper, { v, y, z, q } = it, Av = times(lp, v), aty = timesT(lp, y);
  const rp = lp.rhs.map((b, i) => b - Av[i]), rd = new Float64Array(n);
  let pObj = 0, dObj = 0, comp = 0, slots = 0, pInf = 0, dInf = 0, bTop = 1, cTop = 1;
  for (let i = 0; i < lp.rows; i++) {
    (dObj += lp.rhs[i] * y[i],
      pInf = Math.max(pInf, Math.abs(rp[i])),
      bTop = Math.max(bTop, Math.abs(lp.rhs[i])));
  }
  for (let j = 0; j < n; j++) {
    const w = U[j] - v[j];
    rd[j] = lp.cost[j] - aty[j] - z[j] + q[j];
    (pObj += lp.cost[j] * v[j], comp += v[j] * z[j], slots++);
    (dInf = Math.max(dInf, Math.abs(rd[j])), cTop = Math.max(cTop, Math.abs(lp.cost[j])));
    if (w < Infinity) (comp += w * q[j], dObj -= U[j] * q[j], slots++);
  }
  const gap = Math.abs(pObj - dObj) / (1 + Math.abs(pObj));
  return { rp, rd, gap, mu: comp / slots, slots, pInf: pInf / bTop, dInf: dInf / cTop };
}

/**
 * The normal equations' solver for this step; late (`refine`), when Θ spans many orders and the factor
 * loses digits, each solve takes one step of iterative refinement against A Θ Aᵀ itself (without it the
 * primal residual stalls near 1e-4 on some cases).
 */
function stepSolver(lp: BoxLP, nl: Normal, theta: Float64Array, refine: boolean) {
  const once = normalSolver(lp, factorNormal(lp, nl, theta), theta);
  if (!refine) return once;
  return (r: Float64Array) => {
    const d = once(r), Md = times(lp, timesT(lp, d).map((x, j) => x * theta[j]));
    const dd = once(r.map((x, i) => x - Md[i]));
    for (let i = 0; i < d.length; i++) d[i] += dd[i];
    return d;
  };
}

/** One step's direction: the affine predictor, σ = (μ_aff/μ)³, the corrector, then centrality correctors. */
function stepDirection(lp: BoxLP, nl: Normal, it: Iterate, m: ReturnType<typeof measure>) {
  const n = lp.cost.length, U = lp.upper, { v, z, q } = it;
  const theta = new Float64Array(n), rz = new Float64Array(n), rq = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const w = U[j] - v[j];
    theta[j] = 1 / (z[j] / v[j] + (w < Infinity ? q[j] / w : 0));
    (rz[j] = -v[j] * z[j], rq[j] = w < Infinity ? -w * q[j] : 0);
  }
  const step: Step = {
    lp,
    it,
    theta,
    solve: stepSolver(lp, nl, theta, m.gap <= REFINE_GAP),
    rp: m.rp,
    rd: m.rd,
  };
  const aff = direction(step, rz, rq), sa = stepLengths(lp, it, aff);
  let compAff = 0;
  for (let j = 0; j < n; j++) {
    const vj = v[j] + sa.ap * aff.dv[j];
    compAff += vj * (z[j] + sa.ad * aff.dz[j]);
    if (U[j] < Infinity) compAff += (U[j] - vj) * (q[j] + sa.ad * aff.dq[j]);
  }
  const target = Math.pow(compAff / m.slots / m.mu, 3) * m.mu;
  // the corrector: toward σμ, with the affine step's second-order terms
  for (let j = 0; j < n; j++) {
    rz[j] += target - aff.dv[j] * aff.dz[j];
    if (U[j] < Infinity) rq[j] += target + aff.dv[j] * aff.dq[j];
  }
  let d = direction(step, rz, rq), s = stepLengths(lp, it, d);
  for (let c = 0; c < CORRECTORS; c++) {
    const better = centred(step, rz, rq, d, s, target);
    if (!better) break;
    ({ d, s } = better);
  }
  return { d, s };
}

/**
 * Mehrotra's predictor-corrector from startingPoint until the relative gap is within `stopGap` (primal
 * and dual residuals within 1e-6 relative); null when it does not get there within the iterations or
 * the deadline, when the numbers break down, or when its factor would not stay sparse (normalLayout).
 * Never throws.
 */
export function interiorPoint(lp: BoxLP, o: InteriorOptions): InteriorPoint | null {
  const nl = normalLayout(lp), it = startingPoint(lp);
  if (!nl) return null;
  for (let k = 0; k < o.maxIterations && performance.now() < o.deadline; k++) {
    const m = measure(lp, it);
    if (!Number.isFinite(m.gap + m.mu)) return null;
    if (m.gap <= o.stopGap && m.pInf <= 1e-6 && m.dInf <= 1e-6) return { ...it, iterations: k, gap: m.gap };
    const { d, s } = stepDirection(lp, nl, it, m);
    const ap = Math.min(1, 0.995 * s.ap), ad = Math.min(1, 0.995 * s.ad);
    for (let j = 0; j < lp.cost.length; j++) {
      (it.v[j] += ap * d.dv[j], it.z[j] += ad * d.dz[j], it.q[j] += ad * d.dq[j]);
    }
    for (let i = 0; i < lp.rows; i++) it.y[i] += ad * d.dy[i];
  }
  return null;
}
