"""The Markdown summary of a meta-analysis (``summary.md`` of ``ranger-eval meta``)."""
from __future__ import annotations

from collections.abc import Mapping

from ..formatting import format_level, format_percent, format_pvalue
from ..meta import MetaResult

__all__ = ["meta_markdown"]


def meta_markdown(
    result: MetaResult,
    *,
    n: Mapping[str, int] | None = None,
    title: str | None = None,
    control: str = "control",
    treatment: str = "treatment",
    skipped: Mapping[str, str] | None = None,
) -> str:
    """Per-dataset effects, the summary line and the model's numbers, then the signature.

    ``n`` maps dataset names to their number of items (the ``n`` column); ``skipped`` lists the
    datasets that could not be analysed, with the reason (reported, never silently left out).
    """
    r = result
    pct = format_level(r.level)
    n = n or {}
    lines = []
    if title:
        lines += [f"# {title}", ""]
    lines += [
        f"Effect measure **{r.measure}** of *{treatment}* over *{control}*; model: "
        f"{'fixed effect' if r.method in ('FE', 'EE') else f'random effects ({r.method})'}, "
        f"test {r.test}, {pct} intervals.",
        "",
        f"| task | n | effect | {pct} CI | weight |",
        "|---|---:|---:|---|---:|",
    ]
    frame = r.to_frame()
    for row in frame.itertuples(index=False):
        name = str(row.name)
        if name in r.names:
            lines.append(
                f"| {name} | {n.get(name, '')} | {row.yi:.6f} | [{row.ci_low:.6f}, "
                f"{row.ci_high:.6f}] | {format_percent(float(row.weight), 2)} |"  # type: ignore[arg-type]
            )
    lines += [
        f"| **summary** | | **{r.estimate:.6f}** | [{r.ci_low:.6f}, {r.ci_high:.6f}] | 100% |",
        "",
        f"{format_pvalue(r.pvalue, 4, prefix='p = ')}; prediction interval "
        f"[{r.pi_low:.6f}, {r.pi_high:.6f}]; "
        f"τ² = {r.tau2:.4g}, I² = {r.I2:.1f}%, H² = {r.H2:.3g}, Q({r.Q_df}) = {r.Q:.4g}, "
        f"{format_pvalue(r.Q_pvalue, 4, prefix='p(Q) = ')}.",
    ]
    if skipped:
        lines += ["", "Not analysed: " + "; ".join(f"{k} ({v})" for k, v in skipped.items()) + "."]
    lines += ["", f"`{r.signature}`"]
    return "\n".join(lines) + "\n"
