/**
 * The reference's random stream, bit for bit: numpy's legacy MT19937 (`np.random.seed(s)` is
 * `init_genrand(s)`), its 53-bit double, and `np.random.binomial(1, p)` (numpy's inversion sampler
 * with n = 1). This is what `rng: "numpy"` uses, so a user can compare thresholds with the reference.
 */

const N = 624, M = 397;

/** Mersenne Twister MT19937 seeded by `init_genrand`, as numpy's legacy RandomState does for an int seed. */
export class MT19937 {
  private mt = new Uint32Array(N);
  private i = N;

  constructor(seed: number) {
    const mt = this.mt;
    mt[0] = seed >>> 0;
    for (let i = 1; i < N; i++) {
      const x = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, x) + i) >>> 0;
    }
  }

  /** The next 32-bit output (`genrand_int32`). */
  uint32(): number {
    if (this.i >= N) this.twist();
    let y = this.mt[this.i++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** numpy's `random_sample()`: ((a >> 5)·2^26 + (b >> 6)) / 2^53 from two consecutive outputs. */
  double(): number {
    const a = this.uint32() >>> 5, b = this.uint32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  private twist(): void {
    const mt = this.mt;
    for (let k = 0; k < N; k++) {
      const y = (mt[k] & 0x80000000) | (mt[(k + 1) % N] & 0x7fffffff);
      mt[k] = mt[(k + M) % N] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
    }
    this.i = 0;
  }
}

/**
 * The constants of numpy's `random_binomial(p, n=1)`: it samples with p' = min(p, 1-p) by inversion
 * (qn = exp(1·log(1 - p')); one step on gives px = p'·qn/(1 - p')), and flips the label when p > 0.5.
 */
export interface NumpyBernoulli {
  qn: number;
  px: number;
  flip: boolean;
}

/** The inversion constants for success probability p in (0, 1), computed as numpy computes them. */
export function numpyBernoulli(p: number): NumpyBernoulli {
  const flip = p > 0.5;
  const pp = flip ? 1 - p : p;
  const q = 1 - pp;
  const qn = Math.exp(Math.log(q));
  return { qn, px: (pp * qn) / q, flip };
}

/**
 * One label by numpy's inversion loop for n = 1: U ≤ qn gives 0; else U - qn ≤ px gives 1; else the
 * sampler passed its bound (X = 2 > 1) and starts again with a fresh U, as numpy does.
 */
export function numpyLabel(mt: MT19937, b: NumpyBernoulli): number {
  for (;;) {
    let u = mt.double();
    if (u <= b.qn) return b.flip ? 1 : 0;
    u -= b.qn;
    if (u <= b.px) return b.flip ? 0 : 1;
  }
}
