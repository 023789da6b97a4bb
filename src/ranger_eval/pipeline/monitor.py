"""``ranger-eval monitor``: may a running evaluation stop now? (:func:`run_monitor`).

Reads logs that may still be being written (:func:`~ranger_eval.io.growing.read_growing`: a
growing CSV, lm-eval samples JSONL, Inspect logs; only complete records), runs
:func:`~ranger_eval.monitor` on ``treatment`` − ``control`` with the command's
:class:`~ranger_eval.settings.MonitorSettings`, and writes ``monitor.md`` (the decision in
words), ``monitor.csv`` (the sequence, one row per unit), ``monitor.tex``, ``monitor.json``
(the full result), the figure ``monitor`` (the sequence and the decision), ``manifest.json``
with the signature, and with ``html`` the one-file ``report.html``. The command's exit code is
:data:`EXIT_DECISION` (0) on a decision and :data:`EXIT_CONTINUE` (3) on "continue", so a
script can stop the run.

**Follow.** With ``follow`` the logs are read again every ``interval`` seconds until a
decision or ``max_rounds`` reads. The items already used keep their place between reads (the
stream of units only grows: an item that becomes a pair is appended, in the log's order), so the
decisions of successive reads are those of one anytime-valid sequence looked at repeatedly.
A log that cannot be read yet (an archive caught mid-write) is read again at the next round,
with a warning. (The order is checked on the read as it is, and the rows reordered only when
the log's own order moved an item already used.) An item one system has been scored on and the other not yet is left out until
both are (counted in a warning); with clusters, its whole cluster is held out with it (named in
the warning), and clusters enter in the order they complete; two systems that share no item are an error. Between reads the command keeps the rows already parsed (a growing
CSV: only the lines appended since are parsed, :class:`~ranger_eval.io.growing.GrowingReader`)
and the sequence: when the new differences extend the previous ones, only the new units'
intervals are computed (the default ``mixture`` sequence; the others are recomputed), so an
update of a 100,000-item log costs the reading of the new lines, the pairing and the new
units (``benchmarks/monitor_bench.py``).
"""
from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import report
from ..budget.monitor import MonitorResult, monitor, monitor_again
from ..errors import InputError, ScoresError
from ..io.growing import GrowingReader, read_growing
from ..output import OutputFolder
from ..plots.monitor import monitor_plot
from ..scores import Scores
from ..settings import MonitorSettings
from ._common import (
    collecting_warnings,
    finish_outputs,
    parse_bounds,
    settings_options,
    with_option_bounds,
)
from ._run import CommandRun

__all__ = ["EXIT_CONTINUE", "EXIT_DECISION", "MONITOR_OUTPUTS", "monitor_logs", "run_monitor"]

MONITOR_OUTPUTS = ("monitor.md", "monitor.csv", "monitor.tex", "monitor.json")
#: Exit code of ``ranger-eval monitor`` on a decision ("treatment better", "control better",
#: "equivalent within margin").
EXIT_DECISION = 0
#: Exit code of ``ranger-eval monitor`` on "continue".
EXIT_CONTINUE = 3


def _keep_order(scores: Scores, arrival: Sequence[str]) -> Scores:
    """``scores`` with the rows of the items in ``arrival`` first, in that order, then the
    others in their own order (module docstring: the stream only grows)."""
    if not arrival:
        return scores
    frame = scores.raw_frame
    rank = pd.Series(range(len(arrival)), index=pd.Index(list(arrival), dtype=object))
    key = frame["item"].astype(str).map(rank)
    later = pd.Series(range(len(frame)), index=frame.index) + len(arrival)
    order = key.fillna(later).to_numpy().argsort(kind="stable")
    return Scores(frame.iloc[order].reset_index(drop=True))


