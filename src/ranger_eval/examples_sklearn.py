"""A real case study the project produces offline: scikit-learn classifiers on scikit-learn's
bundled datasets (no download).

Three classifiers are trained on the same fixed, stratified train/test split of each of
``load_breast_cancer`` (binary, 569 samples), ``load_digits`` (10 classes, 1797), ``load_wine``
(3 classes, 178) and ``load_iris`` (3 classes, 150):

* ``logreg``: standardised features + ``LogisticRegression(max_iter=5000)``;
* ``naive_bayes``: ``GaussianNB()``;
* ``tree``: ``DecisionTreeClassifier(max_depth=3, random_state=seed)``.

The result is a tidy per-item table (dataset, system, metric = ``"correct"``, item = the sample's
row number in the scikit-learn dataset, label, prediction, value = 1 if the prediction is right
else 0): accuracy is the mean of ``value``; F1, MCC and the other set-level metrics of
:mod:`ranger_eval.setmetrics` are computed from ``label`` and ``prediction``. scikit-learn is
imported only when the table is made (it is not a dependency of ranger-eval).
"""
from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pandas as pd

from .atomic import write_text
from .errors import RangerError

__all__ = ["DATASETS", "SYSTEMS", "sklearn_example", "write_sklearn_example"]

#: Datasets bundled with scikit-learn (name → loader in ``sklearn.datasets``).
DATASETS: dict[str, str] = {
    "breast_cancer": "load_breast_cancer",
    "digits": "load_digits",
    "wine": "load_wine",
    "iris": "load_iris",
}
#: The classifiers, in table order.
SYSTEMS: tuple[str, ...] = ("logreg", "naive_bayes", "tree")
FILENAME = "sklearn_scores.csv"


def _sk(module: str) -> Any:
    """``sklearn.<module>``, imported at call time (scikit-learn is optional)."""
    try:
        importlib.import_module("sklearn")
        return importlib.import_module(f"sklearn.{module}")
    except ImportError:
        raise RangerError(
            "the scikit-learn case study needs scikit-learn, which is not installed "
            "(pip install scikit-learn)"
        ) from None


def _models(seed: int) -> dict[str, Any]:
    make_pipeline = _sk("pipeline").make_pipeline
    return {
        "logreg": make_pipeline(_sk("preprocessing").StandardScaler(),
                                _sk("linear_model").LogisticRegression(max_iter=5000)),
        "naive_bayes": _sk("naive_bayes").GaussianNB(),
        "tree": _sk("tree").DecisionTreeClassifier(max_depth=3, random_state=seed),
    }


def sklearn_example(seed: int = 0, *, test_size: float = 0.5) -> pd.DataFrame:
    """The per-item table of the case study (module docstring) for one train/test split.

    ``seed`` fixes the stratified split (``train_test_split(random_state=seed)``) and the tree's
    ``random_state``; the same seed gives the same table. Raises :class:`RangerError` when
    scikit-learn is missing or the arguments are invalid.
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise RangerError(f"seed must be a non-negative integer, got {seed!r}")
    if not isinstance(test_size, float) or not 0.0 < test_size < 1.0:
        raise RangerError(f"test_size must be a fraction strictly between 0 and 1, got {test_size!r}")
    datasets = _sk("datasets")
    train_test_split = _sk("model_selection").train_test_split
    frames = []
    for name, loader in DATASETS.items():
        data = getattr(datasets, loader)()
        x, y = data.data, data.target
        idx = list(range(len(y)))
        train, test = train_test_split(idx, test_size=test_size, random_state=seed, stratify=y)
        for system, model in _models(seed).items():
            model.fit(x[train], y[train])
            pred = model.predict(x[test])
            frames.append(pd.DataFrame({
                "dataset": name,
                "system": system,
                "metric": "correct",
                "item": [str(i) for i in test],
                "label": y[test].astype(int),
                "prediction": pred.astype(int),
                "value": (pred == y[test]).astype(float),
            }))
    return pd.concat(frames, ignore_index=True)


def write_sklearn_example(folder: str | Path, seed: int = 0) -> Path:
    """Write the case study's table to ``folder/sklearn_scores.csv`` (atomically; the folder is
    created) and return the file's path. See :func:`sklearn_example`."""
    table = sklearn_example(seed)
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    return write_text(out / FILENAME, table.to_csv(index=False, lineterminator="\n"))
