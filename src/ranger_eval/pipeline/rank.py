"""``ranger-eval rank``: which system is best over datasets (and metrics): Demšar's rank test,
the IBM post-op ranking of per-item scores, the Bradley–Terry leaderboard and HELM's win rates
of the rank's metric (:func:`run_rank`), and their tables and figures
(:func:`write_rank_outputs`).

Imported when needed, not at the top: the figures' modules (:mod:`ranger_eval.plots`, with
matplotlib: 0.36 s; not with ``--figures none``) and ``pyarrow.parquet`` (32 ms; a Parquet
input only).
"""
from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import report
from ..aggregate import aggregate_metrics, metric_direction, rank_systems, rank_test, win_rate
from ..errors import ConfigError, InputError, VerdictError
from ..io import Experiment, adapters, load_experiment, read_scores
from ..io.files import check_input_file
from ..io.tables import ITEM_TABLE, check_ids, is_item_table, read_table, row_location
from ..output import FIGURE_FORMATS, OutputFolder
from ..report.arena import rank_sentences
from ..report.ranking import rank_parts
from ..scores import Scores
from ..settings import CompareSettings, RankSettings, settings_fields
from ..verdicts.battle_counts import battle_counts, table_battle_counts
from ..verdicts.bradley_terry import bradley_terry
from ._common import (
    YAML_SUFFIXES,
    _checked_system_from,
    _experiment_inputs,
    _experiment_scores,
    _shown,
    _system_from_override,
    collecting_warnings,
    display_names,
    finish_outputs,
    option_error,
    parse_bounds,
    scores_of_metrics,
    settings_options,
    with_display_names,
    with_option_bounds,
)
from ._run import CommandRun

__all__ = ["RANK_OUTPUTS", "bradley_terry_figure", "cd_figure", "rank_bradley_terry",
           "rank_options", "rank_settings", "rank_summary", "read_rank_input", "run_rank",
           "write_rank_outputs"]


# --------------------------------------------------------------------------- ranking
#: Files written by ``ranger-eval rank`` (``graph.*`` only for per-item scores).
RANK_OUTPUTS: tuple[str, ...] = (
    "ranking.md", "ranking.csv", "ranking.json", "ranking.tex", "cd.pdf", "cd.svg", "cd.png",
    "ranktest.md", "ranktest.csv", "ranktest.tex", "graph.pdf", "graph.svg", "graph.png",
    "bradley_terry.md", "bradley_terry.csv", "bradley_terry.tex", "bradley_terry_ratings.pdf",
    "bradley_terry_ratings.svg", "bradley_terry_ratings.png", "winrate.md", "winrate.csv",
    "winrate.tex", "manifest.json",
)



def _is_tidy(frame: pd.DataFrame) -> bool:
    return {"dataset", "system", "value"} <= set(frame.columns)


def _parquet_columns(path: Path) -> set[str]:
    """The column names in a Parquet file's schema (no rows read); none when the schema cannot
    be read (reading the whole file then names the problem). The file passes the checks of
    every input first (a regular file within the size limits)."""
    import pyarrow.parquet as pq  # 32 ms: a Parquet input only

    check_input_file(path, what="table")
    try:
        return set(pq.read_schema(path).names)
    except (OSError, ValueError):  # pyarrow's ArrowIOError / ArrowInvalid
        return set()


