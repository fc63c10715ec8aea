"""pandas' DataFrame.corr on the correlation benchmark's columns, timed per method, for BENCHMARKS.md:

    deno run -A bench/correlation_bench.ts --export /tmp/corr.f64
    python3 bench/correlation_reference.py /tmp/corr.f64

Prints each method's time (pandas 3.1.1, scipy 1.17.1; pandas computes Kendall pair by pair with
scipy.stats.kendalltau) and a few coefficients to set beside Tessera's.
"""
import sys
import time

import numpy as np
import pandas as pd

data = np.fromfile(sys.argv[1], dtype=np.float64).reshape(20, -1).T
df = pd.DataFrame(data, columns=[f"c{j}" for j in range(20)])
for method in ["pearson", "spearman", "kendall"]:
    t0 = time.perf_counter()
    c = df.corr(method=method)
    print(f"{method}: {time.perf_counter() - t0:.1f} s  c0~c1 {c.iloc[0, 1]!r}  c0~c3 {c.iloc[0, 3]!r}")
