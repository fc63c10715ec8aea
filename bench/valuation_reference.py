"""Reference accuracies and times for Tessera's feature importance, on the design Tessera prepared.

    deno run -A bench/valuation_design.ts demo /tmp/demo_design.json
    python3 bench/valuation_reference.py /tmp/demo_design.json 5

scikit-learn 1.9.1 and LightGBM 4.7.0 with their defaults (as PyCaret's models): each model is
cross-validated on Tessera's folds of the training split; the randomised models are averaged over
`seeds` random_state values (LightGBM is deterministic). Prints the mean CV accuracy per model, its
spread over the seeds, the hold-out accuracy of a model trained on the whole training split, and the
wall time of one seed's cross-validation plus hold-out fit (n_jobs=2: both cores).
"""
import json
import sys
import time

import numpy as np
from lightgbm import LGBMClassifier
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

d = json.load(open(sys.argv[1]))
seeds = range(int(sys.argv[2]) if len(sys.argv) > 2 else 5)
X = np.array(d["X"]).T
y, train, test, fold = (np.array(d[k]) for k in ("y", "train", "test", "fold"))
MODELS = {
    "Extra Trees Classifier": lambda s: ExtraTreesClassifier(n_estimators=100, random_state=s, n_jobs=2),
    "Light Gradient Boosting Machine": lambda s: LGBMClassifier(random_state=s, verbose=-1, n_jobs=2),
    "Random Forest Classifier": lambda s: RandomForestClassifier(n_estimators=100, random_state=s, n_jobs=2),
    "Decision Tree Classifier": lambda s: DecisionTreeClassifier(random_state=s),
}
for name, make in MODELS.items():
    means = []
    for s in seeds:
        t0 = time.perf_counter()
        acc = []
        for k in range(fold.max() + 1):
            tr, ev = train[fold != k], train[fold == k]
            acc.append((make(s).fit(X[tr], y[tr]).predict(X[ev]) == y[ev]).mean())
        means.append(np.mean(acc))
        holdout = (make(s).fit(X[train], y[train]).predict(X[test]) == y[test]).mean()
        seconds = time.perf_counter() - t0
    print(f"{name}: cv {np.mean(means):.4f} (sd {np.std(means):.4f} over {len(means)} seeds), "
          f"holdout {holdout:.4f}, {seconds:.1f} s")