def read_rank_input(path: str | Path, system_from: str | None = None,
                    cluster: str | None = None, metrics: Sequence[str] | None = None
                    ) -> tuple[Scores | None, pd.DataFrame | None, Experiment | None]:
    """(per-item Scores, dataset-level table, experiment) from a YAML, a tidy table with an
    ``item`` column, an evaluation tool's output or a folder of logs (their systems named by
    ``system_from``), a tidy dataset-level table (``dataset, system, value``), or a wide table
    (rows = datasets, columns = systems, first column the dataset names). ``cluster`` names
    the field of each item's cluster (``--cluster``: per-item scores only).

    Parameters
    ----------
    path : str or Path
        The input (YAML, tidy table, tool's output or folder, dataset-level table).
    system_from : str or None, default None
        Where the systems of logs are named (``--system-from``).
    cluster : str or None, default None
        The field of each item's cluster (``--cluster``).
    metrics : sequence of str or None, default None
        ``--metric``: these metrics of per-item scores, ``pass@K`` / ``pass^K`` per item over
        the samples (:func:`~ranger_eval.pipeline._common.scores_of_metrics`); a YAML's own
        ``metrics:`` when None; an error for a dataset-level table.

    Returns
    -------
    tuple of (Scores or None, DataFrame or None, Experiment or None)
        Per-item scores or the dataset-level table (the other None), and the experiment of a YAML.

    Raises
    ------
    RangerError
        An unreadable input, or ``cluster`` with a dataset-level table.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> table = Path(folder.name, "wide.csv")
    >>> _ = table.write_text("dataset,a,b,c\\nd1,0.61,0.70,0.52\\nd2,0.55,0.66,0.58\\n"
    ...                      "d3,0.72,0.79,0.60\\nd4,0.48,0.45,0.50\\nd5,0.66,0.71,0.59\\n")
    >>> from ranger_eval.pipeline import read_rank_input
    >>> scores, wide, exp = read_rank_input(table)
    >>> scores is None, wide.shape, exp is None
    (True, (5, 3), True)
    >>> folder.cleanup()
    """
    path = Path(path)
    with_cluster = {} if cluster is None else {"cluster": cluster}
    if path.suffix.lower() in YAML_SUFFIXES:
        exp = load_experiment(path, **_system_from_override(system_from), **with_cluster)
        if metrics is None:
            metrics = exp.settings(CompareSettings).metrics
        return _experiment_scores(exp, None if metrics is None else list(metrics)), None, exp
    if path.is_dir() or adapters.input_format(path) is not None:  # tool output(s): per item
        return scores_of_metrics(read_scores(path, system_from=_checked_system_from(system_from),
                                             cluster=cluster), metrics, path), None, None
    if path.suffix.lower() == ".parquet" and set(ITEM_TABLE) <= _parquet_columns(path):
        # per-item scores, told by the schema: read once
        return scores_of_metrics(read_scores(path, cluster=cluster), metrics, path), None, None
    frame = read_table(path)
    if not isinstance(frame.index, pd.RangeIndex):  # a Parquet file written with its index
        frame = frame.reset_index()
    if is_item_table(frame.columns):  # the tables compare and meta read (trec -q's too)
        return scores_of_metrics(read_scores(path, cluster=cluster), metrics, path), None, None
    if metrics:
        raise option_error(
            "metric", f"{path} is a dataset-level table (no item column): --metric selects "
            "the metrics of per-item scores (and pass@K needs several samples per item); "
            "give per-item scores, or filter the table")
    if cluster is not None:
        raise ConfigError(
            f"{path}: --cluster {cluster} groups items, but this is a dataset-level table "
            "(no item column): give per-item scores (dataset, system, item, value and the "
            f"{cluster} column), or leave --cluster out")
    if _is_tidy(frame):
        check_ids(frame, path, ("dataset", "system"))
        return None, frame, None
    if frame.shape[1] < 3:
        raise InputError(
            f"{path}: a rank table needs a first column of dataset names and at least two "
            f"system columns; got columns {', '.join(map(str, frame.columns))}"
        )
    check_ids(frame, path, (frame.columns[0],))
    wide = frame.set_index(frame.columns[0])
    wide.index = wide.index.astype(str)
    wide.index.name = "dataset"
    for col in wide.columns:
        numeric = pd.to_numeric(wide[col], errors="coerce")
        bad = numeric.isna() & wide[col].notna()  # an empty cell is a missing result (rank_test)
        if bad.any():
            r = int(np.flatnonzero(bad.to_numpy())[0])
            raise InputError(
                f"{row_location(frame, path, r)}: system {col!r} on dataset "
                f"{wide.index[r]!r}: not a number "
                f"({wide[col].iloc[r]!r})"
            )
        wide[col] = numeric.astype(float)
    return None, wide, None


