"""Shared pieces of the item response models: the systems × items table of any input shape
(:func:`wide_table`) and a system's ability given fitted items (:func:`ability_one`,
:func:`ml_abilities`, :func:`wle_ability`, :func:`ability_se`). Used by
:mod:`ranger_eval.budget.irt` (the fit, :meth:`~ranger_eval.IRTResult.predict`) and
:mod:`ranger_eval.budget.subset` (the predictor of every cross-fitting fold).

Abilities: P_i(θ) = σ(a_i (θ − b_i)); the maximum-likelihood θ solves Σ_i a_i (x_i − P_i(θ)) = 0
(Lord 1980, *Applications of Item Response Theory*, ch. 5), finite only when the system has
some items right and some wrong; otherwise Warm's (1989) weighted likelihood estimate.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize, special

from ..design import refuse_prompts
from ..errors import VerdictError
from ..formatting import preview
from ..scores import Scores

__all__ = ["ability_one", "ability_se", "ml_abilities", "wide_table", "wle_ability"]


# --------------------------------------------------------------------------- input
def wide_table(responses: Any, *, where: str = "irt") -> pd.DataFrame:
    """The systems × items table of ``responses``: a wide table (one row per system, one column
    per item) or 2-D array as given, a long table ``system, item, value`` (or
    :class:`~ranger_eval.Scores`) pivoted, systems and items in order of first appearance.
    ``where`` names the calling function in the errors (one dataset and metric, each
    (system, item) once, a 2-D shape)."""
    if isinstance(responses, Scores):
        refuse_prompts(responses, where=where, error=VerdictError,
                       why="the model reads one 0/1 response per system × item (a mean over the "
                           "prompts is not one)", instead="select the rows of one prompt")
        responses = responses.table
    if isinstance(responses, pd.DataFrame) and {"system", "item", "value"} <= set(responses):
        long = responses
        for col in ("dataset", "metric"):
            if col in long and long[col].nunique() > 1:
                raise VerdictError(
                    f"{where}: the responses hold {long[col].nunique()} {col}s "
                    f"({preview([str(v) for v in pd.unique(long[col])])}); fit one at a time: "
                    f"select it first (e.g. scores.table[scores.table.{col} == NAME])")
        dup = long.duplicated(["system", "item"])
        if dup.any():
            row = long[dup].iloc[0]
            raise VerdictError(f"{where}: system {row['system']!r} has item {row['item']!r} more "
                               f"than once (seeds or samples: average or binarise first)")
        wide = long.pivot(index="system", columns="item", values="value")
        # the order of first appearance, as a wide table gives it
        wide = wide.reindex(index=pd.unique(long["system"]), columns=pd.unique(long["item"]))
        return wide.rename_axis(index=None, columns=None).astype(float)
    if isinstance(responses, pd.DataFrame):
        return responses.astype(float)
    arr = np.asarray(responses, dtype=float)
    if arr.ndim != 2:
        raise VerdictError(f"{where}: responses must be a systems × items table; got an array of "
                           f"shape {arr.shape}")
    return pd.DataFrame(arr)


# --------------------------------------------------------------------------- abilities
def ml_abilities(r: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ML abilities solving Σ a_i (x_i − P_i) = 0 for weighted scores r (0 < r < Σa), Newton
    vectorised over r, started from the logit of the proportion."""
    total = a.sum()
    theta = np.log(r / (total - r)) + np.average(b, weights=a)
    for _ in range(100):
        p = special.expit(a * (theta[:, None] - b))
        f = (a * p).sum(1) - r
        d = (a**2 * p * (1 - p)).sum(1)
        step = f / d
        theta = theta - np.clip(step, -2, 2)
        if np.max(np.abs(step)) < 1e-12:
            break
    return theta


def ability_se(theta: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Standard error of each ability θ: 1/√I(θ), I(θ) = Σ_i a_i² P_i(θ)(1 − P_i(θ)) the test
    information at θ (Lord 1980, §5)."""
    p = special.expit(a * (np.atleast_1d(theta)[:, None] - b))
    return 1.0 / np.sqrt((a**2 * p * (1 - p)).sum(1))


def wle_ability(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Warm's (1989) weighted likelihood estimate: Σ a(x − P) + J/(2I) = 0, J = Σ a³P(1−P)(1−2P),
    I = Σ a²P(1−P) (finite for all-right and all-wrong answers)."""
    def eq(t: float) -> float:
        p = special.expit(a * (t - b))
        w = p * (1 - p)
        return float((a * (x - p)).sum() + (a**3 * w * (1 - 2 * p)).sum()
                     / (2 * (a**2 * w).sum()))
    lo, hi = b.min() - 30, b.max() + 30
    return float(optimize.brentq(eq, lo, hi, xtol=1e-13))


def ability_one(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[float, float, bool]:
    """(θ, se, extreme) of one system from its 0/1 answers ``x`` on items of discrimination
    ``a`` and difficulty ``b``: the ML ability (:func:`ml_abilities`) when it has some items
    right and some wrong, else Warm's WLE (:func:`wle_ability`) with ``extreme`` True."""
    r = float(a @ x)
    if x.min() == x.max():
        t = wle_ability(x, a, b)
        return t, float(ability_se(np.array([t]), a, b)[0]), True
    t = float(ml_abilities(np.array([r]), a, b)[0])
    return t, float(ability_se(np.array([t]), a, b)[0]), False
