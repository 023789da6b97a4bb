"""The ``ranger-eval`` command line: a thin layer over the public functions.

Heavy modules (numpy, pandas, matplotlib) are imported inside the commands so that
``ranger-eval --help`` stays fast. Bad input ends with one line on stderr and exit code 2.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any  # noqa: UP035  (typer needs Optional on Python 3.10)

import typer

app = typer.Typer(
    name="ranger-eval",
    help="Honest statistics for comparing systems across datasets and metrics.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

EXIT_BAD_INPUT = 2


def fail(message: str) -> None:
    """Print one line ``ranger-eval: error: …`` on stderr and exit with code 2."""
    typer.echo(f"ranger-eval: error: {message}", err=True)
    raise typer.Exit(EXIT_BAD_INPUT)


def friendly_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn input errors (ValueError, OSError, KeyError) into a one-line message, no traceback."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except typer.Exit:
            raise
        except (ValueError, OSError, KeyError) as exc:
            message = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
            fail(" ".join(message.split()))

    return wrapper


def _version_callback(value: bool) -> None:
    if value:
        from ._version import __version__

        typer.echo(f"ranger-eval {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Show the version."
    ),
) -> None:
    """Ranger: effect sizes, meta-analysis and significance tests from per-item scores."""


def _run_meta(config: Path, out: Path, overrides: dict[str, Any]) -> None:
    import warnings

    from .experiment import run_experiment, write_outputs
    from .io import load_experiment

    exp = load_experiment(config, **overrides)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = run_experiment(exp)
    for w in caught:
        typer.echo(f"ranger-eval: warning: {w.message}", err=True)
    written = write_outputs(exp, res, out)
    typer.echo(res.result.summary())
    typer.echo("wrote: " + ", ".join(str(p) for p in written))


@app.command()
@friendly_errors
def meta(
    config: Path = typer.Argument(..., help="Experiment YAML (paths inside are relative to it)."),
    out: Path = typer.Option(Path("ranger-output"), "--out", "-o", help="Output folder."),
    method: str | None = typer.Option(None, help="τ² estimator: FE, DL, HE, HS, SJ, ML, REML, EB, PM."),  # noqa: UP007
    test: str | None = typer.Option(None, help="Test for the summary: z, t or knha."),  # noqa: UP007
    level: float | None = typer.Option(None, help="Confidence level, e.g. 0.95."),  # noqa: UP007
    measure: str | None = typer.Option(None, help="Effect measure: MD, SMD, SMCC, SMCR, ZCOR."),  # noqa: UP007
    order: str | None = typer.Option(None, help="Row order: given, effect, weight, name."),  # noqa: UP007
) -> None:
    """Meta-analyse an experiment: forest.pdf/svg/png, effects.csv, summary.json, summary.md."""
    _run_meta(
        config,
        out,
        {"method": method, "test": test, "level": level, "measure": measure, "order": order},
    )


@app.command()
@friendly_errors
def demo(
    out: Path = typer.Option(Path("demo-output"), "--out", "-o", help="Output folder."),
    seed: int = typer.Option(2023, help="Seed of the simulated data."),
) -> None:
    """Run the meta-analysis on a synthetic example the project generates itself.

    The data are simulated (six made-up tasks, a baseline and a compressed model); they
    illustrate the workflow and are not real results.
    """
    from .demo import write_demo

    yaml_path = write_demo(out / "example", seed=seed)
    typer.echo(f"synthetic example data written to {yaml_path.parent} (simulated, not real results)")
    _run_meta(yaml_path, out, {})


def _register_optional() -> None:
    """Attach the commands that live in their own modules (IR, comparison)."""
    for module in ("cli_trec", "cli_compare"):
        try:
            mod = __import__(f"ranger_eval.{module}", fromlist=["register"])
        except ModuleNotFoundError as exc:
            if exc.name != f"ranger_eval.{module}":
                raise
            continue
        mod.register(app)


_register_optional()


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover
        sys.exit(130)


if __name__ == "__main__":  # pragma: no cover
    main()
