"""Tables and reports: Markdown, LaTeX, HTML and CSV renderings of result objects.

``to_markdown(result)``, ``to_latex``, ``to_html`` and ``to_csv`` render a Comparison, a
Leaderboard or a MetaResult; every rendering carries the result's signature. Reports never
compute statistics: they format the fields of the result objects they are given. The
renderings of rankings (:mod:`ranger_eval.report.ranking`) are imported when first used: they
import :mod:`ranger_eval.aggregate`, which a comparison or meta-analysis does not need.
"""
from typing import Any

from .meta import meta_markdown
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
    leaderboard_latex,
    leaderboard_markdown,
    to_csv,
    to_html,
    to_latex,
    to_markdown,
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
    "leaderboard_latex",
    "leaderboard_markdown",
    "meta_markdown",
    "rank_test_latex",
    "rank_test_markdown",
    "ranking_latex",
    "ranking_markdown",
    "to_csv",
    "to_html",
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
