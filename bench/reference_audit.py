"""The reference's direct Monte Carlo method in numpy, as a yardstick and an independent check of
`rng: "numpy"` (BENCHMARKS.md). Reads a fixture written by `deno run -A bench/spatial_audit.ts export DIR`
and, for worlds w = 0..W-1: np.random.seed(seed + w); y = np.random.binomial(1, P/N, N); region
counts over the member lists; s by the notes' formula; the world maximum. Prints T, the SBI and time.

    pip install numpy && python3 bench/reference_audit.py DIR [W] [seed]
"""
import sys
import time

import numpy as np

d = sys.argv[1]
W = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 42
y = np.fromfile(f"{d}/labels.u8", dtype=np.uint8).astype(np.int64)
start = np.fromfile(f"{d}/members_start.i32", dtype=np.int32)
idx = np.fromfile(f"{d}/members.i32", dtype=np.int32)
N, R = len(y), len(start) - 1
n = np.diff(start).astype(np.float64)
region_of = np.repeat(np.arange(R), np.diff(start))


def L(k, m):
    """k ln(k/m) + (m-k) ln(1-k/m), elementwise, with 0 ln 0 = 0 and L = 0 when m = 0."""
    k, m = np.asarray(k, dtype=np.float64), np.asarray(m, dtype=np.float64)
    safe_m = np.where(m > 0, m, 1)
    a = np.where(k > 0, k * np.log(np.where(k > 0, k, 1) / safe_m), 0.0)
    b = np.where(m - k > 0, (m - k) * np.log(np.where(m - k > 0, m - k, 1) / safe_m), 0.0)
    return np.where(m > 0, a + b, 0.0)


def stats(labels):
    P = labels.sum()
    p = np.bincount(region_of, weights=labels[idx], minlength=R)
    l0 = L(P, N)
    if l0 == 0:
        return np.zeros(R)
    s = (L(p, n) + L(P - p, N - n) - l0) / abs(l0)
    return np.where((n > 0) & (n < N), s, 0.0)


s_obs = stats(y)
P = int(y.sum())
t0 = time.time()
M = np.empty(W)
for w in range(W):
    np.random.seed(seed + w)
    M[w] = stats(np.random.binomial(1, P / N, N)).max()
elapsed = time.time() - t0
T = np.sort(M)[::-1][int(np.floor(0.005 * W))]
print(f"N = {N}, P = {P}, R = {R}, W = {W}: T(0.005) = {T!r}, SBI = {s_obs[n > 0].mean()!r}, "
      f"significant = {int(((s_obs >= T) & (s_obs > 0)).sum())}, worlds took {elapsed:.1f} s")
