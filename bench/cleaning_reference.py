"""Reference timings for bench/cleaning_bench.ts: scikit-learn on the same shape of data (100,000 rows x 10
columns from 3 latent factors plus noise sd 0.3, 1 % of cells missing), one thread.
`python3 bench/cleaning_reference.py`"""
import time

import numpy as np
from sklearn.ensemble import IsolationForest
from sklearn.experimental import enable_iterative_imputer  # noqa: F401
from sklearn.impute import IterativeImputer, KNNImputer

rng = np.random.default_rng(2026)
n, d = 100_000, 10
X = rng.normal(size=(n, 3)) @ rng.normal(size=(3, d)) + 0.3 * rng.normal(size=(n, d))
M = X.copy()
M[rng.random(M.shape) < 0.01] = np.nan
S = (M - np.nanmean(M, 0)) / np.nanstd(M, 0)


def best(label, fn, runs=3):
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    print(f"{label:44} best {min(ts):.2f} s  median {sorted(ts)[len(ts) // 2]:.2f} s")


best("sklearn IsolationForest fit + score_samples", lambda: IsolationForest(random_state=0).fit(X).score_samples(X))
best("sklearn IterativeImputer (max_iter=10)", lambda: IterativeImputer(max_iter=10, random_state=0).fit_transform(M))
best("sklearn KNNImputer (k=5, standardized)", lambda: KNNImputer(n_neighbors=5).fit_transform(S), runs=1)
