"""Inspect AI early stopping by :func:`~ranger_eval.monitor`: :class:`MonitorStopping`.

Inspect AI (≥ 0.3.1xx; ``inspect_ai.util.EarlyStopping``) lets a task skip samples: a
``Task(early_stopping=manager)`` is told ``start_task(task, samples, epochs)`` once,
``schedule_sample(id, epoch)`` before each sample runs (returning an ``EarlyStop`` skips it,
recorded in the log's ``results.early_stopping``), ``complete_sample(id, epoch, scores)``
after each sample is scored, and ``complete_task()`` at the end (its dict is stored as the
summary's ``metadata``). Inspect's hook carries no statistical rule; this class is one: the
anytime-valid monitor of the running model (the *treatment*) against a finished run of a
baseline (the *control*: its per-item scores, e.g. read from its log with
:func:`ranger_eval.read_scores`) on the same samples.

After every ``every`` completed samples it runs :func:`~ranger_eval.monitor` on the items both
have, in the order the treatment's samples completed; from the first decision on, every
sample not yet scheduled is stopped (``EarlyStop.reason`` is the decision, its metadata the
interval). ``complete_task`` returns the decision, ``n_used``, the interval and the signature.
With several epochs an item enters when all its epochs are scored, its score being their mean
(Inspect's default reducer). Scores are mapped to numbers as Inspect's ``value_to_float``
(``"C"`` → 1, ``"I"`` → 0, ``"P"`` → 0.5, numbers as they are).

Validity: the order in which Inspect completes samples must not depend on their outcomes for
the log order to be a fixed order (shuffle the dataset, ``Task(dataset=...,
shuffle=True)``; long generations finishing later are a dependence to avoid, e.g. with
``max_samples=1``). inspect_ai is imported only to build the ``EarlyStop`` records, so this
module imports without it.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ScoresError
from ..io.adapters import value_to_float
from ..scores import Scores, as_scores
from ..settings import MonitorSettings, resolve_settings
from .monitor import MonitorResult, monitor

__all__ = ["MonitorStopping"]

_DEFAULT = MonitorSettings()
_TREATMENT = "treatment"


class MonitorStopping:
    """An Inspect AI early-stopping manager whose rule is :func:`~ranger_eval.monitor`
    (module docstring).

    Parameters
    ----------
    control : Scores, table or mapping
        The baseline's per-item scores: a mapping ``{sample id: score}``, or scores of which
        the system ``control_name`` (default: the only one) on ``metric`` is used.
    scorer : str, optional
        The Inspect scorer whose value is monitored (default: the only one of the task).
    control_name : str, optional
        The control system in ``control`` when it holds several.
    every : int, default 1
        Run the monitor after every ``every`` completed items.
    level, margin, method, bounds, metric : optional
        As :func:`~ranger_eval.monitor` (``metric`` selects the control's metric).
    settings : MonitorSettings, optional
        The settings object instead of the keywords.

    Attributes
    ----------
    result : MonitorResult or None
        The last monitor result (None before the first).
    stopped : list of (id, epoch)
        The samples stopped.

    Examples
    --------
    >>> import asyncio
    >>> from ranger_eval.budget.inspect_stop import MonitorStopping
    >>> stop = MonitorStopping({f"q{i}": 0.0 for i in range(100)}, scorer="match")
    >>> class Score:  # what Inspect passes: {scorer: SampleScore with .score.value}
    ...     def __init__(self, v): self.score = type("S", (), {"value": v})()
    >>> async def run():
    ...     await stop.start_task(None, [], 1)
    ...     for i in range(100):
    ...         if await stop.schedule_sample(f"q{i}", 1) is not None:
    ...             return i
    ...         await stop.complete_sample(f"q{i}", 1, {"match": Score("C")})
    >>> asyncio.run(run()), stop.result.decision
    (19, 'treatment better')
    """

    def __init__(self, control: object, *, scorer: str | None = None,
                 control_name: str | None = None, every: int = 1,
                 level: float = _DEFAULT.level, margin: float = _DEFAULT.margin,
                 method: str = _DEFAULT.method,
                 bounds: tuple[float, float] | None = _DEFAULT.bounds,
                 metric: str | None = _DEFAULT.metric,
                 settings: MonitorSettings | None = None) -> None:
        self.settings = resolve_settings(
            MonitorSettings, {"level": level, "margin": margin, "method": method,
                              "bounds": bounds, "metric": metric}, settings,
            where="MonitorStopping")
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ScoresError(f"every: must be a whole number ≥ 1; got {every!r}")
        self.every = every
        self.scorer = scorer
        self.control = self._control_scores(control, control_name)
        self.epochs = 1
        self.pending: dict[str, list[float]] = {}
        self.done: dict[str, float] = {}  # items in the order completed
        self.result: MonitorResult | None = None
        self.stopped: list[tuple[str | int, int]] = []
        self._since = 0

    def _control_scores(self, control: object, name: str | None) -> pd.Series:
        if isinstance(control, Mapping):
            values = {str(k): float(v) for k, v in control.items()}
            return pd.Series(values, dtype=np.float64)
        sc = as_scores(control, what="control", error=ScoresError)
        systems = sc.systems
        if name is None:
            if len(systems) != 1:
                raise ScoresError(f"control: the scores hold {len(systems)} systems "
                                  f"({', '.join(systems[:10])}); choose one with "
                                  f"control_name=")
            name = systems[0]
        elif name not in systems:
            raise ScoresError(f"control_name: unknown {name!r}; known: {', '.join(systems)}")
        frame = sc.table
        frame = frame[frame["system"] == name]
        if "metric" in frame:
            metrics = tuple(dict.fromkeys(frame["metric"].astype(str)))
            want = self.settings.metric
            if want is None and len(metrics) != 1:
                raise ScoresError(f"control: {len(metrics)} metrics ({', '.join(metrics)}); "
                                  f"choose one with metric=")
            frame = frame[frame["metric"].astype(str) == (want or metrics[0])]
        return pd.Series(frame["value"].to_numpy(dtype=np.float64),
                         index=frame["item"].astype(str).to_numpy())

    # -- Inspect's EarlyStopping protocol ------------------------------------------------

    async def start_task(self, task: Any, samples: Any, epochs: int) -> str:
        """Register the task (Inspect calls it once); returns the manager's name."""
        self.epochs = max(1, int(epochs))
        return "ranger_eval.monitor"

    async def schedule_sample(self, id: str | int, epoch: int) -> Any:
        """None while the monitor says "continue"; after a decision an ``EarlyStop``."""
        if self.result is None or not self.result.stopped:
            return None
        from inspect_ai.util import EarlyStop

        self.stopped.append((id, epoch))
        r = self.result
        return EarlyStop(id=id, epoch=epoch, reason=r.decision,
                         metadata={"n_used": r.n_used, "lower": r.lower, "upper": r.upper,
                                   "signature": str(r.signature)})

    async def complete_sample(self, id: str | int, epoch: int, scores: Mapping[str, Any]) -> None:
        """Record the sample's score; run the monitor every ``every`` completed items."""
        if self.result is not None and self.result.stopped:
            return
        name = self.scorer
        if name is None:
            if len(scores) != 1:
                raise ScoresError(f"scorer: the task has {len(scores)} scorers "
                                  f"({', '.join(scores)}); choose one with scorer=")
            name = next(iter(scores))
        if name not in scores:
            raise ScoresError(f"scorer: {name!r} is not a scorer of the task "
                              f"({', '.join(scores)})")
        raw = scores[name].score.value
        value = value_to_float(raw)
        if value is None:
            raise ScoresError(f"sample {id!r}: the score {raw!r} of {name!r} is not a number "
                              f"(as Inspect's value_to_float reads it)")
        key = str(id)
        if key not in self.control.index:
            raise ScoresError(f"sample {id!r}: the control has no score for it (the two runs "
                              f"must be on the same samples)")
        got = self.pending.setdefault(key, [])
        got.append(value)
        if len(got) < self.epochs:
            return
        self.done[key] = float(np.mean(got))
        self._since += 1
        if self._since >= self.every:
            self._since = 0
            self.result = self.decide()

    async def complete_task(self) -> dict[str, Any]:
        """The decision, ``n_used``, the interval and the signature (Inspect stores them in
        the log's ``results.early_stopping.metadata``)."""
        if self.done and (self.result is None or self.result.n_available < len(self.done)) \
                and not (self.result is not None and self.result.stopped):
            self.result = self.decide()
        r = self.result
        if r is None:
            return {"decision": "continue", "n_used": 0}
        return {"decision": r.decision, "n_used": r.n_used, "n_available": r.n_available,
                "estimate": r.estimate if r.n_used else None,
                "lower": r.lower if r.n_used else None, "upper": r.upper if r.n_used else None,
                "stopped_samples": len(self.stopped), "signature": str(r.signature)}

    # -- the rule ------------------------------------------------------------------------

    def decide(self) -> MonitorResult:
        """:func:`~ranger_eval.monitor` on the items completed so far, in their order."""
        items = list(self.done)
        n = len(items)
        control = self.control.reindex(items).to_numpy()
        frame = pd.DataFrame({
            "dataset": "inspect", "metric": self.scorer or "score",
            "system": np.tile(["control", _TREATMENT], n),
            "item": np.repeat(items, 2),
            "value": np.column_stack([control, list(self.done.values())]).ravel()})
        return monitor(Scores(frame), control="control", treatment=_TREATMENT,
                       settings=self.settings)
