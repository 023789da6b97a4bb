"""``ranger-eval plan``: power, sample size or minimum detectable effect of a planned comparison,
from parameters (``--test paired-t --effect 0.02 --sd 0.1 --power 0.8``) or simulated from a pilot
file (``--pilot pilot.csv --treatment B --control A --effect 0.02 --power 0.8``)."""
from __future__ import annotations

from pathlib import Path

import typer

from ._common import (
    CLUSTER_HELP,
    command_line,
    friendly_errors,
    imports_done,
    report_written,
    warn,
)
from ._options import OutOption, default_out

_NUMBER = "(leave out the one to solve for)"


def register(app: typer.Typer) -> None:
    @app.command("plan")
    @friendly_errors
    def plan(  # noqa: PLR0913 - one option per keyword of ranger_eval.plan
        test: str | None = typer.Option(  # noqa: UP007
            None, "--test", help="Planned test: paired-t, welch, proportions-z, mcnemar, "
            "mcnemar-exact; with --pilot: auto (paired-t), paired-t, wilcoxon, sign."),
        effect: float | None = typer.Option(  # noqa: UP007
            None, "--effect", help="True difference treatment - control, in the metric's units "
            f"(standardised without --sd) {_NUMBER}."),
        n: float | None = typer.Option(  # noqa: UP007
            None, "--n", help=f"Items (per group for welch and proportions-z) {_NUMBER}."),
        power: float | None = typer.Option(  # noqa: UP007
            None, "--power", help=f"Power, e.g. 0.8 {_NUMBER}."),
        alpha: float = typer.Option(0.05, "--alpha", help="Significance level of the planned "
                                    "test."),
        alternative: str = typer.Option("two-sided", "--alternative",
                                        help="two-sided, greater or less."),
        sd: float | None = typer.Option(  # noqa: UP007
            None, "--sd", help="SD of the item-level differences (paired-t) or of the scores "
            "(welch); the between-item SD with --within-sd."),
        p_control: float | None = typer.Option(  # noqa: UP007
            None, "--p-control", help="Control's proportion (binary tests)."),
        p_treatment: float | None = typer.Option(  # noqa: UP007
            None, "--p-treatment", help="Treatment's proportion (instead of --effect)."),
        correlation: float | None = typer.Option(  # noqa: UP007
            None, "--correlation", help="φ correlation of the two systems' correctness "
            "(mcnemar)."),
        icc: float = typer.Option(0.0, "--icc", help="Intra-cluster correlation of the items."),
        cluster_size: int = typer.Option(1, "--cluster-size", help="Items per cluster."),
        k_samples: int = typer.Option(1, "--k-samples", help="Samples per item (averaged)."),
        within_sd: float | None = typer.Option(  # noqa: UP007
            None, "--within-sd", help="SD of one system's samples on one item."),
        margin: float | None = typer.Option(  # noqa: UP007
            None, "--margin", help="Equivalence (two-sided) or non-inferiority (one-sided) "
            "margin, in the metric's units."),
        pilot: Path | None = typer.Option(  # noqa: UP007
            None, "--pilot", help="Pilot scores (table, tool output or YAML): simulate from "
            "its per-item differences."),
        treatment: str | None = typer.Option(None, "--treatment", help="Pilot: the treatment."),  # noqa: UP007
        control: str | None = typer.Option(None, "--control", help="Pilot: the control."),  # noqa: UP007
        dataset: str | None = typer.Option(None, "--dataset", help="Pilot: the dataset."),  # noqa: UP007
        metric: str | None = typer.Option(None, "--metric", help="Pilot: the metric."),  # noqa: UP007
        cluster: str | None = typer.Option(  # noqa: UP007
            None, "--cluster", metavar="FIELD",
            help="Pilot: " + CLUSTER_HELP[0].lower() + CLUSTER_HELP[1:]
            + " The simulations draw whole clusters and the plan answers in whole clusters."),
        n_simulations: int = typer.Option(2000, "--n-simulations",
                                          help="Pilot: simulated experiments."),
        seed: int = typer.Option(0, "--seed", help="Pilot: seed of the simulations."),
        out: OutOption = default_out("plan"),
    ) -> None:
        """Plan a comparison: solve for the one of --effect, --n, --power left out; writes
        plan.md, plan.json and manifest.json."""
        from ..errors import ConfigError
        from ..pipeline import run_plan

        imports_done()
        if pilot is not None:
            if n is not None and float(n) != int(n):
                raise ConfigError(f"option --n: a whole number of items with --pilot; got {n}")
            run = run_plan(out, command_line(), test=test, pilot=pilot, metric=metric,
                           effect=effect, n=None if n is None else int(n), power=power,
                           alpha=alpha, alternative=alternative, treatment=treatment,
                           control=control, dataset=dataset, n_simulations=n_simulations,
                           seed=seed, cluster=cluster)
        else:
            pilot_only = {"--treatment": treatment, "--control": control, "--dataset": dataset,
                          "--metric": metric, "--cluster": cluster}
            stray = [k for k, v in pilot_only.items() if v is not None]
            if stray:
                raise ConfigError(f"option {', '.join(stray)}: only with --pilot (a pilot "
                                  "file's systems, dataset, metric and cluster field; without "
                                  "a pilot, --icc and --cluster-size describe the clusters)")
            whole = n is not None and float(n).is_integer()
            run = run_plan(out, command_line(), test=test, effect=effect,
                           n=int(n) if whole and n is not None else n, power=power, alpha=alpha,
                           alternative=alternative, sd=sd, p_control=p_control,
                           p_treatment=p_treatment, correlation=correlation, icc=icc,
                           cluster_size=cluster_size, k_samples=k_samples, within_sd=within_sd,
                           margin=margin)
        warn(run.warnings)
        typer.echo(run.result.summary())
        report_written(run.written)
