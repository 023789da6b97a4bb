"""A Bradley–Terry leaderboard (:class:`~ranger_eval.verdicts.bradley_terry.Ratings`) as
Markdown, LaTeX, plain CSV and JSON (``ranger-eval arena``): the numbers of the result, never
recomputed."""
from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd

from ..verdicts.bradley_terry import Ratings
from .registry import to_csv, to_json, to_latex, to_markdown
from .tables import latex_escape, latex_table, plain_csv

__all__ = ["RANK_TEXT", "arena_caption", "arena_dict", "leaderboard_sentences", "rank_sentences",
           "relative_header", "style_caption"]

#: Most models whose rank interval :func:`rank_sentences` states one by one (the table has all).
SENTENCE_MODELS = 20


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
    unit = {"items": "item", "datasets": "dataset"}.get(ratings.resample)
    units = f"{unit}s" if unit else None
    over = (f" over {unit}s (every battle of a {unit} drawn together, as its battles share its "
            "scores)" if unit else "")
    if ratings.resample.startswith("cluster("):   # the design's unit (ranger_eval.design)
        name = ratings.resample[len("cluster("):-1]
        units = f"clusters ({name})"
        over = (f" over clusters ({name}): every battle of the items of one {name} drawn "
                "together, as they share its scores")
    boot = (f"{ratings.level * 100:g} % percentile intervals from {ratings.n_resamples} "
            f"bootstrap rounds{over} (seed {ratings.seed})" if ratings.n_resamples
            else "no bootstrap")
    failed = (f"; {ratings.n_resamples_failed} rounds without finite ratings left out"
              if ratings.n_resamples_failed else "")
    made = ""
    if ratings.source == "scores(items)":
        made = (" made from per-item scores (every item a battle between every pair of systems "
                "scored on it, won by the better score, equal scores a tie)")
    elif ratings.source == "scores(datasets)":
        made = (" made from a dataset-level table (every dataset a battle between every pair of "
                "systems with a result on it, won by the better result, equal results a tie)")
    return (f"Bradley–Terry maximum-likelihood ratings of {len(ratings.ratings)} models from "
            f"{ratings.n_battles:,} battles{made}; {ties}; Elo scale {ratings.scale:g}, base "
            f"{ratings.base:g}, {anchor}; {boot}{failed}. Ratings, se and CI are "
            f"{ratings.reference_text}. {RANK_TEXT} se: sandwich standard error"
            + (f" (scores summed within {units})" if units else "") + ".")


#: How the rank intervals are made, in words (captions of the tables, the figure, the HTML).
RANK_TEXT = ("Rank interval: simultaneous, from the models' ranks in every bootstrap round "
             "(Mandel & Betensky's percentile bootstrap); like the win probabilities it does not "
             "depend on the anchor or the mean rating.")


def relative_header(ratings: Any) -> str:
    """The CI column's header: ``CI (vs mean)`` or ``CI (vs MODEL)`` (the anchor)."""
    return "CI (vs mean)" if ratings.anchor is None else f"CI (vs {ratings.anchor[0]})"


def rank_sentences(ratings: Any) -> list[str]:
    """The verdict in words (:func:`leaderboard_sentences` of the result's leaderboard)."""
    return leaderboard_sentences(ratings.to_frame().to_dict(orient="records"), ratings.level)


def leaderboard_sentences(board: list[dict[str, Any]], level: float) -> list[str]:
    """The verdict in words from the leaderboard rows (best first; keys ``model``, ``rating``,
    ``rank_low``, ``rank_high``): which models the rank intervals leave in first place, and
    each model's rank interval (``"B: rank 1–3 of 12 (95 % rank interval)"``; the first
    :data:`SENTENCE_MODELS` models by rating). Empty without a bootstrap (no intervals). The
    Markdown and the HTML report (from the JSON) both say it this way."""
    def finite(v: Any) -> bool:
        return isinstance(v, (int, float)) and math.isfinite(v)

    if not board or not finite(board[0].get("rank_low")):
        return []
    n = len(board)
    top = str(board[0]["model"])
    shared = [str(r["model"]) for r in board[1:] if finite(r.get("rank_low"))
              and int(r["rank_low"]) == 1]
    shown = f"{level * 100:g} %"
    if not shared:
        first = (f"{top} has the highest rating ({float(board[0]['rating']):.1f}) and its "
                 f"{shown} rank interval is rank 1 alone: the bootstrap intervals separate "
                 "it from every other model.")
    else:
        names = ", ".join(shared[:5]) + (f" and {len(shared) - 5} more" if len(shared) > 5
                                         else "")
        first = (f"{top} has the highest rating ({float(board[0]['rating']):.1f}), but the "
                 f"{shown} rank intervals do not separate it from {names}, which may rank "
                 "first too.")
    each = "; ".join(
        f"{r['model']}: rank {_ranks(float(r['rank_low']), float(r['rank_high']))} of {n} "
        f"({shown} rank interval)" for r in board[:SENTENCE_MODELS])
    more = f"; {n - SENTENCE_MODELS} more in the table" if n > SENTENCE_MODELS else ""
    return [first, f"{each}{more}."]


