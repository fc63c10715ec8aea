# Independent PROMIS-Approx reference: per-individual LP (docs/spatial-fairness.md), scipy's HiGHS MILP with D integer.
import numpy as np, scipy.optimize as so, math, sys, json
def promis_approx(labels, regions, C, dlo, dhi):
    N = len(labels); P = sum(labels); act = [r for r in regions if 0 < len(r) < N]; T = len(act)
    # vars: delta_j (N), e+ (T), e- (T), D
    nv = N + 2*T + 1; c = np.zeros(nv); lb = np.zeros(nv); ub = np.zeros(nv)
    for j, y in enumerate(labels): lb[j], ub[j] = (-1, 0) if y else (0, 1)
    for t, r in enumerate(act):
        n = len(r); c[N+2*t] = c[N+2*t+1] = math.sqrt(N / (n * (N - n))); ub[N+2*t] = ub[N+2*t+1] = np.inf
    lb[-1], ub[-1] = dlo, dhi
    A = []; lo = []; hi = []
    for t, r in enumerate(act):
        row = np.zeros(nv); n = len(r); p = sum(labels[j] for j in r)
        for j in r: row[j] = 1
        row[-1] = -n / N; row[N+2*t] = -1; row[N+2*t+1] = 1; A.append(row); lo.append(n*P/N - p); hi.append(n*P/N - p)
    row = np.zeros(nv); row[:N] = [(-1 if y else 1) for y in labels]; A.append(row); lo.append(-np.inf); hi.append(C)
    row = np.zeros(nv); row[:N] = 1; row[-1] = -1; A.append(row); lo.append(0); hi.append(0)
    integ = np.zeros(nv); integ[-1] = 1
    res = so.milp(c, constraints=so.LinearConstraint(np.array(A), lo, hi), integrality=integ, bounds=so.Bounds(lb, ub), options={"mip_rel_gap": 0})
    return res.fun, res.x[-1]
cases = json.load(sys.stdin)
for k in cases:
    print(k["name"], repr(promis_approx(k["labels"], k["regions"], k["C"], k["dlo"], k["dhi"])))
