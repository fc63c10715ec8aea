// deno-lint-ignore-file
// AssemblyScript source of the Monte Carlo kernel (built by `deno task build:wasm` into audit.wasm).
// Its arithmetic is tests/support/kernel_ts.ts's, operation for operation, so both give bit-identical
// world maxima; what differs is how the work moves, 16 worlds at a time (WASM SIMD):
// - fast mode: the 16 worlds' sfc32 streams advance together as i32x4 vectors and their uniforms are
//   formed in f64x2; each signature's 16 draws fill one 64-byte row of X;
// - numpy mode: each world's MT19937 stream fills its own row of per-signature counts;
// - then one pass over the (signature -> region) incidence list adds the 16 counts as four i32x4.
// Memory is laid out by the loader (core/spatial/audit_wasm.ts) above heapBase().

const LANES: i32 = 16;
const MT_N: i32 = 624;
const MT_M: i32 = 397;
// 2^-53: multiplying by it is exact, the same double as numpy's division by 2^53.
const TWO_M53: f64 = 1.1102230246251565e-16;

/** First free byte of linear memory: the loader places every array above it. */
export function heapBase(): usize {
  return __heap_base;
}

// The sampler, per signature (set by worlds()): 16 bytes [size m, first cell, lo, 0] of its table;
// per cell: acceptance probability (f64) and alias (i32).
let sigTab: usize = 0;
let tProb: usize = 0;
let tAlias: usize = 0;

// sfc32 seeding of world w: a = 0, b = seed, c = w, d = 1, then 12 rounds; lane l of the 4-word state
// block st (word k of lanes 4g..4g+3 is the v128 at st + 16·(4g + k)).
function seedLane(st: usize, l: i32, seed: u32, w: u32): void {
  let a: u32 = 0, b: u32 = seed, c: u32 = w, d: u32 = 1;
  for (let r = 0; r < 12; r++) {
    const t = a + b + d;
    d += 1;
    a = b ^ (b >>> 9);
    b = c + (c << 3);
    c = ((c << 21) | (c >>> 11)) + t;
  }
  const at = st + (<usize> (l >> 2) << 6) + (<usize> (l & 3) << 2);
  store<u32>(at, a);
  store<u32>(at, b, 16);
  store<u32>(at, c, 32);
  store<u32>(at, d, 48);
}

// The alias draw of kernel_ts.ts for one lane, given its cell index as a double v = u·m.
function pick(X: usize, v: f64, m: i32, start: i32, lo: i32): void {
  let i = <i32> v;
  if (i >= m) i = m - 1;
  const at = <usize> (start + i);
  const k = select<i32>(i, load<i32>(tAlias + (at << 2)), v - <f64> i < load<f64>(tProb + (at << 3)));
  store<i32>(X, lo + k);
}

// Binomial draws of 16 worlds at once, one per signature, into X (signature-major: 16 counts a row).
// The 16 sfc32 streams advance as four i32x4 vectors a word; the uniforms are formed two lanes at a
// time in f64x2, with exactly the scalar operations (IEEE per lane, no fused multiply-add in wasm).
function fillFast(nSig: i32, seed: u32, wb: i32, X: usize, st: usize): void {
  for (let l = 0; l < LANES; l++) seedLane(st, l, seed, <u32> (wb + l));
  const one = i32x4.splat(1), scale = f64x2.splat(67108864.0), unit = f64x2.splat(TWO_M53);
  for (let s = 0; s < nSig; s++) {
    const e = sigTab + (<usize> s << 4);
    const m = load<i32>(e), start = load<i32>(e, 4), lo = load<i32>(e, 8);
    const mf = f64x2.splat(<f64> m);
    for (let g = 0; g < 4; g++) {
      const sg = st + (<usize> g << 6);
      let a = v128.load(sg, 0), b = v128.load(sg, 16), c = v128.load(sg, 32), d = v128.load(sg, 48);
      let t = i32x4.add(i32x4.add(a, b), d);
      d = i32x4.add(d, one);
      a = v128.xor(b, i32x4.shr_u(b, 9));
      b = i32x4.add(c, i32x4.shl(c, 3));
      c = i32x4.add(v128.or(i32x4.shl(c, 21), i32x4.shr_u(c, 11)), t);
      const x = i32x4.shr_u(t, 5);
      t = i32x4.add(i32x4.add(a, b), d);
      d = i32x4.add(d, one);
      a = v128.xor(b, i32x4.shr_u(b, 9));
      b = i32x4.add(c, i32x4.shl(c, 3));
      c = i32x4.add(v128.or(i32x4.shl(c, 21), i32x4.shr_u(c, 11)), t);
      const y = i32x4.shr_u(t, 6);
      v128.store(sg, a, 0);
      v128.store(sg, b, 16);
      v128.store(sg, c, 32);
      v128.store(sg, d, 48);
      const xh = i32x4.shuffle(x, x, 2, 3, 0, 1), yh = i32x4.shuffle(y, y, 2, 3, 0, 1);
      const u01 = f64x2.mul(
        f64x2.add(f64x2.mul(f64x2.convert_low_i32x4_u(x), scale), f64x2.convert_low_i32x4_u(y)),
        unit,
      );
      const u23 = f64x2.mul(
        f64x2.add(f64x2.mul(f64x2.convert_low_i32x4_u(xh), scale), f64x2.convert_low_i32x4_u(yh)),
        unit,
      );
      const v01 = f64x2.mul(u01, mf), v23 = f64x2.mul(u23, mf);
      const row = X + (<usize> s << 6) + (<usize> g << 4);
      pick(row, f64x2.extract_lane(v01, 0), m, start, lo);
      pick(row + 4, f64x2.extract_lane(v01, 1), m, start, lo);
      pick(row + 8, f64x2.extract_lane(v23, 0), m, start, lo);
      pick(row + 12, f64x2.extract_lane(v23, 1), m, start, lo);
    }
  }
}

