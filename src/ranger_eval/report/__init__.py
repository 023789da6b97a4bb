"""Tables and reports: Markdown, LaTeX, HTML and CSV renderings of results."""
from .tables import (
    Leaderboard,
    build_leaderboard,
    comparison_csv,
    comparison_html,
    comparison_latex,
    comparison_markdown,
    latex_escape,
    system_letters,
)

__all__ = [
    "Leaderboard",
    "build_leaderboard",
    "comparison_csv",
    "comparison_html",
    "comparison_latex",
    "comparison_markdown",
    "latex_escape",
    "system_letters",
]