def _pending_dropped(scores: Scores, control: str, treatment: str) -> Scores:
    """``scores`` without the items one of the two systems has not been scored on yet (a log
    being written: counted in a warning); no item in common is an error."""
    frame = scores.raw_frame
    systems = frame["system"]
    is_t = (systems == treatment).to_numpy(dtype=bool)
    is_c = (systems == control).to_numpy(dtype=bool)
    if not is_t.any() or not is_c.any():
        return scores  # monitor names the unknown system
    keys = [c for c in ("dataset", "metric", "item") if c in frame.columns]
    codes = frame.groupby(keys, sort=False, observed=True).ngroup().to_numpy()
    n_keys = int(codes.max()) + 1
    has_t = np.bincount(codes[is_t], minlength=n_keys) > 0
    has_c = np.bincount(codes[is_c], minlength=n_keys) > 0
    pending_key = has_t ^ has_c
    if not pending_key.any():
        return scores
    drop = (is_t | is_c) & pending_key[codes]
    clusters_held = 0
    if "cluster" in frame.columns:
        # a cluster with a pending item is held out whole: no cluster enters partially
        cl = frame["cluster"].astype(str).to_numpy(dtype=object)
        cl_key = np.char.add(frame["dataset"].astype(str).to_numpy(dtype=str), "\x1f" + cl.astype(str))
        held = pd.unique(cl_key[drop])
        clusters_held = len(held)
        drop = (is_t | is_c) & pd.Series(cl_key).isin(held).to_numpy()
    if int(pending_key.sum()) == int((has_t | has_c).sum()):
        pending = frame.loc[drop, "item"].unique()
        raise ScoresError(f"the items of {treatment!r} and {control!r} do not match: they "
                          f"share no item (e.g. {', '.join(map(str, pending[:5]))}); monitor "
                          f"pairs items by id")
    held_text = (f"; their {clusters_held} cluster(s) are held out whole until every item "
                 f"present is scored for both" if clusters_held else "")
    warnings.warn(f"{int(pending_key.sum())} item(s) scored for one of {treatment!r}, "
                  f"{control!r} but not yet for the other (a log being written) are left out "
                  f"until both are{held_text}", stacklevel=3)
    return Scores(frame.loc[~drop].reset_index(drop=True))


def monitor_logs(logs: str | Path | Sequence[str | Path], *, control: str, treatment: str,
                 settings: MonitorSettings, input_format: str | None = None,
                 system_from: str | None = None, cluster: str | None = None,
                 bounds: Sequence[str] | None = None,
                 arrival: Sequence[str] = (), reader: GrowingReader | None = None,
                 previous: MonitorResult | None = None) -> MonitorResult:
    """One read of ``logs`` and the monitor on it; ``arrival`` is the item order of the
    previous read (its units, for items), kept in front; ``reader`` (a
    :class:`~ranger_eval.io.growing.GrowingReader` of ``logs``) parses only what was appended
    since its last read, and ``previous`` (the last read's result) lets the sequence be
    extended by the new units only; the result is the same as without them.

    Parameters
    ----------
    logs : path or sequence of paths
        The logs (:func:`~ranger_eval.io.growing.read_growing`).
    control, treatment : str
        The two systems.
    settings : MonitorSettings
        The monitor's settings.
    input_format, system_from, cluster : str, optional
        As ``--format``, ``--system-from``, ``--cluster``.
    bounds : sequence of str, optional
        ``--bounds METRIC=LO,HI`` values.
    arrival : sequence of str
        The items of the previous read in the order used.
    reader : GrowingReader, optional
        The reader of ``logs`` kept between reads.
    previous : MonitorResult, optional
        The previous read's result.

    Returns
    -------
    MonitorResult

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from ranger_eval.settings import MonitorSettings
    >>> from ranger_eval.pipeline.monitor import monitor_logs
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp, "log.csv")
    ...     _ = path.write_text("dataset,system,item,value\\n" + "".join(
    ...         f"qa,A,q{i},{i % 2}\\nqa,B,q{i},1\\n" for i in range(40)))
    ...     res = monitor_logs(path, control="A", treatment="B", settings=MonitorSettings())
    >>> res.decision, res.n_used
    ('treatment better', 37)
    """
    scores = (reader.read() if reader is not None else
              read_growing(logs, format=input_format, system_from=system_from, cluster=cluster))
    scores = with_option_bounds(scores, parse_bounds(bounds))
    scores = _pending_dropped(scores, control, treatment)

    def run(sc: Scores) -> MonitorResult:
        if previous is None:
            return monitor(sc, control=control, treatment=treatment, settings=settings)
        return monitor_again(previous, sc, control=control, treatment=treatment,
                             settings=settings)

    result = run(scores)
    if not arrival or result.units[:len(arrival)] == tuple(arrival):
        return result  # a log that only grows at its end: its own order keeps the stream
    return run(_keep_order(scores, arrival))


