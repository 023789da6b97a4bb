"""Progress bars (rich) for long work, shown only when stderr is a terminal.

One helper for every long loop — resampling batches, many IR runs, large inputs — so that they
all look the same and all stay silent in pipes, CI logs and tests::

    with progress_bar("resampling", total=n_batches, enabled=progress) as advance:
        for batch in batches:
            ...
            advance()

``enabled=None`` (the default) means "on a terminal only"; ``True``/``False`` force it. The
environment variable ``RANGER_EVAL_PROGRESS=0`` switches every bar off (``=1`` forces them on).
The bar is transient: it disappears when the work is done, so it never pollutes output files or
the terminal transcript.
"""
from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator

__all__ = ["progress_enabled", "progress_bar"]


def progress_enabled(enabled: bool | None = None) -> bool:
    """Whether a bar should be drawn: explicit choice > ``RANGER_EVAL_PROGRESS`` > stderr is a TTY."""
    if enabled is not None:
        return bool(enabled)
    env = os.environ.get("RANGER_EVAL_PROGRESS", "").strip().lower()
    if env in {"0", "false", "no", "off"}:
        return False
    if env in {"1", "true", "yes", "on"}:
        return True
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


@contextlib.contextmanager
def progress_bar(description: str, total: int | None, *,
                 enabled: bool | None = None) -> Iterator[Callable[..., None]]:
    """Yield ``advance(steps=1, description=None)``; draws a transient rich bar when enabled.

    When disabled nothing from rich is imported and ``advance`` does nothing, so the cost in
    tests and pipes is one function call per step.
    """
    if not progress_enabled(enabled):
        def _noop(steps: int = 1, description: str | None = None) -> None:
            return None

        yield _noop
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TimeRemainingColumn()]
    with Progress(*columns, transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task(description, total=total)

        def _advance(steps: int = 1, description: str | None = None) -> None:
            if description is None:
                bar.advance(task, steps)
            else:
                bar.update(task, advance=steps, description=description)

        yield _advance
