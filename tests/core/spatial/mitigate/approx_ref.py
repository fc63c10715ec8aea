# Independent solutions of the PROMIS-Approx instances of tests/core/spatial/mitigate/approx_test.ts,
# written in the notes' own form (rates and weights w_i, |x| by two inequalities) and solved twice:
# scipy.optimize.milp (HiGHS) and PuLP's CBC (a different solver).
import math
import numpy as np
from scipy.optimize import milp, LinearConstraint, Bounds
import pulp

def solve(labels, regions, C, lo, hi):
    N = len(labels); P = sum(labels)
    inreg = set(j for m in regions for j in m)
    # decision: per individual delta_j (sign fixed by label) -- covers disjoint and overlapping alike;
    # with disjoint regions the notes' newP = P + sum over regions, so an individual in none never flips
    disjoint = sum(len(m) for m in regions) == len(inreg)
    J = list(range(N))
    free = lambda j: not disjoint or j in inreg
    lo_d = lambda j: (-1 if labels[j] else 0) if free(j) else 0
    hi_d = lambda j: (0 if labels[j] else 1) if free(j) else 0
    prob = pulp.LpProblem("promis", pulp.LpMinimize)
    d = {j: pulp.LpVariable(f"d{j}", lowBound=lo_d(j), upBound=hi_d(j)) for j in J}
    u = {j: pulp.LpVariable(f"u{j}", lowBound=0) for j in J}
    t = {i: pulp.LpVariable(f"t{i}", lowBound=0) for i in range(len(regions))}
    newP = pulp.LpVariable("newP", lowBound=lo, upBound=hi, cat="Integer")
    obj = []
    for i, m in enumerate(regions):
        n = len(m); p = sum(labels[j] for j in m)
        if n == 0 or n == N: continue
        w = math.sqrt(n * (N - n) / N)
        rin = (p + pulp.lpSum(d[j] for j in m)) * (1.0 / n)
        rout = (newP - p - pulp.lpSum(d[j] for j in m)) * (1.0 / (N - n))
        prob += t[i] >= rin - rout
        prob += t[i] >= rout - rin
        obj.append(w * t[i])
    for j in J:
        prob += u[j] >= d[j]; prob += u[j] >= -d[j]
    prob += pulp.lpSum(u.values()) <= C
    prob += newP == P + pulp.lpSum(d.values())
    prob += pulp.lpSum(obj)
    prob.solve(pulp.PULP_CBC_CMD(msg=0))
    cbc = pulp.value(prob.objective)

    # the same model for scipy.milp: x = [d_0..d_{N-1}, u_0..u_{N-1}, t_0..t_{R-1}, newP]
    R = len(regions); nv = 2 * N + R + 1
    c = np.zeros(nv); A = []; lb_ = []; ub_ = []
    for i, m in enumerate(regions):
        n = len(m); p = sum(labels[j] for j in m)
        if n == 0 or n == N: continue
        w = math.sqrt(n * (N - n) / N); c[2 * N + i] = w
        # rin - rout = p/n + S/n - (newP - p - S)/(N-n) ; S = sum d_j in m
        for sgn in (1, -1):
            row = np.zeros(nv); row[2 * N + i] = 1
            for j in m: row[j] = -sgn * (1 / n + 1 / (N - n))
            row[-1] = sgn * (1 / (N - n))
            const = sgn * (p / n + p / (N - n))
            A.append(row); lb_.append(const); ub_.append(np.inf)
    for j in J:
        for sgn in (1, -1):
            row = np.zeros(nv); row[N + j] = 1; row[j] = -sgn; A.append(row); lb_.append(0); ub_.append(np.inf)
    row = np.zeros(nv); row[N:2 * N] = 1; A.append(row); lb_.append(-np.inf); ub_.append(C)
    row = np.zeros(nv); row[:N] = -1; row[-1] = 1; A.append(row); lb_.append(P); ub_.append(P)
    lo_b = [lo_d(j) for j in J] + [0] * N + [0] * R + [lo]
    hi_b = [hi_d(j) for j in J] + [np.inf] * N + [np.inf] * R + [hi]
    integ = np.zeros(nv); integ[-1] = 1
    res = milp(c, constraints=LinearConstraint(np.array(A), lb_, ub_), bounds=Bounds(lo_b, hi_b), integrality=integ)
    return cbc, res.fun, res.x[-1]

# disjoint instance D1
labels = [1]*9 + [0]*3 + [1]*2 + [0]*8 + [1]*4 + [0]*4 + [1]*5 + [0]*5
regions = [list(range(0, 12)), list(range(12, 22)), list(range(22, 30))]
print("D1", solve(labels, regions, 2, 18, 22))
# overlapping instance O1
labels2 = [1,1,1,0,1,0,0,0,1,0,0,1]
regions2 = [[0,1,2,3,4,5], [3,4,5,6,7], [0,4,8,9,10]]
print("O1", solve(labels2, regions2, 1, 5, 7))
