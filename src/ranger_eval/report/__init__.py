"""Tables and reports: Markdown, LaTeX, CSV, JSON and HTML renderings of result objects.

One registry (:mod:`ranger_eval.report.registry`): ``to_markdown(result)``, ``to_latex``,
``to_csv`` and ``to_json`` render every result type the commands write (a Comparison, its
Leaderboard, a MetaResult, a rank test, Ranking, WinRate, Bradley–Terry Ratings, an ASO or
Bayesian analysis, a Plan), ``to_html`` the tables that have an HTML form; every rendering
carries the result's signature. Reports never compute statistics: they format the fields of
the result objects they are given. The renderings of the result types of other layers
(rankings, verdicts, plans) are imported when first used: a comparison does not need them.
The one-file HTML report of an output folder (:mod:`ranger_eval.report.html`) reads the JSON
files these functions write.
"""
from typing import Any

from .meta import meta_markdown
from .registry import to_csv, to_html, to_json, to_latex, to_markdown
from .tables import (
    comparison_csv,
    comparison_html,
    comparison_json,
    comparison_json_parts,
    comparison_latex,
    comparison_markdown,
    latex_escape,
    leaderboard_csv,
    leaderboard_html,
    leaderboard_json,
    leaderboard_latex,
    leaderboard_markdown,
    why_both_hold,
)

__all__ = [
    "comparison_csv",
    "comparison_json",
    "comparison_json_parts",
    "comparison_html",
    "comparison_latex",
    "comparison_markdown",
    "latex_escape",
    "leaderboard_csv",
    "leaderboard_html",
    "leaderboard_json",
    "leaderboard_latex",
    "leaderboard_markdown",
    "meta_markdown",
    "rank_test_latex",
    "rank_test_markdown",
    "ranking_latex",
    "ranking_markdown",
    "to_csv",
    "to_html",
    "to_json",
    "to_latex",
    "to_markdown",
    "why_both_hold",
]

_RANKING_NAMES = ("rank_test_latex", "rank_test_markdown", "ranking_latex", "ranking_markdown")


def __getattr__(name: str) -> Any:
    if name in _RANKING_NAMES:
        from . import ranking

        return getattr(ranking, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
