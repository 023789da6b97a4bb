"""Pairwise battles in LMArena's schema: ``model_a``, ``model_b``, ``winner`` and an optional
``weight`` — checked and encoded for :func:`ranger_eval.bradley_terry`, read from files for
``ranger-eval arena``. Pairwise judge preferences (AlpacaEval annotations, MT-Bench pairwise
judgments) are read as battles too (:func:`_judge_preferences`).

``winner`` is one of ``model_a``, ``model_b``, ``tie``, ``tie (bothbad)`` (case and surrounding
spaces ignored). A model battling itself, an unknown label, a missing or empty model id and a weight
that is not finite and positive are errors naming the row (API) or the file and line (files).
Identifiers are converted once per distinct value, so a million battles cost a few hundred
conversions.

**Covariates** (style control, ``covariates=`` of :func:`encode_battles`): each name is either a
ready per-battle difference column ``NAME`` (model_a's feature minus model_b's, used as given,
as LMArena's ``arena-rank`` ``ContextualPairDataset`` takes its feature columns) or a pair of
columns ``NAME_a``/``NAME_b`` (the feature of each side's response, ≥ 0, e.g. its length in
tokens or its number of markdown headers, lists, bold spans), turned into FastChat's relative
difference (``a − b) / (a + b + 1)`` (``preprocess_for_style`` with ``apply_ratio`` and
``add_one``: a 100-token gap counts less between two long answers than between two short
ones). A column given both ways is read as the difference column. A missing or non-finite
value, a non-numeric column and (pairs) a negative feature are errors naming the row; the
standardisation of the differences is the model's (:mod:`ranger_eval.verdicts.bt_covariates`).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._frames import as_frame, float_values, id_strings
from ..errors import InputError, RangerError, suggest
from ..formatting import preview
from .tables import read_table, row_location

__all__ = ["BATTLE_COLUMNS", "WINNER_LABELS", "Battles", "covariate_differences", "encode_battles",
           "read_battles"]

#: The ``winner`` labels of LMArena's battle schema and the outcome each stands for
#: (0: model_a won, 1: model_b won, 2: a tie).
WINNER_LABELS: dict[str, int] = {"model_a": 0, "model_b": 1, "tie": 2, "tie (bothbad)": 2}
BATTLE_COLUMNS = ("model_a", "model_b", "winner", "generator_1", "generator_2", "model_1",
                  "model_2", "g1_winner", "g2_winner")


@dataclass(frozen=True)
class Battles:
    """Encoded battles: model names (sorted), per row the codes of model_a and model_b, the
    outcome (0/1/2 as :data:`WINNER_LABELS`) and the weight.

    ``count`` (optional, whole numbers ≥ 1): how many identical battles each row stands for
    (None: one each), so that a million battles made from per-item scores are a few rows of
    counts (:func:`ranger_eval.verdicts.bradley_terry.battle_counts`); the bootstrap draws
    battles, not rows. ``source`` says where the battles came from, for the signature:
    ``"table"`` (a battles table or file) or ``"scores(items)"`` / ``"scores(datasets)"``
    (every item, or every dataset of a dataset-level table, a battle between every pair of
    systems scored there).

    ``cluster_rows`` and ``cluster_count`` (optional, together): battles that come in clusters
    (the battles of one item share its scores) as distinct cluster patterns — a sparse
    patterns × rows matrix of how many battles of each row one cluster holds, and how many
    clusters have each pattern — so the bootstrap resamples whole clusters (items), not single
    battles, and the sandwich sums the scores within a cluster. ``count`` is then
    ``cluster_count @ cluster_rows``. ``unit`` names what a cluster is when it is not one
    item: ``cluster(NAME)`` for scores with a cluster column (:mod:`ranger_eval.design`: the
    battles of all items of one passage, conversation … are drawn together); None for items
    (or datasets) and for independent battles."""

    models: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    weight: np.ndarray
    count: np.ndarray | None = None
    source: str = "table"
    cluster_rows: Any = None
    cluster_count: np.ndarray | None = None
    unit: str | None = None
    #: battles × covariates: each battle's covariate differences (model_a's side minus model_b's,
    #: before standardisation; module docstring), None without covariates
    covariates: np.ndarray | None = None
    #: the covariates' names, and how each was given: ``"difference"`` (one column) or
    #: ``"pair"`` (``NAME_a``/``NAME_b``, relative difference)
    covariate_names: tuple[str, ...] = ()
    covariate_kinds: tuple[str, ...] = ()


def _numbers(frame: pd.DataFrame, column: str, name: str, what: str,
             error: type[RangerError], at: Callable[[int], str]) -> np.ndarray:
    values, bad = float_values(frame[column])
    if bad is not None:
        raise error(f"{what}: covariate {name}: column {column}: {bad.problem} {bad.shown} at "
                    f"{at(bad.first)}{bad.more()}")
    missing = np.flatnonzero(~np.isfinite(values))
    if missing.size:
        r = int(missing[0])
        raise error(f"{what}: covariate {name}: column {column} is {values[r]!r} at {at(r)} "
                    f"({missing.size} such row(s)); every battle needs a finite value (drop "
                    "those battles, or fill them in)")
    return values


def covariate_differences(frame: pd.DataFrame, names: tuple[str, ...], *, what: str,
                          error: type[RangerError] = InputError,
                          at: Callable[[int], str] | None = None
                          ) -> tuple[np.ndarray, tuple[str, ...]]:
    """Battles × covariates: the differences of each named covariate (module docstring: a
    difference column ``NAME``, or ``NAME_a``/``NAME_b`` as (a − b)/(a + b + 1)) and how each
    was given (``"difference"``/``"pair"``)."""
    where = at if at is not None else (lambda r: f"row {r}")
    columns = {str(c): c for c in frame.columns}
    out = np.empty((len(frame), len(names)))
    kinds = []
    for k, name in enumerate(names):
        if name in columns:
            out[:, k] = _numbers(frame, columns[name], name, what, error, where)
            kinds.append("difference")
        elif f"{name}_a" in columns and f"{name}_b" in columns:
            a = _numbers(frame, columns[f"{name}_a"], name, what, error, where)
            b = _numbers(frame, columns[f"{name}_b"], name, what, error, where)
            neg = np.flatnonzero((a < 0) | (b < 0))
            if neg.size:
                r = int(neg[0])
                raise error(f"{what}: covariate {name}: {name}_a/{name}_b must be ≥ 0 (counts "
                            f"or lengths: the relative difference (a − b)/(a + b + 1)); got "
                            f"{a[r]!r}/{b[r]!r} at {where(r)} ({neg.size} such row(s)); give "
                            f"a ready difference column {name} instead")
            out[:, k] = (a - b) / (a + b + 1.0)
            kinds.append("pair")
        else:
            raise error(f"{what}: unknown covariate {name!r}: no column {name!r} (a difference "
                        f"model_a − model_b) and no pair {name}_a/{name}_b; columns: "
                        f"{preview(list(columns))}" + suggest(name, list(columns)))
    return out, tuple(kinds)


def _column(frame: pd.DataFrame, name: str, what: str, error: type[RangerError]) -> pd.Series:
    if name not in frame.columns:
        raise error(f"{what}: the battles have no {name!r} column; they need model_a, model_b, "
                    f"winner (LMArena's schema) and optionally weight; columns: "
                    f"{preview([str(c) for c in frame.columns])}")
    return frame[name]


def encode_battles(battles: object, *, what: str = "bradley_terry",
                   error: type[RangerError] = InputError,
                   where: Callable[[int], str] | None = None,
                   covariates: tuple[str, ...] = ()) -> Battles:
    """Check and encode a battles table (module docstring). ``where(row)`` says where a 0-based
    row is in messages (default ``row N``); ``error`` is the class raised; ``covariates``: the
    names of battle-level covariates to read (:func:`covariate_differences`)."""
    at = where if where is not None else (lambda r: f"row {r}")
    frame = as_frame(battles, what=what, error=error)
    if len(frame) == 0:
        raise error(f"{what}: the battles table is empty")
    cov, kinds = (covariate_differences(frame, tuple(covariates), what=what, error=error, at=at)
                  if covariates else (None, ()))
    frame = _judge_preferences(frame, what, error, at)
    sides = []
    for name in ("model_a", "model_b"):
        column = _column(frame, name, what, error)
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
        if (codes < 0).any():
            r = int(np.flatnonzero(codes < 0)[0])
            raise error(f"{what}: missing {name} at {at(r)} ({int((codes < 0).sum())} such "
                        "row(s))")
        ids, bad = id_strings(pd.Series(np.asarray(uniques, dtype=object)))
        if bad is not None:
            rows = np.flatnonzero(np.isin(codes, bad.rows))
            raise error(f"{what}: {name} {bad.problem} {column.iloc[int(rows[0])]!r} at "
                        f"{at(int(rows[0]))}"
                        + (f" ({rows.size} such rows)" if rows.size > 1 else ""))
        names = ids.to_numpy(dtype=object)
        blank = np.flatnonzero([not str(v).strip() for v in names])
        if blank.size:
            rows = np.flatnonzero(np.isin(codes, blank))
            raise error(f"{what}: empty {name} {str(names[blank[0]])!r} at {at(int(rows[0]))} "
                        f"({rows.size} such row(s)); every battle names two models")
        sides.append((codes, names))
    winner = _column(frame, "winner", what, error)
    wcodes, wuniq = pd.factorize(winner, use_na_sentinel=True)
    known = np.array([WINNER_LABELS.get(str(v).strip().lower(), -1) for v in wuniq] + [-1],
                     dtype=np.int64)
    out = known[wcodes]   # code −1 (a missing label) picks the trailing −1
    unknown = np.flatnonzero(out < 0)
    if unknown.size:
        values = pd.unique(winner.iloc[unknown].astype(str))
        raise error(
            f"{what}: unknown winner {winner.iloc[int(unknown[0])]!r} at {at(int(unknown[0]))} "
            f"({unknown.size} row(s) with unknown labels: {preview([str(v) for v in values])}); "
            f"winner must be one of {', '.join(repr(k) for k in WINNER_LABELS)}")
    models, inverse = np.unique(np.concatenate([sides[0][1], sides[1][1]]).astype(str),
                                return_inverse=True)
    ca = inverse[: sides[0][1].size][sides[0][0]]
    cb = inverse[sides[0][1].size:][sides[1][0]]
    self_play = np.flatnonzero(ca == cb)
    if self_play.size:
        r = int(self_play[0])
        raise error(f"{what}: model {str(models[ca[r]])!r} battles itself at {at(r)} "
                    f"({self_play.size} such row(s)); a battle needs two different models")
    if "weight" in frame.columns:
        w, badw = float_values(frame["weight"])
        if badw is not None:
            raise error(f"{what}: weight: {badw.problem} {badw.shown} at {at(badw.first)}"
                        f"{badw.more()}")
        nonpos = np.flatnonzero(~(np.isfinite(w) & (w > 0)))
        if nonpos.size:
            r = int(nonpos[0])
            raise error(f"{what}: weight {float(w[r])!r} at {at(r)} ({nonpos.size} such "
                        "row(s)); weights must be finite and positive (drop the battle instead "
                        "of giving it weight 0)")
    else:
        w = np.ones(len(frame))
    return Battles(tuple(str(x) for x in models), ca, cb, out, w, covariates=cov,
                   covariate_names=tuple(covariates) if covariates else (),
                   covariate_kinds=kinds)


def _judge_preferences(frame: pd.DataFrame, what: str, error: type[RangerError],
                       at: Callable[[int], str]) -> pd.DataFrame:
    """Pairwise judge preferences as battles (the frame unchanged when it has ``winner``):

    - AlpacaEval annotations (``generator_1``, ``generator_2``, ``preference``): preference 1
      is a win of generator_1, 2 of generator_2, 1.5 a tie (alpaca_eval's convention);
    - MT-Bench pairwise judgments (FastChat llm_judge: ``model_1``, ``model_2``, ``g1_winner``,
      ``g2_winner``, the judge asked in both orders): a win when both orders agree, a tie when
      they disagree or say tie (FastChat's ``show_result`` with ties for inconsistent verdicts).

    A probability preference (strictly between 1 and 2 but not 1.5), a missing preference and
    a judge error are errors naming the row: a failed annotation is never read as a tie.
    """
    if "winner" in frame.columns:
        return frame
    cols = set(map(str, frame.columns))
    if {"generator_1", "generator_2", "preference"} <= cols:
        pref, bad = float_values(frame["preference"])
        if bad is not None:
            raise error(f"{what}: preference: {bad.problem} {bad.shown} at {at(bad.first)}"
                        f"{bad.more()}")
        ok = np.isin(pref, (1.0, 1.5, 2.0))
        if not ok.all():
            r = int(np.flatnonzero(~ok)[0])
            raise error(f"{what}: preference {float(pref[r])!r} at {at(r)} "
                        f"({int((~ok).sum())} such row(s)); Bradley–Terry battles take 1 "
                        "(generator_1 preferred), 2 (generator_2) or 1.5 (a tie); probability "
                        "preferences of a log-probability judge are not battles")
        winner = np.where(pref == 1.0, "model_a", np.where(pref == 2.0, "model_b", "tie"))
        return pd.DataFrame({"model_a": frame["generator_1"], "model_b": frame["generator_2"],
                             "winner": winner})
    if {"model_1", "model_2", "g1_winner", "g2_winner"} <= cols:
        g1 = frame["g1_winner"].astype(str).str.strip().str.lower().to_numpy()
        g2 = frame["g2_winner"].astype(str).str.strip().str.lower().to_numpy()
        labels = ("model_1", "model_2", "tie")
        for name, g in (("g1_winner", g1), ("g2_winner", g2)):
            badrow = np.flatnonzero(~np.isin(g, labels))
            if badrow.size:
                r = int(badrow[0])
                raise error(f"{what}: {name} {frame[name].iloc[r]!r} at {at(r)} "
                            f"({badrow.size} such row(s)); MT-Bench verdicts are model_1, "
                            "model_2 or tie (a judge error is not a tie: drop the row)")
        winner = np.where((g1 == g2) & (g1 == "model_1"), "model_a",
                          np.where((g1 == g2) & (g1 == "model_2"), "model_b", "tie"))
        return pd.DataFrame({"model_a": frame["model_1"], "model_b": frame["model_2"],
                             "winner": winner})
    return frame


def read_battles(path: str | Path, covariates: tuple[str, ...] = ()
                 ) -> tuple[pd.DataFrame, Battles]:
    """A battles file (CSV, TSV, JSONL, JSON records, Parquet; optionally gzip-compressed),
    checked: the table as read and its encoding (with ``covariates``: those columns too).
    Errors are :class:`InputError` naming the file and line (Parquet: the row)."""
    path = Path(path)
    frame = read_table(path, id_columns=BATTLE_COLUMNS)
    battles = encode_battles(frame, what=str(path), error=InputError, covariates=covariates,
                             where=lambda r: row_location(frame, path, r).replace(
                                 f"{path}:", "line ").replace(f"{path}, ", ""))
    return frame, battles