// MT19937 (numpy's legacy RandomState): state at mt, its tempered outputs at mt + 2496.
function mtSeed(mt: usize, seed: u32): void {
  store<u32>(mt, seed);
  for (let i = 1; i < MT_N; i++) {
    const prev = load<u32>(mt + ((<usize> i - 1) << 2));
    store<u32>(mt + (<usize> i << 2), 1812433253 * (prev ^ (prev >>> 30)) + <u32> i);
  }
}

// Regenerates the 624 words and writes their tempered outputs (genrand_int32's, in order).
function mtTwist(mt: usize): void {
  for (let k = 0; k < MT_N; k++) {
    const k1 = k + 1 < MT_N ? k + 1 : 0, km = k + MT_M < MT_N ? k + MT_M : k + MT_M - MT_N;
    const y = (load<u32>(mt + (<usize> k << 2)) & 0x80000000) |
      (load<u32>(mt + (<usize> k1 << 2)) & 0x7fffffff);
    store<u32>(
      mt + (<usize> k << 2),
      load<u32>(mt + (<usize> km << 2)) ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0),
    );
  }
  const out = mt + (<usize> MT_N << 2);
  for (let k = 0; k < MT_N; k++) {
    let y = load<u32>(mt + (<usize> k << 2));
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    store<u32>(out + (<usize> k << 2), y);
  }
}

// One world's labels by numpy's inversion rule (see core/spatial/mt19937.ts), counted per signature
// into its row Xl of X. The stream position is a local; a double takes two consecutive outputs.
function fillNumpy(
  n: i32,
  seed: u32,
  Xl: usize,
  sigOf: usize,
  mt: usize,
  qn: f64,
  px: f64,
  flip: i32,
): void {
  mtSeed(mt, seed);
  const out = mt + (<usize> MT_N << 2);
  let pos = MT_N;
  const one = flip ? 0 : 1;
  for (let i = 0; i < n; i++) {
    let label = 0;
    for (;;) {
      if (pos >= MT_N) (mtTwist(mt), pos = 0);
      const a = load<u32>(out + (<usize> pos << 2)) >>> 5;
      pos++;
      if (pos >= MT_N) (mtTwist(mt), pos = 0);
      const b = load<u32>(out + (<usize> pos << 2)) >>> 6;
      pos++;
      let u = (<f64> a * 67108864.0 + <f64> b) * TWO_M53;
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
      const at = Xl + (<usize> load<i32>(sigOf + (<usize> i << 2)) << 2);
      store<i32>(at, load<i32>(at) + 1);
    }
  }
}

// Lanes 4 worlds apart in X's rows: the counts of one signature in 4 consecutive worlds.
function gather4(p: usize, stride: usize): v128 {
  let v = i32x4.splat(load<i32>(p));
  v = i32x4.replace_lane(v, 1, load<i32>(p + stride));
  v = i32x4.replace_lane(v, 2, load<i32>(p + 2 * stride));
  return i32x4.replace_lane(v, 3, load<i32>(p + 3 * stride));
}

/**
 * World maxima of s for worlds w0 .. w1-1 into out (f64). mode 0: fast (alias tables), 1: numpy.
 * X (16 rows of nSig i32, one per world of the block), acc (K × 16 i32), tot (16 i32) and mt (2 × 624 u32) are scratch.
 */
export function worlds(
  mode: i32,
  N: i32,
  nSig: i32,
  K: i32,
  seed: u32,
  w0: i32,
  w1: i32,
  sigOf: usize,
  sigRegStart: usize,
  sigRegs: usize,
  scoredN: usize,
  scoredC: usize,
  xlx: usize,
  sampler: usize,
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
  sigTab = sampler;
  tProb = cells;
  tAlias = alias;
  const stride = <usize> nSig << 2;
  for (let wb = w0; wb < w1; wb += LANES) {
    const nb = min(LANES, w1 - wb);
    if (mode == 1) {
      memory.fill(X, 0, <usize> nSig * LANES * 4);
      for (let l = 0; l < nb; l++) {
        fillNumpy(N, seed + <u32> (wb + l), X + <usize> l * stride, sigOf, mt, qn, px, flip);
      }
    } else fillFast(nSig, seed, wb, X, mt);
    memory.fill(acc, 0, <usize> K * LANES * 4);
    let t0 = i32x4.splat(0), t1 = i32x4.splat(0), t2 = i32x4.splat(0), t3 = i32x4.splat(0);
    let j = load<i32>(sigRegStart);
    for (let s = 0; s < nSig; s++) {
      // numpy mode fills one row per world (lane-major), fast mode one row per signature.
      const xs = mode == 1 ? X + (<usize> s << 2) : X + (<usize> s << 6);
      const x0 = mode == 1 ? gather4(xs, stride) : v128.load(xs, 0);
      const x1 = mode == 1 ? gather4(xs + 4 * stride, stride) : v128.load(xs, 16);
      const x2 = mode == 1 ? gather4(xs + 8 * stride, stride) : v128.load(xs, 32);
      const x3 = mode == 1 ? gather4(xs + 12 * stride, stride) : v128.load(xs, 48);
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