def rank_settings(exp: Experiment | None, options: dict[str, Any]) -> RankSettings:
    """Command-line options (not None) over the YAML's ``aggregate:`` section and top-level
    ``level`` (:meth:`Experiment.settings`), over the :class:`RankSettings` defaults.

    Parameters
    ----------
    exp : Experiment or None
        The experiment read; None: a table.
    options : dict of str to object
        The command-line options by field name; None values are not given.

    Returns
    -------
    RankSettings
        The settings the ranking runs with.

    Raises
    ------
    SettingsError
        A value the settings refuse.

    Examples
    --------
    >>> from ranger_eval.pipeline import rank_settings
    >>> rank_settings(None, {"level": 0.9, "seed": None}).level
    0.9
    """
    base = RankSettings() if exp is None else exp.settings(RankSettings)
    unknown = set(options) - set(settings_fields(RankSettings))
    if unknown:
        raise ConfigError(f"unknown ranking option(s): {', '.join(sorted(unknown))}")
    return RankSettings.from_options(rank_options(options), base)


def rank_options(options: dict[str, Any]) -> dict[str, Any]:
    """The command-line options of ``ranger-eval rank`` checked by :class:`RankSettings`' field
    checks, as :func:`compare_options` checks those of ``compare``.

    Parameters
    ----------
    options : dict of str to object
        The command's options by Python name; None values are not given.

    Returns
    -------
    dict of str to object
        A copy of ``options``, each settings value checked and canonical.

    Raises
    ------
    ConfigError
        A bad value, ``option --OPTION: …``.

    Examples
    --------
    >>> from ranger_eval.pipeline import rank_options
    >>> rank_options({"level": 0.9, "out": "results"})
    {'level': 0.9, 'out': 'results'}
    """
    return settings_options(RankSettings, options)


def cd_figure(rank_test: Any, labels: dict[str, str] | None = None) -> Any:
    """The critical-difference diagram of ``ranger-eval rank``
    (:func:`ranger_eval.plots.cd_diagram`), imported when drawn (not with ``--figures none``).

    Parameters
    ----------
    rank_test : RankTest
        The rank test drawn.
    labels : dict of str to str or None, default None
        Display names of the systems.

    Returns
    -------
    matplotlib.figure.Figure
        The diagram.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> table = Path(folder.name, "wide.csv")
    >>> _ = table.write_text("dataset,a,b,c\\nd1,0.61,0.70,0.52\\nd2,0.55,0.66,0.58\\n"
    ...                      "d3,0.72,0.79,0.60\\nd4,0.48,0.45,0.50\\nd5,0.66,0.71,0.59\\n")
    >>> from ranger_eval.pipeline import cd_figure, run_rank
    >>> run = run_rank(table, Path(folder.name, "out"), figures="none")
    >>> fig = cd_figure(run.parts["rank_test"])
    >>> type(fig).__name__
    'Figure'
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    >>> folder.cleanup()
    """
    from ..plots.cd import cd_diagram  # matplotlib: drawn figures only

    return cd_diagram(rank_test, labels=labels)


