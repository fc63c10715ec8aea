// deno-lint-ignore-file
// AssemblyScript source of the Monte Carlo kernel (built by `deno task build:wasm` into audit.wasm).
// It mirrors core/spatial/kernel_ts.ts operation for operation, so both give bit-identical world
// maxima; only the pass over the incidence list differs: here 16 worlds move through it as four
// i32x4 vectors (WASM SIMD). Memory is laid out by the loader (wasm/audit_loader.ts) above heapBase().

const LANES: i32 = 16;
const MT_N: i32 = 624;
const MT_M: i32 = 397;

/** First free byte of linear memory: the loader places every array above it. */
export function heapBase(): usize {
  return __heap_base;
}

// sfc32 state of the world being filled (a = 0, b = seed, c = w, d = 1, then 12 rounds).
let sa: u32 = 0;
let sb: u32 = 0;
let sc: u32 = 0;
let sd: u32 = 0;

function sfc32(): u32 {
  const t = sa + sb + sd;
  sd += 1;
  sa = sb ^ (sb >>> 9);
  sb = sc + (sc << 3);
  sc = ((sc << 21) | (sc >>> 11)) + t;
  return t;
}

// The sampler's tables (set by worlds()): table of each signature; per table start, size, lo; cells.
let tableOf: usize = 0;
let tStart: usize = 0;
let tSize: usize = 0;
let tLo: usize = 0;
let tProb: usize = 0;
let tAlias: usize = 0;

function fillFast(nSig: i32, seed: u32, w: u32, X: usize, l: i32): void {
  sa = 0;
  sb = seed;
  sc = w;
  sd = 1;
  for (let i = 0; i < 12; i++) sfc32();
  for (let s = 0; s < nSig; s++) {
    const x = sfc32() >>> 5;
    const y = sfc32() >>> 6;
    const u = (<f64> x * 67108864.0 + <f64> y) / 9007199254740992.0;
    const t = load<i32>(tableOf + (<usize> s << 2));
    const m = load<i32>(tSize + (<usize> t << 2));
    const v = u * <f64> m;
    let i = <i32> v;
    if (i >= m) i = m - 1;
    const at = <usize> (load<i32>(tStart + (<usize> t << 2)) + i);
    const k = v - <f64> i < load<f64>(tProb + (at << 3)) ? i : load<i32>(tAlias + (at << 2));
    store<i32>(X + ((<usize> s * LANES + l) << 2), load<i32>(tLo + (<usize> t << 2)) + k);
  }
}

// MT19937 (numpy's legacy RandomState), state at mt, position in mti.
let mti: i32 = MT_N;

function mtSeed(mt: usize, seed: u32): void {
  store<u32>(mt, seed);
  for (let i = 1; i < MT_N; i++) {
    const prev = load<u32>(mt + ((<usize> i - 1) << 2));
    store<u32>(mt + (<usize> i << 2), 1812433253 * (prev ^ (prev >>> 30)) + <u32> i);
  }
  mti = MT_N;
}

function mtTwist(mt: usize): void {
  for (let k = 0; k < MT_N; k++) {
    const y = (load<u32>(mt + (<usize> k << 2)) & 0x80000000) |
      (load<u32>(mt + (<usize> ((k + 1) % MT_N) << 2)) & 0x7fffffff);
    store<u32>(
      mt + (<usize> k << 2),
      load<u32>(mt + (<usize> ((k + MT_M) % MT_N) << 2)) ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0),
    );
  }
  mti = 0;
}

function mtNext(mt: usize): u32 {
  if (mti >= MT_N) mtTwist(mt);
  let y = load<u32>(mt + (<usize> mti << 2));
  mti++;
  y ^= y >>> 11;
  y ^= (y << 7) & 0x9d2c5680;
  y ^= (y << 15) & 0xefc60000;
  y ^= y >>> 18;
  return y;
}

function mtDouble(mt: usize): f64 {
  const a = mtNext(mt) >>> 5;
  const b = mtNext(mt) >>> 6;
  return (<f64> a * 67108864.0 + <f64> b) / 9007199254740992.0;
}

function fillNumpy(
  n: i32,
  seed: u32,
  X: usize,
  l: i32,
  sigOf: usize,
  mt: usize,
  qn: f64,
  px: f64,
  flip: i32,
): void {
  mtSeed(mt, seed);
  const one = flip ? 0 : 1;
  for (let i = 0; i < n; i++) {
    let label = 0;
    for (;;) {
      let u = mtDouble(mt);
      if (u <= qn) {
        label = 1 - one;
        break;
      }
      u -= qn;
      if (u <= px) {
        label = one;
        break;
      }
    }
    if (label) {
      const at = X + ((<usize> load<i32>(sigOf + (<usize> i << 2)) * LANES + l) << 2);
      store<i32>(at, load<i32>(at) + 1);
    }
  }
}