def run_monitor(logs: str | Path | Sequence[str | Path], out: str | Path,
                command: str | None = None, *, control: str, treatment: str,
                follow: bool = False, figures: str | None = None, html: bool = False,
                input_format: str | None = None, system_from: str | None = None,
                cluster: str | None = None, bounds: Sequence[str] | None = None,
                settings: MonitorSettings | None = None,
                on_round: Callable[[int, MonitorResult], None] | None = None,
                sleep: Callable[[float], None] = time.sleep, **options: Any) -> CommandRun:
    """Read the logs (again every ``interval`` seconds with ``follow``), monitor ``treatment``
    − ``control``, write the tables, the figure and the manifest (module docstring).

    Parameters
    ----------
    logs : path or sequence of paths
        Logs that may still be being written: tables, lm-eval samples, Inspect logs.
    out : str or Path
        The output folder.
    command : str or None, default None
        The command line, recorded in the manifest.
    control, treatment : str
        The two systems.
    follow : bool, default False
        Read again every ``interval`` seconds until a decision or ``max_rounds`` reads.
    figures : str or None, default None
        Figure formats or ``"none"``.
    html : bool, default False
        Also write ``report.html``.
    input_format, system_from, cluster : str, optional
        As ``--format``, ``--system-from``, ``--cluster``.
    bounds : sequence of str, optional
        ``--bounds METRIC=LO,HI``.
    settings : MonitorSettings, optional
        The settings; None: the defaults.
    on_round : callable, optional
        Called with (round, result) after each read (the command prints a line).
    sleep : callable, default time.sleep
        Waits between reads.
    **options
        :class:`~ranger_eval.settings.MonitorSettings` fields; None values are not given.

    Returns
    -------
    CommandRun
        ``result``: the :class:`~ranger_eval.budget.MonitorResult` of the last read;
        ``parts["rounds"]``: the number of reads; ``command="monitor"``.

    Raises
    ------
    RangerError
        A bad input or option (named); a log still unreadable after the last round.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from ranger_eval.pipeline.monitor import run_monitor
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(tmp.name, "log.csv")
    >>> _ = path.write_text("dataset,system,item,value\\n" + "".join(
    ...     f"qa,A,q{i},{i % 2}\\nqa,B,q{i},{i % 2}\\n" for i in range(40)))
    >>> run = run_monitor(path, pathlib.Path(tmp.name, "out"), control="A", treatment="B",
    ...                   figures="none")
    >>> run.result.decision, run.parts["rounds"]
    ('continue', 1)
    >>> tmp.cleanup()
    """
    settings = MonitorSettings.from_options(settings_options(MonitorSettings, options), settings)
    paths = [Path(logs)] if isinstance(logs, (str, Path)) else [Path(p) for p in logs]
    notes: list[str] = []
    result: MonitorResult | None = None
    rounds = 0
    reader = GrowingReader(paths, format=input_format, system_from=system_from, cluster=cluster)
    with collecting_warnings(notes):
        while True:
            rounds += 1
            last = not follow or rounds >= settings.max_rounds
            arrival = (result.units if result is not None and result.unit == "item"
                       and settings.order == "log" else ())
            try:
                result = monitor_logs(paths, control=control, treatment=treatment,
                                      settings=settings, input_format=input_format,
                                      system_from=system_from, cluster=cluster, bounds=bounds,
                                      arrival=arrival, reader=reader, previous=result)
            except InputError as exc:
                if last:
                    raise
                warnings.warn(f"round {rounds}: the logs cannot be read yet ({exc}); read "
                              f"again in {settings.interval:g} s", stacklevel=2)
                sleep(settings.interval)
                continue
            if on_round is not None:
                on_round(rounds, result)
            if result.stopped or last:
                break
            sleep(settings.interval)
    if follow and not result.stopped:
        notes.append(f"no decision after {rounds} reads (--max-rounds {settings.max_rounds}); "
                     f"the run goes on")
    folder = OutputFolder(out, paths, figures)
    folder.claim(MONITOR_OUTPUTS)
    folder.text("monitor.md", report.to_markdown(result))
    folder.text("monitor.csv", report.to_csv(result))
    folder.text("monitor.tex", report.to_latex(result))
    folder.text("monitor.json", report.to_json(result))
    if result.n_available:
        final = result
        folder.figure(lambda: monitor_plot(final), "monitor", ("pdf", "png"))
    notes += finish_outputs(folder, str(result.signature), command, html, notes)
    return CommandRun(result, tuple(folder.written), tuple(notes), settings=settings,
                      command="monitor", parts={"rounds": rounds})