def write_rank_outputs(rank_test: Any, ranking: Any | None, out: OutputFolder,
                       labels: dict[str, str] | None = None,
                       naive: pd.Series | None = None,
                       bradley_terry: Any | None = None,
                       win_rates: Any | None = None) -> list[Path]:
    """ranking.{md,csv,json,tex}, ranktest.{md,csv,tex}, the CD diagram and the graph; with
    ``bradley_terry`` (a :class:`~ranger_eval.verdicts.Ratings`, or the text of why there is
    none) bradley_terry.{md,csv,tex} and its ratings figure, and its result in ranking.json;
    with ``win_rates`` (a :class:`~ranger_eval.aggregate.WinRate`) winrate.{md,csv,tex} and
    its result in ranking.json (``win_rate``).

    Parameters
    ----------
    rank_test : RankTest or BayesianRankTest
        The rank test.
    ranking : Ranking or None
        The ranking of per-item scores; None for a dataset-level table.
    out : OutputFolder
        Where to write.
    labels : dict of str to str or None, default None
        Display names of the systems.
    naive : Series or None, default None
        The naive ranking by mean, shown beside the ranking.
    bradley_terry : Ratings, str or None, default None
        The Bradley–Terry leaderboard, or why there is none.
    win_rates : WinRate or None, default None
        The win rates.

    Returns
    -------
    list of Path
        The files written (figures once drawn by :meth:`OutputFolder.flush`).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> table = Path(folder.name, "wide.csv")
    >>> _ = table.write_text("dataset,a,b,c\\nd1,0.61,0.70,0.52\\nd2,0.55,0.66,0.58\\n"
    ...                      "d3,0.72,0.79,0.60\\nd4,0.48,0.45,0.50\\nd5,0.66,0.71,0.59\\n")
    >>> from ranger_eval.output import OutputFolder
    >>> from ranger_eval.pipeline import run_rank, write_rank_outputs
    >>> run = run_rank(table, Path(folder.name, "out"), figures="none")
    >>> with OutputFolder(Path(folder.name, "again"), figures="none") as out:
    ...     written = write_rank_outputs(run.parts["rank_test"], None, out)
    >>> sorted(p.name for p in written)[:2]
    ['ranking.csv', 'ranking.json']
    >>> folder.cleanup()
    """
    start = len(out.written)
    main = ranking if ranking is not None else rank_test
    extra = {"naive": naive} if ranking is None and naive is not None else {}
    # the two verdicts on each pair (frequentist pairwise tests against Nemenyi/CD or against
    # the Bayesian ROPE decisions), explained where they differ: a reader who sees a pair
    # significant in one table and not in the other is told why both hold (computed once for
    # ranking.md and ranking.json)
    parts = rank_parts(rank_test, ranking)
    out.text("ranking.md", report.why_both_hold(report.to_markdown(main, **extra),
                                                parts.disagreements))
    out.text("ranking.csv", report.to_csv(main))
    out.text("ranking.tex", report.to_latex(main, **extra))
    out.text("ranking.json", report.to_json(rank_test, ranking=ranking, naive=naive,
                                            bradley_terry=bradley_terry, win_rates=win_rates,
                                            parts=parts))
    if ranking is not None:
        rank_signature = rank_test.signature
        out.text("ranktest.md", report.to_markdown(rank_test), rank_signature)
        out.text("ranktest.csv", report.to_csv(rank_test), rank_signature)
        out.text("ranktest.tex", report.to_latex(rank_test), rank_signature)
        out.figure(ranking.plot, "graph", FIGURE_FORMATS, dpi=300)
    out.figure(partial(cd_figure, rank_test, labels=labels), "cd", ("pdf", "svg", "png"),
               signature=rank_test.signature)
    if bradley_terry is not None and not isinstance(bradley_terry, str):
        _write_bradley_terry(bradley_terry, out)
    if win_rates is not None:
        sig = win_rates.signature
        out.text("winrate.md", report.to_markdown(win_rates), sig)
        out.text("winrate.csv", report.to_csv(win_rates), sig)
        out.text("winrate.tex", report.to_latex(win_rates), sig)
    out.flush()
    return out.written[start:]


def _write_bradley_terry(ratings: Any, out: OutputFolder) -> None:
    sig = ratings.signature
    out.text("bradley_terry.md", report.to_markdown(ratings, title="Bradley–Terry leaderboard"),
             sig)
    out.text("bradley_terry.csv", report.to_csv(ratings), sig)
    out.text("bradley_terry.tex", report.to_latex(ratings), sig)
    out.figure(partial(bradley_terry_figure, ratings), "bradley_terry_ratings",
               ("pdf", "svg", "png"), signature=sig)


def bradley_terry_figure(ratings: Any) -> Any:
    """The ratings-with-intervals figure of ``rank``'s Bradley–Terry leaderboard
    (:func:`ranger_eval.plots.arena.ratings_plot`), imported when drawn (not with
    ``--figures none``).

    Parameters
    ----------
    ratings : Ratings
        The Bradley–Terry leaderboard.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> table = Path(folder.name, "wide.csv")
    >>> _ = table.write_text("dataset,a,b,c\\nd1,0.61,0.70,0.52\\nd2,0.55,0.66,0.58\\n"
    ...                      "d3,0.72,0.79,0.60\\nd4,0.48,0.45,0.50\\nd5,0.66,0.71,0.59\\n")
    >>> from ranger_eval.pipeline import bradley_terry_figure, run_rank
    >>> run = run_rank(table, Path(folder.name, "out"), figures="none")
    >>> fig = bradley_terry_figure(run.parts["bradley_terry"])
    >>> type(fig).__name__
    'Figure'
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    >>> folder.cleanup()
    """
    from ..plots.arena import ratings_plot  # matplotlib: drawn figures only

    return ratings_plot(ratings)


