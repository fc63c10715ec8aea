# Independent reference for tests/core/spatial/audit_test.ts: the notes' statistic with math.log, and
# the reference's worlds: np.random.seed(42 + w); y = np.random.binomial(1, P/N, N).
import math, numpy as np
N = 600
y = np.array([1 if (i % 10 < 3) or (i < 60 and i % 10 < 6) else 0 for i in range(N)])
regions = [[i for i in range(N) if i % 6 == r] for r in range(6)] + [list(range(100)), list(range(50, 250))]
def L(k, m):
    if m == 0: return 0.0
    a = 0.0 if k == 0 else k * math.log(k / m)
    b = 0.0 if k == m else (m - k) * math.log(1 - k / m)
    return a + b
def s(p, n, P, N):
    l0 = L(P, N)
    if l0 == 0 or n == 0 or n == N: return 0.0
    return (L(p, n) + L(P - p, N - n) - l0) / abs(l0)
P = int(y.sum()); print("P", P)
print("observed", [repr(s(int(y[r].sum()), len(r), P, N)) for r in regions])
print("p", [int(y[r].sum()) for r in regions])
W = 40; M = []
for w in range(W):
    np.random.seed(42 + w)
    yw = np.random.binomial(1, P / N, N)
    Pw = int(yw.sum())
    M.append(max(s(int(yw[r].sum()), len(r), Pw, N) for r in regions))
print("M", [repr(m) for m in M])
Ms = sorted(M, reverse=True); print("T(0.05)", repr(Ms[int(math.floor(0.05 * W))]))
