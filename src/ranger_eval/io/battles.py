"""Pairwise battles in LMArena's schema: ``model_a``, ``model_b``, ``winner`` and an optional
``weight`` — checked and encoded for :func:`ranger_eval.bradley_terry`, read from files for
``ranger-eval arena``.

``winner`` is one of ``model_a``, ``model_b``, ``tie``, ``tie (bothbad)`` (case and surrounding
spaces ignored). A model battling itself, an unknown label, a missing or empty model id and a weight
that is not finite and positive are errors naming the row (API) or the file and line (files).
Identifiers are converted once per distinct value, so a million battles cost a few hundred
conversions.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .._frames import as_frame, float_values, id_strings
from ..errors import InputError, RangerError
from ..formatting import preview
from .tables import read_table, row_location

__all__ = ["BATTLE_COLUMNS", "WINNER_LABELS", "Battles", "encode_battles", "read_battles"]

#: The ``winner`` labels of LMArena's battle schema and the outcome each stands for
#: (0: model_a won, 1: model_b won, 2: a tie).
WINNER_LABELS: dict[str, int] = {"model_a": 0, "model_b": 1, "tie": 2, "tie (bothbad)": 2}
BATTLE_COLUMNS = ("model_a", "model_b", "winner")


@dataclass(frozen=True)
class Battles:
    """Encoded battles: model names (sorted), per battle the codes of model_a and model_b, the
    outcome (0/1/2 as :data:`WINNER_LABELS`) and the weight."""

    models: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    weight: np.ndarray


def _column(frame: pd.DataFrame, name: str, what: str, error: type[RangerError]) -> pd.Series:
    if name not in frame.columns:
        raise error(f"{what}: the battles have no {name!r} column; they need model_a, model_b, "
                    f"winner (LMArena's schema) and optionally weight; columns: "
                    f"{preview([str(c) for c in frame.columns])}")
    return frame[name]


def encode_battles(battles: object, *, what: str = "bradley_terry",
                   error: type[RangerError] = InputError,
                   where: Callable[[int], str] | None = None) -> Battles:
    """Check and encode a battles table (module docstring). ``where(row)`` says where a 0-based
    row is in messages (default ``row N``); ``error`` is the class raised."""
    at = where if where is not None else (lambda r: f"row {r}")
    frame = as_frame(battles, what=what, error=error)
    if len(frame) == 0:
        raise error(f"{what}: the battles table is empty")
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
    return Battles(tuple(str(x) for x in models), ca, cb, out, w)


def read_battles(path: str | Path) -> tuple[pd.DataFrame, Battles]:
    """A battles file (CSV, TSV, JSONL, JSON records, Parquet; optionally gzip-compressed),
    checked: the table as read and its encoding. Errors are :class:`InputError` naming the
    file and line (Parquet: the row)."""
    path = Path(path)
    frame = read_table(path, id_columns=BATTLE_COLUMNS)
    battles = encode_battles(frame, what=str(path), error=InputError,
                             where=lambda r: row_location(frame, path, r).replace(
                                 f"{path}:", "line ").replace(f"{path}, ", ""))
    return frame, battles