def rank_bradley_terry(data: Any, higher_is_better: bool, settings: RankSettings) -> Any:
    """The Bradley–Terry leaderboard ``rank`` writes beside its rank test: per-item ``Scores``
    of the rank's metric (every item a battle between every pair of systems) or a
    dataset-level table (every dataset a battle), as battle counts
    (:func:`~ranger_eval.verdicts.bradley_terry.battle_counts`: a few array operations, linear
    in the rows), fitted with ``settings.level`` and 1,000 bootstrap rounds at
    ``settings.seed`` (a fresh seed, recorded in the signature, when it is None). Returns the
    ``Ratings``, or the reason there is none (a warning says it: e.g. a system that won or
    tied every battle has no finite rating).

    Parameters
    ----------
    data : Scores or DataFrame
        Per-item scores of one metric, or a dataset-level table.
    higher_is_better : bool
        Whether the higher score wins a battle.
    settings : RankSettings
        Its ``level`` and ``seed`` are used.

    Returns
    -------
    Ratings or str
        The leaderboard, or the reason there is none.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> table = Path(folder.name, "wide.csv")
    >>> _ = table.write_text("dataset,a,b,c\\nd1,0.61,0.70,0.52\\nd2,0.55,0.66,0.58\\n"
    ...                      "d3,0.72,0.79,0.60\\nd4,0.48,0.45,0.50\\nd5,0.66,0.71,0.59\\n")
    >>> from ranger_eval.pipeline import rank_bradley_terry, rank_settings, read_rank_input
    >>> _, wide, _ = read_rank_input(table)
    >>> import warnings
    >>> with warnings.catch_warnings():  # five datasets: some rounds have an unbeaten system
    ...     warnings.simplefilter("ignore")
    ...     ratings = rank_bradley_terry(wide, True, rank_settings(None, {"seed": 0}))
    >>> type(ratings).__name__
    'Ratings'
    >>> folder.cleanup()
    """
    seed = settings.seed if settings.seed is not None else \
        int(np.random.default_rng().integers(2 ** 32))
    try:
        if isinstance(data, pd.DataFrame):
            counts = table_battle_counts(data, higher_is_better=higher_is_better)
        else:
            counts = battle_counts(data, higher_is_better=higher_is_better)
        return bradley_terry(counts, level=settings.level, seed=seed)
    except VerdictError as exc:
        why = str(exc).replace("bradley_terry: ", "").replace("battle_counts: ", "")
        warnings.warn(f"rank: no Bradley–Terry leaderboard: {why}", UserWarning, stacklevel=2)
        return why


