"""The one report registry: :func:`to_markdown`, :func:`to_latex`, :func:`to_csv`,
:func:`to_json` (and :func:`to_html` for the tables that have an HTML form) render every
result type the commands write.

Each is a :func:`functools.singledispatch` function; the per-type renderers (``_arena_markdown``,
``_aso_json``, ``comparison_csv`` …) are its registered implementations, in the module of their
result family (private where nothing but the registry calls them):

============================  =============================================  ==================
result type                   registered in                                  command
============================  =============================================  ==================
``Comparison``, ``Leaderboard``  :mod:`ranger_eval.report.tables`            ``compare``
``MetaResult``                :mod:`ranger_eval.report.meta`                 ``meta``, ``demo``
``RankTest``, ``BayesianRankTest``, ``Ranking``, ``WinRate``  :mod:`~ranger_eval.report.ranking`  ``rank``
``Ratings`` (Bradley–Terry)   :mod:`ranger_eval.report.arena`                ``arena``, ``rank``
``ASOAnalysis``, ``BayesAnalysis``  :mod:`ranger_eval.report.verdicts`       ``aso``, ``bayes``
``Plan``, ``PilotPlan``       :mod:`ranger_eval.report.plan`                 ``plan``
``AgreementResult``, ``AltTestResult``  :mod:`~ranger_eval.report.llm_agreement`  ``agree``
``VarianceComponents``        :mod:`ranger_eval.report.llm_variance`         (Python)
``IRTResult``                 :mod:`ranger_eval.report.budget_irt`           (Python)
``ConfidenceSequence``, ``MonitorResult``  :mod:`~ranger_eval.report.budget_monitor`  ``monitor``
``SubsetEstimate``, ``SubsetChoice``  :mod:`~ranger_eval.report.budget_subset`  ``estimate``
============================  =============================================  ==================

A pipeline module calls only these generic functions. The modules that register result types
of layers a comparison does not need (aggregate, verdicts, the power analysis) are imported on
the first result of a type not yet registered (:data:`LAZY_RENDERINGS`), so that rendering a
comparison does not import them (import time of ``ranger-eval compare``).
"""
from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from functools import singledispatch
from typing import Any

from ..errors import ReportError

__all__ = ["LAZY_RENDERINGS", "to_csv", "to_html", "to_json", "to_latex", "to_markdown"]

#: Modules that register renderings for result types of layers imported only when used.
LAZY_RENDERINGS = ("ranger_eval.report.meta", "ranger_eval.report.ranking",
                   "ranger_eval.report.arena", "ranger_eval.report.verdicts",
                   "ranger_eval.report.plan", "ranger_eval.report.llm_agreement",
                   "ranger_eval.report.llm_variance", "ranger_eval.report.budget_irt",
                   "ranger_eval.report.budget_monitor", "ranger_eval.report.budget_subset")


def _unsupported(kind: str) -> Callable[..., str]:
    def render(result: Any, *args: Any, **kwargs: Any) -> str:
        dispatcher = _DISPATCHERS[kind]
        for name in LAZY_RENDERINGS:
            if name not in sys.modules:
                importlib.import_module(name)
                if dispatcher.dispatch(type(result)) is not render:
                    return str(dispatcher(result, *args, **kwargs))
        raise ReportError(f"no {kind} rendering for {type(result).__name__}")

    return render


to_markdown = singledispatch(_unsupported("Markdown"))
to_latex = singledispatch(_unsupported("LaTeX"))
to_html = singledispatch(_unsupported("HTML"))
to_csv = singledispatch(_unsupported("CSV"))
to_json = singledispatch(_unsupported("JSON"))
to_markdown.__doc__ = """Markdown report of a result (every result type the commands write).

    Dispatches on the type of ``result`` (:func:`functools.singledispatch`); the registered
    renderings are those of the module table above.

    Parameters
    ----------
    result : Comparison, MetaResult, RankTest, Ranking, Ratings, Plan, …
        A result of the package (see the table of the module for the types and the
        modules that register their renderings).
    *args, **kwargs
        Passed to the type's rendering (e.g. ``signature=``, ``level=``).

    Returns
    -------
    str
        The table, its notes (e.g. the minimum detectable effect of a non-significant pair) and
        the signature.

    Raises
    ------
    ReportError
        No rendering is registered for the type of ``result``.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> from ranger_eval.report import to_markdown
    >>> scores = rg.Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7, 0.75, 0.66],
    ...                                        "b": [0.7, 0.6, 0.82, 0.5, 0.7, 0.69]}})
    >>> comparison = rg.compare(scores, test="paired-t")
    >>> print(to_markdown(comparison).splitlines()[0])
    | dataset | metric | system A | system B | mean A | mean B | diff (A−B) | 95% CI | ...
    >>> to_markdown(3)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.ReportError: no Markdown rendering for int
    """
