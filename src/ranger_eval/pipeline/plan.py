"""``ranger-eval plan``: power, sample size or minimum detectable effect of a planned
comparison, from parameters (:func:`ranger_eval.plan`) or simulated from a pilot file
(:func:`ranger_eval.plan_from_pilot`); writes ``plan.json``, ``plan.md`` and the manifest."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import report
from ..errors import ConfigError, Hint
from ..output import OutputFolder
from ..settings import PLAN_TESTS, PlanSettings, settings_fields
from ..stats.pilot import plan_from_pilot
from ..stats.power import plan
from ._common import _some, collecting_warnings, finish_outputs, load_scores_input
from ._run import CommandRun

__all__ = ["PLAN_OUTPUTS", "run_plan"]

#: Files ``ranger-eval plan`` writes (besides manifest.json).
PLAN_OUTPUTS = ("plan.json", "plan.md")


def run_plan(out: str | Path, command: str | None = None, *,
             pilot: str | Path | None = None, metric: str | None = None,
             format: str | None = None, system_from: str | None = None,
             cluster: str | None = None, settings: PlanSettings | None = None,
             **options: Any) -> CommandRun:
    """``ranger-eval plan``: :func:`ranger_eval.plan` on the given parameters, or (with
    ``pilot``, a scores file or experiment YAML; ``cluster``, the field of each item's cluster,
    as ``--cluster``) :func:`ranger_eval.plan_from_pilot`; writes ``plan.json`` (the full
    result and its signature), ``plan.md`` and the manifest.

    ``options`` that are :class:`~ranger_eval.settings.PlanSettings` fields go on top of
    ``settings`` (default: the defaults); the others (``effect``, ``n``, ``power``, ``sd``,
    ``treatment``, …) are the keywords of the function called. ``None`` values are not given.
    Returns the :class:`CommandRun` (``result``: a :class:`~ranger_eval.stats.power.Plan` or
    :class:`~ranger_eval.stats.pilot.PilotPlan`).

    Parameters
    ----------
    out : str or Path
        The output folder.
    command : str or None, default None
        The command line, recorded in the manifest.
    pilot : str or Path or None, default None
        A pilot's scores file or experiment YAML.
    metric : str or None, default None
        The pilot's metric.
    format : str or None, default None
        The pilot's format; None: detected.
    system_from : str or None, default None
        Where the systems of a pilot's logs are named.
    cluster : str or None, default None
        The field of each item's cluster.
    settings : PlanSettings or None, default None
        The settings; None: the defaults.
    **options
        :class:`~ranger_eval.settings.PlanSettings` fields and the keywords of the function
        called; None values are not given.

    Returns
    -------
    CommandRun
        The run.

    Raises
    ------
    ConfigError
        No test and no pilot; a pilot without ``treatment`` and ``control``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from ranger_eval.pipeline import run_plan
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     run = run_plan(Path(folder, "out"), test="paired-t", effect=0.5, sd=1.0, power=0.8)
    ...     names = [p.name for p in run.written]
    >>> run.command, names
    ('plan', ['plan.json', 'plan.md', 'manifest.json'])
    """
    fields = settings_fields(PlanSettings)
    settings = PlanSettings.from_options({k: v for k, v in options.items() if k in fields},
                                         settings)
    given = {k: v for k, v in options.items() if k not in fields and v is not None}
    caught: list[str] = []
    with collecting_warnings(caught):
        if pilot is not None:
            scores, _ = load_scores_input(pilot, [metric] if metric else None, format,
                                          system_from, cluster)
            for role in ("treatment", "control"):
                if role not in given:
                    hint = Hint(role)
                    raise ConfigError(f"a pilot needs the two systems: {hint.text} (systems in "
                                      f"{pilot}: {_some(scores.systems)})", hints=[hint])
            result: Any = plan_from_pilot(scores, metric=metric, settings=settings, **given)
            inputs: list[Path] = [Path(pilot)]
        else:
            if settings.test is None:
                hint = Hint("test")
                raise ConfigError(f"name the planned test ({', '.join(PLAN_TESTS)}), or "
                                  f"give a pilot file; {hint.text}", hints=[hint])
            result = plan(settings=settings, **given)
            inputs = []
        folder = OutputFolder(out, inputs, None)
        folder.claim(PLAN_OUTPUTS)
        folder.text("plan.json", report.to_json(result))
        folder.text("plan.md", report.to_markdown(result))
    caught += finish_outputs(folder, str(result.signature), command, False, caught)
    return CommandRun(result, tuple(folder.written), tuple(caught), settings=settings,
                      command="plan")