def run_rank(input: str | Path, out: str | Path, command: str | None = None,
             figures: Sequence[str] | str | None = None, html: bool = False,
             system_from: str | None = None, bounds: Sequence[str] | None = None,
             cluster: str | None = None, metrics: Sequence[str] | None = None,
             **options: Any) -> CommandRun:
    """``ranger-eval rank``: rank systems over datasets (and metrics) and write the outputs.

    Per-item scores (a YAML or a tidy table with ``item``): the IBM post-op ranking
    (:func:`~ranger_eval.aggregate.rank_systems`) and Demšar's rank test on the per-dataset means
    of the aggregate metric. A dataset-level table (wide, or tidy without ``item``): the rank
    test only. ``cluster`` (``--cluster``) names the field of each item's cluster: the
    ranking's tests are then cluster-robust and the win rate's and Bradley–Terry's bootstraps
    draw whole clusters (:mod:`ranger_eval.design`).

    The run's ``result`` is the ranking (the rank test without one: a dataset-level table, or
    systems missing on some datasets), its ``settings`` the
    :class:`~ranger_eval.settings.RankSettings` resolved, and its ``parts`` name every result:
    ``rank_test`` (:class:`~ranger_eval.aggregate.RankTest` or ``BayesianRankTest``),
    ``ranking`` (:class:`~ranger_eval.aggregate.Ranking` or None), ``bradley_terry``
    (:class:`~ranger_eval.verdicts.Ratings`, None when switched off or impossible: a warning
    says why) and ``win_rate`` (:class:`~ranger_eval.aggregate.WinRate`).

    Parameters
    ----------
    input : str or Path
        Per-item scores (YAML, tidy table, tool's output) or a dataset-level table.
    out : str or Path
        The output folder.
    command : str or None, default None
        The command line, recorded in the manifest.
    figures : sequence of str, str or None, default None
        Figure formats or ``"none"``.
    html : bool, default False
        Also write ``report.html``.
    system_from : str or None, default None
        Where the systems of logs are named.
    bounds : sequence of str or None, default None
        ``METRIC=LO,HI`` ranges.
    cluster : str or None, default None
        The field of each item's cluster.
    metrics : sequence of str or None, default None
        ``--metric``: rank on these metrics of per-item scores only; ``pass@K`` / ``pass^K``
        ranks per-item pass@K over the samples (a YAML's own ``metrics:`` otherwise).
    **options
        :class:`~ranger_eval.settings.RankSettings` fields; None values are not given.

    Returns
    -------
    CommandRun
        The run (see above).

    Raises
    ------
    RangerError
        A bad input or option (named).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> table = Path(folder.name, "wide.csv")
    >>> _ = table.write_text("dataset,a,b,c\\nd1,0.61,0.70,0.52\\nd2,0.55,0.66,0.58\\n"
    ...                      "d3,0.72,0.79,0.60\\nd4,0.48,0.45,0.50\\nd5,0.66,0.71,0.59\\n")
    >>> from ranger_eval.pipeline import run_rank
    >>> run = run_rank(table, Path(folder.name, "out"), figures="none", seed=0)
    >>> run.command, type(run.result).__name__, run.parts["ranking"] is None
    ('rank', 'RankTest', True)
    >>> folder.cleanup()
    """
    caught: list[str] = []
    ranges = parse_bounds(bounds)  # --bounds METRIC=LO,HI
    trees: list[Any] = []
    with collecting_warnings(caught, trees):
        scores, table, exp = read_rank_input(input, system_from, cluster, metrics)
        if scores is not None:
            scores = with_option_bounds(scores, ranges)
        settings = rank_settings(exp, options)
        if scores is not None and exp is not None:
            scores = with_display_names(scores, exp)
            shown_systems, shown_tasks = display_names(exp)
            settings = dataclasses.replace(
                settings, control=_shown(settings.control, shown_systems),
                dataset_weights=_shown(settings.dataset_weights, shown_tasks))
        inputs = _experiment_inputs(exp) if exp is not None else [Path(input)]
        folder = OutputFolder(out, inputs, figures)
        folder.claim(RANK_OUTPUTS)
        ranking = None
        hib = settings.higher_is_better
        if scores is not None:
            if len(scores.datasets) < 2:
                raise ConfigError(
                    f"{input}: rank needs at least two datasets (got {list(scores.datasets)}); "
                    "use `ranger-eval compare` for one dataset"
                )
            agg = aggregate_metrics(scores, weights=settings.weights, higher_is_better=hib) \
                if len(scores.metrics) > 1 else scores
            means = agg.table.groupby(["dataset", "system"], sort=False)["value"].mean()
            table = means.unstack("system")
            n_holes = int(table.isna().to_numpy().sum())
            if n_holes:  # systems without scores on some datasets: Skillings–Mack ranks them,
                         # the post-op ranking cannot
                warnings.warn(
                    f"rank: {n_holes} dataset × system cell(s) have no scores; the post-op "
                    "ranking (IBM §6) needs every system on every dataset and is left out: the "
                    "rank test (Skillings–Mack) ranks the per-dataset means", stacklevel=2)
            else:
                ranked = rank_systems(
                    scores, comparisons=settings.comparisons, level=settings.level,
                    correction=settings.correction, weights=settings.weights,
                    higher_is_better=hib, dataset_weights=settings.dataset_weights,
                    test=settings.test, n_resamples=settings.n_resamples, seed=settings.seed,
                )
                assert not isinstance(ranked, dict)  # no `by`: one ranking
                ranking = ranked
            direction = True if len(scores.metrics) > 1 else _direction(scores.metrics[0], hib)
        else:
            assert table is not None
            if _is_tidy(table):
                metric_col = "metric" if "metric" in table.columns else None
                if metric_col and table[metric_col].nunique() > 1:
                    raise ConfigError(
                        f"{input}: several metrics in a dataset-level table; rank one metric at "
                        "a time (filter the table) or give per-item scores to aggregate them"
                    )
                table = table.pivot_table(index="dataset", columns="system", values="value",
                                          aggfunc="first", sort=False)
            direction = hib if isinstance(hib, bool) else True
        rt = rank_test(table, higher_is_better=direction, level=settings.level,
                       posthoc=settings.posthoc, control=settings.control,
                       tie_correction=settings.tie_correction, approach=settings.approach,
                       rope=settings.rope, rope_mode=settings.rope_mode, prior=settings.prior,
                       n_draws=settings.n_draws, seed=settings.seed)
        # Bradley–Terry on the rank's metric: its per-item scores (the aggregate with several
        # metrics), else the dataset-level table; with prompts the per-dataset means (the
        # battles and the item bootstrap would average the prompts away: design.refuse_prompts)
        per_item = agg if scores is not None and not scores.has_prompts else None
        if scores is not None and per_item is None:
            warnings.warn(
                "rank: the scores have a 'prompt' column: the Bradley–Terry leaderboard and the "
                "win rates are computed from the per-dataset means (every dataset a battle, "
                "datasets resampled), since per-item battles and the item bootstrap would "
                "average the prompts away; the ranking's tests are the crossed "
                "random-effects tests of compare", UserWarning, stacklevel=2)
        bt = rank_bradley_terry(per_item if per_item is not None else table, direction,
                                settings) if settings.bradley_terry else None
        # HELM's mean win rates on the same data: over the per-item scores with the
        # datasets+items bootstrap, else over the table's datasets (a fresh seed, recorded in
        # the signature, when settings.seed is None)
        wr = win_rate(per_item if per_item is not None else table, higher_is_better=direction,
                      level=settings.level, seed=settings.seed if settings.seed is not None
                      else int(np.random.default_rng().integers(2 ** 32)))
    naive = table.mean(axis=0) if ranking is None else None
    write_rank_outputs(rt, ranking, folder, None, naive,  # systems already carry display names
                       bradley_terry=bt, win_rates=wr)
    caught += finish_outputs(folder, str((ranking or rt).signature), command, html, caught, trees)
    parts = {"rank_test": rt, "ranking": ranking,
             "bradley_terry": None if isinstance(bt, str) else bt, "win_rate": wr}
    return CommandRun(ranking if ranking is not None else rt, tuple(folder.written),
                      tuple(caught), settings, "rank", parts)


