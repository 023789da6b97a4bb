"""``ranger-eval agree``: from a ratings file to its folder (:func:`run_agree`).

Reads a long ratings table (``item, rater, value``; or scores whose ``system`` column is the
rater), runs :func:`~ranger_eval.agreement` with the command's
:class:`~ranger_eval.settings.AgreementSettings` and, with ``judge``, the alternative annotator
test :func:`~ranger_eval.alt_test` of that rater against the others
(:class:`~ranger_eval.settings.AltTestSettings`). Writes ``agreement.md``, ``agreement.csv``,
``agreement.tex``, ``agreement.json`` (and ``alt_test.md/.csv/.tex/.json`` and the figure
``alt_test`` with a judge), ``manifest.json`` with the signature and, with ``html``,
``report.html``.
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

from .. import report
from ..errors import SettingsError
from ..io.tables import read_table
from ..llm.agreement import agreement
from ..llm.alt_test import alt_test
from ..output import OutputFolder
from ..plots.agreement import alt_test_plot
from ..settings import AgreementSettings, AltTestSettings, cli_options
from ._common import collecting_warnings, finish_outputs, option_error, settings_options
from ._run import CommandRun

__all__ = ["AGREE_OUTPUTS", "ALT_TEST_OUTPUTS", "agree_settings", "run_agree"]

AGREE_OUTPUTS = ("agreement.md", "agreement.csv", "agreement.tex", "agreement.json")
ALT_TEST_OUTPUTS = ("alt_test.md", "alt_test.csv", "alt_test.tex", "alt_test.json")
_ALT_FIELDS = {f.name for f in dataclasses.fields(AltTestSettings)}


def agree_settings(options: dict[str, Any],
                   base: AgreementSettings | None = None) -> AgreementSettings:
    """The :class:`~ranger_eval.settings.AgreementSettings` of the command's ``options`` (by
    field name; None: not given) over ``base``, every refusal blamed on its command-line option
    (``method`` is ``--coefficient``): a refused value as ``option --coefficient: …``
    (:func:`~ranger_eval.pipeline.settings_options`), a refused combination with the options'
    names in place of the fields'.

    Parameters
    ----------
    options : dict of str to object
        Fields of :class:`~ranger_eval.settings.AgreementSettings`; None values are not given.
    base : AgreementSettings or None, default None
        The settings the options change; None: the defaults.

    Returns
    -------
    AgreementSettings

    Raises
    ------
    ConfigError
        A refused value or combination, naming the options.

    Examples
    --------
    >>> from ranger_eval.pipeline.agree import agree_settings
    >>> agree_settings({"method": "cohen", "weights": "linear"}).weights
    'linear'
    >>> agree_settings({"method": "kappa"})
    Traceback (most recent call last):
    ...
    ranger_eval.errors.ConfigError: option --coefficient: unknown agreement coefficient 'kappa'; ...
    """
    flags = cli_options(AgreementSettings)
    checked = settings_options(AgreementSettings, options)
    try:
        return AgreementSettings.from_options(checked, base)
    except SettingsError as exc:
        field, _, message = str(exc).partition(": ")
        if field not in flags:
            raise
        for name, flag in flags.items():  # method='fleiss' -> --coefficient fleiss
            message = re.sub(rf"\b{name}='([^']*)'", rf"--{flag} \1", message)
            message = re.sub(rf"\b{name}=", f"--{flag} ", message)
        raise option_error(flags[field], message) from exc


def run_agree(ratings: str | Path, out: str | Path, command: str | None = None, *,
              figures: str | None = None, html: bool = False, judge: str | None = None, settings: AgreementSettings | None = None,
              alt_settings: AltTestSettings | None = None, **options: Any) -> CommandRun:
    """Read ``ratings``, compute the agreement (and with ``judge`` the alt-test), write the
    tables and the manifest.

    ``options`` are fields of :class:`~ranger_eval.settings.AgreementSettings` or
    :class:`~ranger_eval.settings.AltTestSettings`; None values are not given.

    Parameters
    ----------
    ratings : str or Path
        A long table ``item, rater, value`` (CSV/TSV/JSONL/Parquet).
    out : str or Path
        The output folder.
    command : str or None, default None
        The command line, recorded in the manifest.
    figures : str or None, default None
        Figure formats of the alt-test's figure ``alt_test`` (``png,pdf``; ``none``: no
        figure); None: the default formats (PDF and PNG). Drawn with ``judge`` only.
    html : bool, default False
        Also write ``report.html`` (read from the JSON files).
    judge : str or None, default None
        A rater to test against the others with the alternative annotator test.
    settings : AgreementSettings or None, default None
        The agreement settings; None: the defaults.
    alt_settings : AltTestSettings or None, default None
        The alt-test settings; None: the defaults.
    **options
        Fields of either settings class.

    Returns
    -------
    CommandRun
        ``result``: the :class:`~ranger_eval.llm.AgreementResult`; ``parts["alt_test"]``: the
        :class:`~ranger_eval.llm.AltTestResult` (with ``judge``); ``command="agree"``.

    Raises
    ------
    RangerError
        A bad input or option (named).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> table = Path(folder.name, "ratings.csv")
    >>> _ = table.write_text("item,rater,value\\n" + "".join(
    ...     f"{i},{r},{(i + (r == 'c') * (i % 3 == 0)) % 4}\\n" for i in range(20) for r in "abc"))
    >>> from ranger_eval.pipeline.agree import run_agree
    >>> run = run_agree(table, Path(folder.name, "out"), n_resamples=50)
    >>> run.command, round(run.result.estimate, 3)
    ('agree', 0.694)
    >>> folder.cleanup()
    """
    alt_options = settings_options(AltTestSettings,
                                   {k: v for k, v in options.items() if k in _ALT_FIELDS})
    settings = agree_settings({k: v for k, v in options.items() if k not in _ALT_FIELDS},
                              settings)
    alt = AltTestSettings.from_options(alt_options, alt_settings)
    path = Path(ratings)
    notes: list[str] = []
    parts: dict[str, Any] = {}
    with collecting_warnings(notes):
        table = read_table(path, id_columns=("item", "rater"))
        result = agreement(table, settings=settings)
        if judge is not None:
            parts["alt_test"] = alt_test(table, judge=judge, settings=alt)
    folder = OutputFolder(out, [path], figures)
    folder.claim(AGREE_OUTPUTS + (ALT_TEST_OUTPUTS if judge is not None else ()))
    folder.text("agreement.md", report.to_markdown(result))
    folder.text("agreement.csv", report.to_csv(result))
    folder.text("agreement.tex", report.to_latex(result))
    folder.text("agreement.json", report.to_json(result))
    if judge is not None:
        tested = parts["alt_test"]
        folder.text("alt_test.md", report.to_markdown(tested))
        folder.text("alt_test.csv", report.to_csv(tested))
        folder.text("alt_test.tex", report.to_latex(tested))
        folder.text("alt_test.json", report.to_json(tested))
        folder.figure(lambda: alt_test_plot(tested), "alt_test", ("pdf", "png"))
    notes += finish_outputs(folder, str(result.signature), command, html, notes)
    return CommandRun(result, tuple(folder.written), tuple(notes), settings=settings,
                      command="agree", parts=parts)
