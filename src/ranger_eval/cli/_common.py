"""What every command shares: one way to print warnings, errors and the list of written files.

Bad input ends with one line ``ranger-eval: error: …`` on stderr and exit status 2; warnings are
printed as ``ranger-eval: warning: …``. A :class:`~ranger_eval.errors.RangerError` (or an
``OSError`` reading a file) never shows a traceback.
"""
from __future__ import annotations

import gc
import shlex
import sys
from collections.abc import Callable, Iterable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import typer
from typer.core import TyperGroup

from ..errors import ANY, ConfigError, Hint, InputError, in_callers_words, speaking
from ..settings import (
    CompareSettings,
    MetaSettings,
    RankSettings,
    cli_options,
    settings_fields,
)

EXIT_BAD_INPUT = 2

F = TypeVar("F", bound=Callable[..., Any])
#: ``--system-from`` of compare, meta and rank (several logs of one model)
SYSTEM_FROM_HELP = ("Name the systems of evaluation logs after run_id, file, task_args.<key>, "
                    "generate_config.<key> … instead of the model (several logs of one model); "
                    "comma-separated to combine.")
#: ``--cluster`` of compare, meta, rank and arena: items of one cluster (questions on one
#: passage) are not independent, so their variances and resamples treat a cluster as one unit
CLUSTER_HELP = ("The field holding each item's cluster (passage, document, template, subject): "
                "a table's column, an Inspect sample-metadata key or an lm-eval doc field. "
                "Tests then treat clusters, not items, as independent.")


def _flags_without_metavar(command: Any, ctx: Any) -> None:
    """An on/off flag takes no value, so its help shows no metavar (typer prints ``<bool>``):
    the metavar of every flag of ``command`` (and of its ``--help``) becomes empty."""
    for param in command.get_params(ctx):
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""


#: Command-line options renamed for the one vocabulary (docs/architecture.md, Glossary):
#: old → (new, what it means). Giving an old one is an error naming the new one.
RENAMED_OPTIONS: dict[str, tuple[str, str]] = {
    "--alpha": ("--level", "the confidence level; alpha = 1 - level, e.g. --alpha 0.05 is "
                           "--level 0.95"),
    "--lower-is-better": ("--higher-is-better false", "one direction flag, higher_is_better"),
    "--n-bootstrap": ("--n-resamples", "n_resamples counts every resample: bootstrap, "
                                       "permutation, simulation"),
    "--n-samples": ("--n-draws", "n_draws counts posterior draws; a sample is a generation "
                                 "of the sample column"),
    "--n-simulations": ("--n-resamples", "one word for every resample count: simulations, "
                                         "bootstrap rounds, permutations"),
}


def true_or_false(option: str, value: str | None) -> bool | None:
    """The value of an option that takes ``true`` or ``false`` (``None`` when not given)."""
    if value is None:
        return None
    words = {"true": True, "false": False}
    if value.strip().lower() not in words:
        raise ConfigError(f"option {option}: expected true or false; got {value!r}")
    return words[value.strip().lower()]


class RangerGroup(TyperGroup):
    """The ``ranger-eval`` command group: typer's, with flags shown without a metavar in the
    help of the group and of every command, and a renamed option (:data:`RENAMED_OPTIONS`)
    reported with its new name."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        command = self.commands.get(next((a for a in args if not a.startswith("-")), ""))
        takes = {o for p in command.params for o in (*p.opts, *p.secondary_opts)} \
            if command is not None else set()
        for arg in args:
            if arg == "--":
                break
            old = arg.split("=", 1)[0]
            if old in RENAMED_OPTIONS and old not in takes:  # a command may still take it
                new, meaning = RENAMED_OPTIONS[old]
                raise fail(f"option {old} is called {new} now ({meaning})")
        return list(super().parse_args(ctx, args))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _flags_without_metavar(self, ctx)
        super().format_help(ctx, formatter)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _flags_without_metavar(command, ctx)
        return command

    def invoke(self, ctx: Any) -> Any:
        """Run the command, saying the hints of every warning it records in its options
        (:func:`ranger_eval.errors.speaking`): on stderr, in results and in manifest.json."""
        with speaking(_running_words):
            return super().invoke(ctx)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        """The command to run; its option strings are kept for :func:`cli_message`."""
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None:
            RUNNING_OPTIONS[:] = [o for p in command.params for o in (*p.opts, *p.secondary_opts)]
        return name, command, rest


#: The option strings of the command being run (set when the group resolves it).
RUNNING_OPTIONS: list[str] = []


def one_line(message: object) -> str:
    """Collapse whitespace so a message is one line."""
    return " ".join(str(message).split())


#: How a command says a Python keyword that an error's :class:`~ranger_eval.errors.Hint` names:
#: an option taking the value, or (keyword, value) → (the option, the words) of its own.
CLI_OPTIONS: dict[str, str] = {"metrics": "--metric", "datasets": "--dataset"}
CLI_FLAGS: dict[tuple[str, object], tuple[str, str]] = {
    **{(name, meta.flag): (f"--{option}", f"--{option}")  # the settings' flags (--drop-degenerate)
       for cls in (CompareSettings, RankSettings, MetaSettings)
       for name, option in cli_options(cls).items()
       if (meta := settings_fields(cls)[name][1]).flag is not None},
    ("allow_no_overlap", True): ("--allow-no-overlap", "--allow-no-overlap"),
    ("missing", "zero"): ("--complete", "--complete"),  # trec: trec_eval -c
    ("missing", "drop"): ("--complete", "the default (no --complete)"),
    ("paired", False): ("--test", "--test welch (or mannwhitney)"),
}
#: The experiment YAML key of a keyword the command has no option for.
YAML_KEYS: dict[str, str] = {"missing": "missing", "metric": "metric", "control": "control",
                             "treatment": "treatment", "format": "format",
                             "degenerate": "meta.degenerate", "seeds": "meta.seeds",
                             "metric_fn": "meta.metric_fn",
                             "higher_is_better": "aggregate.higher_is_better"}


def _cli_value(value: object) -> str:
    """A value as it is typed on the command line or in YAML (``true``, ``a,b``, ``{m: true}``)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_cli_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def cli_words(hint: Hint, options: Iterable[str]) -> str | None:
    """``hint`` as the command line says it (:func:`_cli_setting`), after ``pass`` in the hint's
    ``"pass"`` form: ``pass --missing intersect``; ``--cluster passage`` in the ``"set"`` form."""
    words = _cli_setting(hint, options)
    if words is None or hint.form == "set":
        return words
    return ("pass " + words) if words.startswith("--") else words


