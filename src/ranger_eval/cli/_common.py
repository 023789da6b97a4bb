"""What every command shares: one way to print warnings, errors and the list of written files.

Bad input ends with one line ``ranger-eval: error: …`` on stderr and exit status 2; warnings are
printed as ``ranger-eval: warning: …``. A :class:`~ranger_eval.errors.RangerError` (or an
``OSError`` reading a file) never shows a traceback.
"""
from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Iterable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import typer
from typer.core import TyperGroup

EXIT_BAD_INPUT = 2
F = TypeVar("F", bound=Callable[..., Any])
#: ``--system-from`` of compare, meta and rank (several logs of one model)
SYSTEM_FROM_HELP = ("Name the systems of evaluation logs after run_id, file, task_args.<key>, "
                    "generate_config.<key> … instead of the model (several logs of one model); "
                    "comma-separated to combine.")


def _flags_without_metavar(command: Any, ctx: Any) -> None:
    """An on/off flag takes no value, so its help shows no metavar (typer prints ``<bool>``):
    the metavar of every flag of ``command`` (and of its ``--help``) becomes empty."""
    for param in command.get_params(ctx):
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""


class RangerGroup(TyperGroup):
    """The ``ranger-eval`` command group: typer's, with flags shown without a metavar in the
    help of the group and of every command."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _flags_without_metavar(self, ctx)
        super().format_help(ctx, formatter)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _flags_without_metavar(command, ctx)
        return command


def one_line(message: object) -> str:
    """Collapse whitespace so a message is one line."""
    return " ".join(str(message).split())


def fail(message: str) -> typer.Exit:
    """Print ``ranger-eval: error: …`` on stderr; returns the Exit(2) to raise."""
    typer.echo(f"ranger-eval: error: {one_line(message)}", err=True)
    return typer.Exit(EXIT_BAD_INPUT)


def warn(messages: Iterable[str]) -> None:
    """Print each warning as ``ranger-eval: warning: …`` on stderr."""
    for m in messages:
        typer.echo(f"ranger-eval: warning: {one_line(m)}", err=True)


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
        import gc

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
            from ..errors import InputError

            error = InputError(f"{exc.filename}: file not found" if exc.filename
                               else str(exc))
            raise fail(str(error)) from error
        except (ValueError, OSError) as exc:
            if isinstance(exc, OSError) and exc.filename is not None:
                message = f"{exc.filename}: {exc.strerror or exc}"
            else:
                message = str(exc)
            raise fail(message) from None
        except RecursionError:
            raise fail("input nested too deeply") from None

    return wrapper  # type: ignore[return-value]
