"""tsml / tsml-eval / aeon results files → per-case scores.

A tsml results file (``<estimator>/Predictions/<dataset>/testResample<r>.csv``) has three
header lines — (1) ``dataset, estimator, split, resample, time unit[, comment]``, (2) the
estimator's parameters, (3) summary values — then one line per test case:
``actual,predicted[,,p_0,...,p_c-1]``. The third line tells the task (tsml-eval's own check):
9 fields = classification (first = accuracy), 8 = regression (first = MSE).

Names: dataset and system from line 1, item = the case's 1-based position (cases carry no id;
every estimator sees the same cases in the same order for the same resample), seed = the
resample id (different resamples are different train/test splits of the same data). Metric
``accuracy`` (1 when ``actual == predicted``, compared as numbers like tsml-eval) for
classifiers, ``squared_error`` for regressors; ``label`` and ``prediction`` keep the two fields
as written (classes are label-encoded: line 1's comment holds the encoder).
"""
from __future__ import annotations

import math
from pathlib import Path

from ...errors import InputError
from ..files import check_input_file, open_text
from ._common import AdapterResult, Builder
from ._json import snippet

__all__ = ["FORMAT", "read", "task_of"]

FORMAT = "tsml"
EXPECTED = "a tsml results file (3 header lines, then 'actual,predicted[,,probabilities]')"
#: (number of fields, positions that must be numbers) of line 3, per task (tsml-eval's check).
THIRD_LINE = {
    "classification": (9, (0, 1, 2, 3, 4, 5, 7, 8)),
    "regression": (8, (0, 1, 2, 3, 4, 6, 7)),
    "clustering": (7, (0, 1, 2, 3, 4, 5, 6)),
    "forecasting": (5, (0, 1, 2, 3, 4)),
}


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def task_of(third_line: str) -> str | None:
    """The task a tsml third line belongs to, or None."""
    fields = third_line.rstrip("\r\n").split(",")
    for task, (n, numeric) in THIRD_LINE.items():
        if len(fields) == n and all(_is_float(fields[i]) for i in numeric):
            return task
    return None


def _number(text: str, where: str, what: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise InputError(f"{where}: {what} {text!r} is not a number; expected {EXPECTED}"
                         ) from None
    if not math.isfinite(v):
        raise InputError(f"{where}: {what} {text!r} is not finite; expected {EXPECTED}")
    return v


def read(path: str | Path) -> AdapterResult:
    """Read one tsml classification or regression results file."""
    path = check_input_file(path, what="tsml results file")
    with open_text(path, what="tsml results file") as fh:
        header = [fh.readline() for _ in range(3)]
        if not header[2]:
            raise InputError(f"{path}: fewer than 3 lines; expected {EXPECTED}")
        first = header[0].rstrip("\r\n").split(",")
        if len(first) < 5:
            raise InputError(f"{path}:1: {snippet(header[0])} has {len(first)} fields; expected "
                             f"'dataset,estimator,split,resample,time unit[,comment]'")
        dataset, system, split, resample = (f.strip() for f in first[:4])
        task = task_of(header[2])
        if task not in ("classification", "regression"):
            kind = f"a {task} results file" if task else "not a known tsml third line"
            raise InputError(
                f"{path}:3: {snippet(header[2])}: {kind}; Ranger reads classification (9 fields, "
                f"accuracy first) and regression (8 fields, MSE first) results"
            )
        summary = _number(header[2].split(",")[0], f"{path}:3", "summary value")
        has_seed = resample not in ("", "None")
        b = Builder(FORMAT, path, extra=(("seed",) if has_seed else ()) +
                    ("label", "prediction", "split"))
        metric = "accuracy" if task == "classification" else "squared_error"
        n = 0
        for number, line in enumerate(fh, start=4):
            text = line.rstrip("\r\n")
            if not text.strip():
                continue
            fields = text.split(",")
            where = f"{path}:{number}"
            if len(fields) < 2:
                raise InputError(f"{where}: {snippet(text)} has {len(fields)} field(s); expected "
                                 f"'actual,predicted[,,probabilities]'")
            actual, predicted = fields[0].strip(), fields[1].strip()
            if task == "classification":
                if actual == "?":
                    raise InputError(f"{where}: unknown actual class '?'; a classification "
                                     f"results file needs every case's class")
                a = _number(actual, where, "actual class")
                p = _number(predicted, where, "predicted class")
                value = float(a == p)
            else:
                a = _number(actual, where, "actual value")
                p = _number(predicted, where, "predicted value")
                value = (a - p) ** 2
            n += 1
            b.rows.add(dataset=dataset, system=system, metric=metric, item=str(n), value=value,
                       higher_is_better=task == "classification", seed=resample, label=actual,
                       prediction=predicted, split=split)
    if n == 0:
        raise InputError(f"{path}: no cases after the 3 header lines; expected {EXPECTED}")
    if summary != -1:  # tsml writes -1 for "not computed"
        b.report(dataset, system, metric, "accuracy" if task == "classification" else "mse",
                 summary, True)
    return b.result()