def _arena_markdown(ratings: Any, *, title: str = "Arena leaderboard") -> str:
    """The leaderboard table with intervals, the verdicts in words (:func:`rank_sentences`),
    the caption and the signature."""
    board = ratings.to_frame()
    lines = [f"# {title}", ""]
    for sentence in rank_sentences(ratings):
        lines += [sentence, ""]
    ci_head = relative_header(ratings).replace("|", "\\|")
    styled = ratings.uncontrolled is not None
    extra = " without style control | its CI | its rank |" if styled else ""
    lines += [f"| model | rating | {ci_head} | se | rank | battles |{extra}",
              "|---|---:|---:|---:|---:|---:|" + ("---:|---:|---:|" if styled else "")]
    for row in board.itertuples(index=False):
        model = str(row.model).replace("|", "\\|")
        plain = (f" {row.rating_uncontrolled:.1f} | "
                 f"{_ci(row.ci_low_uncontrolled, row.ci_high_uncontrolled)} | "
                 f"{_ranks(row.rank_low_uncontrolled, row.rank_high_uncontrolled)} |"
                 if styled else "")
        lines.append(f"| {model} | {row.rating:.1f} | {_ci(row.ci_low, row.ci_high)} | "
                     f"{row.se:.1f} | {_ranks(row.rank_low, row.rank_high)} | "
                     f"{int(row.n_battles):,} |{plain}")
    lines += ["", arena_caption(ratings), ""]
    if ratings.coefficients is not None:
        lines += ["## Style coefficients", "",
                  f"| covariate | given as | log-odds per sd | Elo per sd | se | "
                  f"{ratings.level * 100:g} % CI | p |", "|---|---|---:|---:|---:|---:|---:|"]
        for c in ratings.coefficients.itertuples(index=False):
            lines.append(f"| {c.covariate} | {c.kind} | {c.estimate:.4f} | {c.elo:.1f} | "
                         f"{c.se:.4f} | {_ci4(c.ci_low, c.ci_high)} | {c.pvalue:.3g} |")
        lines += ["", style_caption(ratings), ""]
    lines += [f"`{ratings.signature}`", ""]
    return "\n".join(lines)


def _ci4(lo: float, hi: float) -> str:
    return "–" if not (math.isfinite(lo) and math.isfinite(hi)) else f"[{lo:.4f}, {hi:.4f}]"


def style_caption(ratings: Any) -> str:
    """What style control did, in one paragraph (Markdown, HTML)."""
    names = ", ".join(ratings.covariates)
    return (f"Style control: the ratings hold the effects of {names} at zero (the average "
            "style difference); each covariate is model_a's response minus model_b's (a pair "
            "NAME_a/NAME_b as (a − b)/(a + b + 1), as FastChat), standardised to mean 0 and sd "
            "1 over the battles (as LMArena), fitted jointly with the ratings by maximum "
            "likelihood (no penalty). Coefficient: change in the log-odds of winning per sd "
            "(Elo: the same in rating points); se sandwich, CI bootstrap percentile, p Wald. "
            "'Without style control': the same battles rated without covariates.")


def _arena_latex(ratings: Any) -> str:
    """The leaderboard as a booktabs table with the caption and the signature."""
    board = ratings.to_frame()
    styled = ratings.uncontrolled is not None
    rows = [[latex_escape(r.model), f"{r.rating:.1f}", latex_escape(_ci(r.ci_low, r.ci_high)),
             f"{r.se:.1f}", latex_escape(_ranks(r.rank_low, r.rank_high)), f"{int(r.n_battles)}"]
            + ([f"{r.rating_uncontrolled:.1f}",
                latex_escape(_ranks(r.rank_low_uncontrolled, r.rank_high_uncontrolled))]
               if styled else [])
            for r in board.itertuples(index=False)]
    caption = arena_caption(ratings) + (" " + style_caption(ratings) if styled else "")
    return latex_table(["Model", "Rating", latex_escape(relative_header(ratings)), "se", "Rank",
                        "Battles"] + (["Rating (no style control)", "Rank (no style control)"]
                                      if styled else []),
                       rows, "lrrrrr" + ("rr" if styled else ""),
                       caption=latex_escape(caption), label="tab:arena",
                       signature=str(ratings.signature))


def _arena_csv(ratings: Any) -> str:
    """The leaderboard as plain CSV (one row per model, best first)."""
    return plain_csv(pd.DataFrame(ratings.to_frame()))


def arena_dict(ratings: Any) -> dict[str, Any]:
    """``Ratings.to_dict`` with every NaN (no bootstrap, the win-probability diagonal) as None
    and numpy scalars as Python numbers: ready for strict JSON."""
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

    cleaned: dict[str, Any] = clean(ratings.to_dict())
    return cleaned


def _arena_json(ratings: Any) -> str:
    """The full result (``Ratings.to_dict``) as JSON; NaN (no bootstrap) is written as null."""
    return json.dumps({"result": arena_dict(ratings), "signature": str(ratings.signature)},
                      indent=2, allow_nan=False) + "\n"


to_markdown.register(Ratings)(_arena_markdown)
to_latex.register(Ratings)(_arena_latex)
to_csv.register(Ratings)(_arena_csv)
to_json.register(Ratings)(_arena_json)