to_latex.__doc__ = """LaTeX (booktabs) table of a result, with its caption and signature.

    The table needs ``\\usepackage{booktabs,graphicx}`` (its first line says so).

    Parameters
    ----------
    result : Comparison, MetaResult, RankTest, Ranking, Ratings, Plan, …
        A result of the package (see the table of the module for the types and the
        modules that register their renderings).
    *args, **kwargs
        Passed to the type's rendering (e.g. ``signature=``, ``level=``).

    Returns
    -------
    str
        A ``table`` environment.

    Raises
    ------
    ReportError
        No rendering is registered for the type of ``result``.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> from ranger_eval.report import to_latex
    >>> scores = rg.Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7, 0.75, 0.66],
    ...                                        "b": [0.7, 0.6, 0.82, 0.5, 0.7, 0.69]}})
    >>> comparison = rg.compare(scores, test="paired-t")
    >>> print(to_latex(comparison).splitlines()[1])
    \\begin{table}[t]
    """
to_html.__doc__ = """HTML table of a result (Comparison, Leaderboard).

    Other result types raise ReportError: the HTML report (:mod:`ranger_eval.report.html`)
    draws them from their JSON files.

    Parameters
    ----------
    result : Comparison, MetaResult, RankTest, Ranking, Ratings, Plan, …
        A result of the package (see the table of the module for the types and the
        modules that register their renderings).
    *args, **kwargs
        Passed to the type's rendering (e.g. ``signature=``, ``level=``).

    Returns
    -------
    str
        A ``<table>`` element with its caption.

    Raises
    ------
    ReportError
        No rendering is registered for the type of ``result``.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> from ranger_eval.report import to_html
    >>> scores = rg.Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7, 0.75, 0.66],
    ...                                        "b": [0.7, 0.6, 0.82, 0.5, 0.7, 0.69]}})
    >>> comparison = rg.compare(scores, test="paired-t")
    >>> to_html(comparison).splitlines()[0]
    '<table class="ranger-comparison">'
    """
to_csv.__doc__ = """Plain CSV of a result (header on line 1; the signature is ``result.signature``).

    Numbers at full precision, one row per comparison (or per system, dataset, …).

    Parameters
    ----------
    result : Comparison, MetaResult, RankTest, Ranking, Ratings, Plan, …
        A result of the package (see the table of the module for the types and the
        modules that register their renderings).
    *args, **kwargs
        Passed to the type's rendering (e.g. ``signature=``, ``level=``).

    Returns
    -------
    str
        The CSV text.

    Raises
    ------
    ReportError
        No rendering is registered for the type of ``result``.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> from ranger_eval.report import to_csv
    >>> scores = rg.Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7, 0.75, 0.66],
    ...                                        "b": [0.7, 0.6, 0.82, 0.5, 0.7, 0.69]}})
    >>> comparison = rg.compare(scores, test="paired-t")
    >>> to_csv(comparison).splitlines()[0].split(",")[:7]
    ['dataset', 'metric', 'system_a', 'system_b', 'mean_a', 'mean_b', 'diff']
    """
to_json.__doc__ = """The JSON file a command writes for a result: full precision, strict JSON (NaN as null), with the signature.

    The HTML report reads these files (never the Markdown).

    Parameters
    ----------
    result : Comparison, MetaResult, RankTest, Ranking, Ratings, Plan, …
        A result of the package (see the table of the module for the types and the
        modules that register their renderings).
    *args, **kwargs
        Passed to the type's rendering (e.g. ``signature=``, ``level=``).

    Returns
    -------
    str
        The JSON text.

    Raises
    ------
    ReportError
        No rendering is registered for the type of ``result``.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> from ranger_eval.report import to_json
    >>> scores = rg.Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7, 0.75, 0.66],
    ...                                        "b": [0.7, 0.6, 0.82, 0.5, 0.7, 0.69]}})
    >>> comparison = rg.compare(scores, test="paired-t")
    >>> import json
    >>> record = json.loads(to_json(comparison))
    >>> record["kind"], record["systems"], record["level"]
    ('compare', ['a', 'b'], 0.95)
    """
_DISPATCHERS = {"Markdown": to_markdown, "LaTeX": to_latex, "HTML": to_html, "CSV": to_csv,
                "JSON": to_json}


def renderer(dispatcher: Callable[..., str], cls: type) -> Callable[..., str]:
    """The implementation ``dispatcher`` (one of the five) uses for ``cls``, importing the
    modules of :data:`LAZY_RENDERINGS` first: a rendering of ``cls`` or a ReportError."""
    for name in LAZY_RENDERINGS:
        importlib.import_module(name)
    found: Callable[..., str] = dispatcher.dispatch(cls)  # type: ignore[attr-defined]
    if found is dispatcher.dispatch(object):  # type: ignore[attr-defined]
        raise ReportError(f"no rendering for {cls.__name__}")
    return found