/**
 * World maxima of s for worlds w0 .. w1-1 into out (f64). mode 0: fast (alias tables), 1: numpy.
 * X (nSig × 16 i32), acc (K × 16 i32), tot (16 i32) and mt (624 u32) are scratch.
 */
export function worlds(
  mode: i32,
  N: i32,
  nSig: i32,
  K: i32,
  nTables: i32,
  seed: u32,
  w0: i32,
  w1: i32,
  sigOf: usize,
  sigRegStart: usize,
  sigRegs: usize,
  scoredN: usize,
  scoredC: usize,
  xlx: usize,
  tables: usize,
  cells: usize,
  alias: usize,
  qn: f64,
  px: f64,
  flip: i32,
  X: usize,
  acc: usize,
  tot: usize,
  mt: usize,
  out: usize,
): void {
  tableOf = tables;
  tStart = tables + (<usize> nSig << 2);
  tSize = tStart + (<usize> nTables << 2);
  tLo = tSize + (<usize> nTables << 2);
  tProb = cells;
  tAlias = alias;
  for (let wb = w0; wb < w1; wb += LANES) {
    const nb = min(LANES, w1 - wb);
    memory.fill(X, 0, <usize> nSig * LANES * 4);
    for (let l = 0; l < nb; l++) {
      if (mode == 1) fillNumpy(N, seed + <u32> (wb + l), X, l, sigOf, mt, qn, px, flip);
      else fillFast(nSig, seed, <u32> (wb + l), X, l);
    }
    memory.fill(acc, 0, <usize> K * LANES * 4);
    let t0 = i32x4.splat(0), t1 = i32x4.splat(0), t2 = i32x4.splat(0), t3 = i32x4.splat(0);
    let j = load<i32>(sigRegStart);
    for (let s = 0; s < nSig; s++) {
      const xb = X + (<usize> s << 6);
      const x0 = v128.load(xb, 0), x1 = v128.load(xb, 16), x2 = v128.load(xb, 32), x3 = v128.load(xb, 48);
      t0 = i32x4.add(t0, x0);
      t1 = i32x4.add(t1, x1);
      t2 = i32x4.add(t2, x2);
      t3 = i32x4.add(t3, x3);
      const end = load<i32>(sigRegStart + ((<usize> s + 1) << 2));
      for (; j < end; j++) {
        const rb = acc + (<usize> load<i32>(sigRegs + (<usize> j << 2)) << 6);
        v128.store(rb, i32x4.add(v128.load(rb, 0), x0), 0);
        v128.store(rb, i32x4.add(v128.load(rb, 16), x1), 16);
        v128.store(rb, i32x4.add(v128.load(rb, 32), x2), 32);
        v128.store(rb, i32x4.add(v128.load(rb, 48), x3), 48);
      }
    }
    v128.store(tot, t0, 0);
    v128.store(tot, t1, 16);
    v128.store(tot, t2, 32);
    v128.store(tot, t3, 48);
    for (let l = 0; l < nb; l++) {
      const P = load<i32>(tot + (<usize> l << 2));
      const o = out + (<usize> (wb - w0 + l) << 3);
      if (P == 0 || P == N) {
        store<f64>(o, 0.0);
        continue;
      }
      const l0 = load<f64>(xlx + (<usize> P << 3)) + load<f64>(xlx + (<usize> (N - P) << 3)) -
        load<f64>(xlx + (<usize> N << 3));
      let best = 0.0;
      for (let k = 0; k < K; k++) {
        const p = load<i32>(acc + ((<usize> k * LANES + l) << 2));
        const n = load<i32>(scoredN + (<usize> k << 2));
        const q = P - p;
        const m = N - n;
        const S = load<f64>(xlx + (<usize> p << 3)) + load<f64>(xlx + (<usize> (n - p) << 3)) +
          (load<f64>(xlx + (<usize> q << 3)) + load<f64>(xlx + (<usize> (m - q) << 3))) -
          load<f64>(scoredC + (<usize> k << 3)) - l0;
        if (S > best) best = S;
      }
      store<f64>(o, best / -l0);
    }
  }
}