def rank_summary(run: CommandRun) -> str:
    """What ``ranger-eval rank`` prints: the ranking (the rank test when there is no ranking,
    the run's ``result``) and the first sentence of the Bradley–Terry leaderboard, if any.

    Parameters
    ----------
    run : CommandRun
        The run of :func:`run_rank`.

    Returns
    -------
    str
        The text printed.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> table = Path(folder.name, "wide.csv")
    >>> _ = table.write_text("dataset,a,b,c\\nd1,0.61,0.70,0.52\\nd2,0.55,0.66,0.58\\n"
    ...                      "d3,0.72,0.79,0.60\\nd4,0.48,0.45,0.50\\nd5,0.66,0.71,0.59\\n")
    >>> from ranger_eval.pipeline import rank_summary, run_rank
    >>> run = run_rank(table, Path(folder.name, "out"), figures="none", seed=0)
    >>> print(rank_summary(run))
    | rank | system | average rank | groups |
    ...
    >>> folder.cleanup()
    """
    text = report.to_markdown(run.result)
    ratings = run.parts.get("bradley_terry")
    if ratings is not None:
        text += ("\nBradley–Terry leaderboard (bradley_terry.md): "
                 + " ".join(rank_sentences(ratings)[:1]))
    return text


def _direction(metric: str, hib: Any) -> bool:
    if isinstance(hib, bool):
        return hib
    if isinstance(hib, dict) and metric in hib:
        return bool(hib[metric])
    known = metric_direction(metric)
    return True if known is None else known

