"""``ranger-eval demo``: the meta-analysis and the ranking on two synthetic examples the project
generates itself (:func:`run_demo`)."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .. import report
from ..demo import write_demo, write_multi_demo
from ._common import _whole
from ._run import CommandRun
from .meta import run_meta
from .rank import run_rank

__all__ = ["demo_summary", "run_demo"]


def run_demo(out: str | Path, seed: int = 2023, command: str | None = None,
             figures: Sequence[str] | str | None = None, html: bool = False) -> CommandRun:
    """``ranger-eval demo``: two synthetic examples the project generates itself.

    1. the meta-analysis of a compressed vs a baseline model on six tasks (``out/``, data in
       ``out/example``);
    2. the ranking of five systems over four datasets and three metrics, a code-completion-like
       setting (``out/ranking/``, data in ``out/example/multi``), ending in the ranking graph.

    The run's ``parts`` are the two commands' runs, ``meta`` and ``rank``; its ``result`` is the
    meta-analysis' (an :class:`~ranger_eval.pipeline.ExperimentResult`), its ``written`` and
    ``warnings`` those of both (meta's first).

    Parameters
    ----------
    out : str or Path
        The output folder.
    seed : int, default 2023
        The seed of the synthetic data.
    command : str or None, default None
        The command line, recorded in the manifest.
    figures : sequence of str, str or None, default None
        Figure formats or ``"none"``.
    html : bool, default False
        Also write ``report.html``.

    Returns
    -------
    CommandRun
        The run (see above).

    Examples
    --------
    >>> import tempfile
    >>> from ranger_eval.pipeline import run_demo
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     run = run_demo(folder, figures="none")
    >>> run.command, sorted(run.parts)
    ('demo', ['meta', 'rank'])
    """
    seed = _whole("seed", seed, 0)
    yaml_path = write_demo(Path(out) / "example", seed=seed)
    multi = write_multi_demo(Path(out) / "example" / "multi", seed=seed)
    rank = run_rank(multi, Path(out) / "ranking", command, figures)
    meta = run_meta(yaml_path, out, command, figures, html)  # its report includes ranking/
    return CommandRun(meta.result, meta.written + rank.written, meta.warnings + rank.warnings,
                      None, "demo", {"meta": meta, "rank": rank})


def demo_summary(run: CommandRun) -> str:
    """What ``ranger-eval demo`` prints after saying where the data are: the meta-analysis'
    summary, then (after an empty line) the ranking of the second example.

    Parameters
    ----------
    run : CommandRun
        The run of :func:`run_demo`.

    Returns
    -------
    str
        The text printed.

    Examples
    --------
    >>> import tempfile
    >>> from ranger_eval.pipeline import demo_summary, run_demo
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     text = demo_summary(run_demo(folder, figures="none"))
    >>> "\\n\\n" in text
    True
    """
    return (run.parts["meta"].result.result.summary() + "\n\n"
            + report.to_markdown(run.parts["rank"].parts["ranking"]))