def _cli_setting(hint: Hint, options: Iterable[str]) -> str | None:
    """The setting of ``hint`` as the command line says it: ``--missing intersect``, ``--metric``,
    ``--drop-degenerate`` when the command has that option (``options``: its option strings),
    else ``set `missing: intersect` in the experiment YAML`` for a YAML key; ``None`` when neither
    exists (:func:`cli_message` then says the Python words are the Python API's)."""
    opts = set(options)
    flag = next((f for (k, v), f in CLI_FLAGS.items()
                 if k == hint.keyword and type(v) is type(hint.value) and v == hint.value),
                None)
    if flag is not None and flag[0] in opts:
        return flag[1]
    option = CLI_OPTIONS.get(hint.keyword, "--" + hint.keyword.replace("_", "-"))
    if option in opts:
        return option + ("" if hint.value is ANY else f" {_cli_value(hint.value)}")
    key = YAML_KEYS.get(hint.keyword)
    if key is not None:
        value = "…" if hint.value is ANY else _cli_value(hint.value)
        return f"set `{key}: {value}` in the experiment YAML"
    return None


def _hints(exc: BaseException) -> list[Hint]:
    """The hints of ``exc`` and of the errors it was raised from."""
    out: list[Hint] = []
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        out += getattr(cur, "hints", ())
        cur = cur.__cause__ or cur.__context__
    return out


def cli_message(exc: BaseException, message: str | None = None) -> str:
    """The message of ``exc`` (or ``message``) with each Python keyword its hints name replaced by
    the running command's option (:data:`RUNNING_OPTIONS`, :func:`cli_words`)."""
    text = str(exc) if message is None else message
    return _said(text, _hints(exc))


def _running_words(hint: Hint) -> str | None:
    """``hint`` in the running command's words (:data:`RUNNING_OPTIONS`)."""
    return cli_words(hint, RUNNING_OPTIONS)


def _said(text: str, hints: Iterable[Hint]) -> str:
    """``text`` with the Python words of each hint replaced by the command line's."""
    with speaking(_running_words):
        return in_callers_words(text, hints)


def fail(message: str) -> typer.Exit:
    """Print ``ranger-eval: error: …`` on stderr; returns the Exit(2) to raise."""
    typer.echo(f"ranger-eval: error: {one_line(message)}", err=True)
    return typer.Exit(EXIT_BAD_INPUT)


def warn(messages: Iterable[str]) -> None:
    """Print each warning as ``ranger-eval: warning: …`` on stderr, the keywords its hints name
    (a :class:`~ranger_eval.errors.Said` from :func:`ranger_eval.pipeline.collecting_warnings`)
    said as the running command's options."""
    for m in messages:
        typer.echo(f"ranger-eval: warning: {one_line(_said(m, getattr(m, 'hints', ())))}",
                   err=True)


def report_written(paths: Iterable[Path]) -> None:
    typer.echo("wrote: " + ", ".join(str(p) for p in paths))


#: Set by the console entry point (:func:`ranger_eval.cli.main`): the process is one command.
ONE_COMMAND_PROCESS = False


def imports_done() -> None:
    """Called by a command once its heavy modules are imported: in a process that runs one
    command (the ``ranger-eval`` executable, not the library or an in-process test runner),
    hands everything allocated so far (mostly the modules of pandas, numpy, scipy and pyarrow)
    to ``gc.freeze``, so that the garbage collector's full passes no longer walk those objects,
    which live until the process ends anyway. It takes 0.2 s off a one-second command
    (benchmarks/cli_bench.py)."""
    if ONE_COMMAND_PROCESS:
        gc.freeze()


def command_line() -> str:
    """The command as the user typed it (for the manifest and reports)."""
    return " ".join(shlex.quote(a) for a in ["ranger-eval", *sys.argv[1:]])


def friendly_errors(func: F) -> F:
    """Turn input errors (RangerError and other ValueErrors, OSError) into one line, exit 2."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except typer.Exit:
            raise
        except FileNotFoundError as exc:  # a reader that did not check: still an InputError
            error = InputError(f"{exc.filename}: file not found" if exc.filename
                               else str(exc))
            raise fail(str(error)) from error
        except (ValueError, OSError) as exc:
            if isinstance(exc, OSError) and exc.filename is not None:
                message = f"{exc.filename}: {exc.strerror or exc}"
            else:
                message = cli_message(exc)
            raise fail(message) from None
        except RecursionError:
            raise fail("input nested too deeply") from None

    return wrapper  # type: ignore[return-value]
