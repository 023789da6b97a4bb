"""A Bradley–Terry leaderboard (:class:`~ranger_eval.verdicts.bradley_terry.Ratings`) as
Markdown, LaTeX, plain CSV and JSON (``ranger-eval arena``): the numbers of the result, never
recomputed."""
from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd

from .tables import latex_escape, latex_table, plain_csv

__all__ = ["arena_csv", "arena_json", "arena_latex", "arena_markdown", "arena_caption"]


def _ci(lo: float, hi: float) -> str:
    return "–" if not (math.isfinite(lo) and math.isfinite(hi)) else f"[{lo:.1f}, {hi:.1f}]"


def _ranks(lo: float, hi: float) -> str:
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "–"
    return f"{int(lo)}" if lo == hi else f"{int(lo)}–{int(hi)}"


def arena_caption(ratings: Any) -> str:
    """How the leaderboard was made, in one paragraph."""
    ties = ("ties count half a win for each model (as FastChat)" if ratings.ties == "half"
            else f"ties by Davidson's model (ν = {ratings.tie_parameter:.4g})")
    anchor = ("the mean rating is " f"{ratings.init_rating:g}" if ratings.anchor is None
              else f"{ratings.anchor[0]} is fixed at {ratings.anchor[1]:g}")
    boot = (f"{ratings.level * 100:g} % percentile intervals from {ratings.n_bootstrap} "
            f"bootstrap rounds (seed {ratings.seed})" if ratings.n_bootstrap else "no bootstrap")
    failed = (f"; {ratings.n_bootstrap_failed} rounds without finite ratings left out"
              if ratings.n_bootstrap_failed else "")
    return (f"Bradley–Terry maximum-likelihood ratings of {len(ratings.ratings)} models from "
            f"{ratings.n_battles:,} battles; {ties}; Elo scale {ratings.scale:g}, base "
            f"{ratings.base:g}, {anchor}; {boot}{failed}. Rank interval: 1 + the models whose "
            "lower bound is above this model's upper bound, to the number of models minus "
            "those whose upper bound is below its lower bound. se: sandwich standard error.")


def arena_markdown(ratings: Any) -> str:
    """The leaderboard table with intervals, the rank sentence of the best model, the caption
    and the signature."""
    board = ratings.to_frame()
    lines = ["# Arena leaderboard", ""]
    if len(board) and math.isfinite(board.rank_low.iloc[0]):
        lines += [f"{board.model.iloc[0]}: {ratings.rank_sentence(board.model.iloc[0])}.", ""]
    lines += ["| model | rating | CI | se | rank | battles |", "|---|---:|---:|---:|---:|---:|"]
    for row in board.itertuples(index=False):
        model = str(row.model).replace("|", "\\|")
        lines.append(f"| {model} | {row.rating:.1f} | {_ci(row.ci_low, row.ci_high)} | "
                     f"{row.se:.1f} | {_ranks(row.rank_low, row.rank_high)} | "
                     f"{int(row.n_battles):,} |")
    lines += ["", arena_caption(ratings), "", f"`{ratings.signature}`", ""]
    return "\n".join(lines)


def arena_latex(ratings: Any) -> str:
    """The leaderboard as a booktabs table with the caption and the signature."""
    board = ratings.to_frame()
    rows = [[latex_escape(r.model), f"{r.rating:.1f}", latex_escape(_ci(r.ci_low, r.ci_high)),
             f"{r.se:.1f}", latex_escape(_ranks(r.rank_low, r.rank_high)), f"{int(r.n_battles)}"]
            for r in board.itertuples(index=False)]
    return latex_table(["Model", "Rating", "CI", "se", "Rank", "Battles"], rows, "lrrrrr",
                       caption=latex_escape(arena_caption(ratings)), label="tab:arena",
                       signature=str(ratings.signature))


def arena_csv(ratings: Any) -> str:
    """The leaderboard as plain CSV (one row per model, best first)."""
    return plain_csv(pd.DataFrame(ratings.to_frame()))


def arena_json(ratings: Any) -> str:
    """The full result (``Ratings.to_dict``) as JSON; NaN (no bootstrap) is written as null."""
    def clean(value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        if hasattr(value, "item"):
            return clean(value.item())
        return value

    return json.dumps({"result": clean(ratings.to_dict()), "signature": str(ratings.signature)},
                      indent=2, allow_nan=False) + "\n"
