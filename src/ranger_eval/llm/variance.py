"""Variance components of LLM scores across items, prompts and samples, and the D-study.

:func:`variance_components` fits, per system × dataset × metric, the crossed random-effects model

    value = mu + a_item + b_prompt [+ c_item:prompt] + e          (one row per sample)

by REML (:func:`ranger_eval.stats.crossed.crossed_reml`: our own vectorised fit, equal to
``lme4::lmer(value ~ 1 + (1|item) + (1|prompt) [+ (1|item:prompt)], REML = TRUE)``). The
item × prompt component is estimable only with replicate samples in some item × prompt cell;
without them it is part of the residual. Shares are each component over their sum.

:meth:`VarianceComponents.project` is the decision study of generalizability theory (Brennan
2001, ch. 4; Cronbach et al. 1972): the standard error of a system's mean score over a random
sample of ``n_items`` items × ``n_prompts`` prompts × ``n_samples`` samples is

    SE^2 = s2_item / n_i + s2_prompt / n_p + s2_item:prompt / (n_i n_p) + s2_e / (n_i n_p n_s)

so a user sees whether more questions, more prompts or more samples buy the most precision per
call (``calls = n_i n_p n_s``). Without a fitted item × prompt component the residual holds it:
with one sample per cell it is divided by n_i n_p (more samples cannot be told apart from more
cells, so they are not credited), else by n_i n_p n_s.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ScoresError, StatsInputError
from ..scores import Scores, as_scores
from ..settings import VarianceSettings, resolve_settings, signature_fields
from ..signature import Signature, make_signature
from ..stats.crossed import check_crossed, crossed_reml
from ..stats.describe import PROMPTS_NOTE

__all__ = ["VarianceComponents", "VarianceRow", "variance_components"]

_DEFAULT = VarianceSettings()
#: the components of a row, in order (their column names are ``var_<name>``/``share_<name>``)
COMPONENTS = ("item", "prompt", "item_prompt", "residual")


@dataclass(frozen=True)
class VarianceRow:
    """The variance components of one system × dataset × metric.

    ``item``, ``prompt``, ``item_prompt``, ``residual`` are the REML variances (``prompt`` NaN
    without the prompt factor, ``item_prompt`` NaN where not fitted: then it is inside
    ``residual``); ``mean`` the REML (GLS) mean and ``se`` its standard error under the fitted
    model; ``n_obs`` rows, ``n_items``, ``n_prompts`` (0 without prompts), ``n_cells`` item ×
    prompt cells present, ``samples_per_cell`` the mean rows per cell.
    """

    dataset: str
    metric: str
    system: str
    mean: float
    se: float
    item: float
    prompt: float
    item_prompt: float
    residual: float
    n_obs: int
    n_items: int
    n_prompts: int
    n_cells: int
    samples_per_cell: float

    @property
    def total(self) -> float:
        """The sum of the fitted components."""
        return float(np.nansum([self.item, self.prompt, self.item_prompt, self.residual]))

    def share(self, name: str) -> float:
        """Component ``name``'s share of the total (NaN where not fitted or the total is 0)."""
        value = getattr(self, name)
        total = self.total
        return float(value / total) if total > 0 and np.isfinite(value) else float("nan")

    def project_se(self, n_items: float, n_prompts: float, n_samples: float) -> float:
        """The D-study standard error of the mean (module docstring)."""
        var = self.item / n_items
        if np.isfinite(self.prompt):
            var += self.prompt / n_prompts
        cells = n_items * (n_prompts if np.isfinite(self.prompt) else 1.0)
        if np.isfinite(self.item_prompt):
            var += self.item_prompt / cells + self.residual / (cells * n_samples)
        elif self.samples_per_cell > 1:
            var += self.residual / (cells * n_samples)
        else:  # one sample per cell: the residual is per cell
            var += self.residual / cells
        return float(np.sqrt(var))


@dataclass(frozen=True)
class VarianceComponents:
    """The result of :func:`variance_components`: one :class:`VarianceRow` per system × dataset ×
    metric (``rows``), the ``factors`` fitted, whether the item × prompt component was fitted
    (``interaction``: per row, NaN where not), and the ``settings`` of the call.

    ``to_frame()`` has columns ``dataset, metric, system, n_obs, n_items, n_prompts, n_cells,
    samples_per_cell, mean, se``, then ``var_<c>`` and ``share_<c>`` for ``c`` in item, prompt,
    item_prompt, residual. :meth:`project` is the D-study.
    """

    rows: tuple[VarianceRow, ...]
    factors: tuple[str, ...]
    interaction: str
    settings: VarianceSettings | None = field(default=None, compare=False, repr=False)

    @property
    def signature(self) -> Signature:
        """``kind:variance|factors:item,prompt|interaction:auto``."""
        return make_signature("variance", signature_fields(VarianceSettings, self, {}))

    def to_frame(self) -> pd.DataFrame:
        """One row per system × dataset × metric (class docstring)."""
        recs = []
        for r in self.rows:
            rec: dict[str, Any] = {
                "dataset": r.dataset, "metric": r.metric, "system": r.system,
                "n_obs": r.n_obs, "n_items": r.n_items, "n_prompts": r.n_prompts,
                "n_cells": r.n_cells, "samples_per_cell": r.samples_per_cell,
                "mean": r.mean, "se": r.se}
            for c in COMPONENTS:
                rec[f"var_{c}"] = getattr(r, c)
            for c in COMPONENTS:
                rec[f"share_{c}"] = r.share(c)
            recs.append(rec)
        frame = pd.DataFrame.from_records(recs)
        frame.attrs["signature"] = str(self.signature)
        return frame

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly: settings, every row (NaN as None) and the signature."""
        frame = self.to_frame()
        rows = [{k: (None if isinstance(v, float) and not np.isfinite(v) else v)
                 for k, v in rec.items()} for rec in frame.to_dict(orient="records")]
        return {"factors": list(self.factors), "interaction": self.interaction,
                "rows": rows, "signature": str(self.signature)}

    def project(self, *, n_items: int | None = None, n_prompts: int | None = None,
                n_samples: int | None = None) -> pd.DataFrame:
        """The D-study: the standard error of each system's mean under another design.

        ``SE^2 = s2_item/n_i + s2_prompt/n_p + s2_item:prompt/(n_i n_p) + s2_e/(n_i n_p n_s)``
        (module docstring; Brennan 2001, ch. 4). A count left out is the row's own (items,
        prompts, mean samples per cell).

        Parameters
        ----------
        n_items, n_prompts, n_samples : int, optional
            The planned numbers of items, prompts and samples per item × prompt cell.

        Returns
        -------
        pandas.DataFrame
            ``dataset, metric, system, n_items, n_prompts, n_samples, calls`` (n_i · n_p · n_s
            generations), ``se`` and ``se_now`` (the same formula at the observed design).

        Raises
        ------
        StatsInputError
            A count that is not a whole number ≥ 1.

        References
        ----------
        Brennan, R. L. (2001), *Generalizability Theory*, Springer, ch. 4 (D studies).

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import ranger_eval as rg
        >>> rng = np.random.default_rng(0)
        >>> item = np.repeat(np.arange(40), 8); prompt = np.tile(np.repeat(np.arange(4), 2), 40)
        >>> value = rng.normal(size=40)[item] + 0.5 * rng.normal(size=4)[prompt] + rng.normal(size=320)
        >>> table = pd.DataFrame({"dataset": "qa", "system": "A", "item": item, "prompt": prompt,
        ...                       "sample": np.tile([0, 1], 160), "value": value})
        >>> vc = rg.variance_components(table)
        >>> d = vc.project(n_prompts=16)
        >>> bool(d["se"].iloc[0] < d["se_now"].iloc[0])
        True
        """
        for name, v in (("n_items", n_items), ("n_prompts", n_prompts),
                        ("n_samples", n_samples)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer))
                                  or v < 1):
                raise StatsInputError(f"project: {name} must be a whole number ≥ 1; got {v!r}")
        recs = []
        for r in self.rows:
            ni = float(n_items if n_items is not None else r.n_items)
            npr = float(n_prompts if n_prompts is not None else max(r.n_prompts, 1))
            ns = float(n_samples if n_samples is not None else r.samples_per_cell)
            now = r.project_se(r.n_items, max(r.n_prompts, 1), r.samples_per_cell)
            recs.append({"dataset": r.dataset, "metric": r.metric, "system": r.system,
                         "n_items": ni, "n_prompts": npr, "n_samples": ns,
                         "calls": ni * npr * ns, "se": r.project_se(ni, npr, ns),
                         "se_now": now})
        return pd.DataFrame.from_records(recs)

    def summary(self) -> str:
        """The components and shares as text, one line per system × dataset × metric."""
        lines = [f"Variance components (REML; factors {', '.join(self.factors)})"]
        for r in self.rows:
            parts = [f"{c} {getattr(r, c):.4g} ({100 * r.share(c):.1f}%)" for c in COMPONENTS
                     if np.isfinite(getattr(r, c))]
            lines.append(f"{r.dataset} / {r.metric} / {r.system}: mean {r.mean:.4g} "
                         f"(se {r.se:.3g}); " + ", ".join(parts))
        if any(r.n_prompts > 1 for r in self.rows):
            lines.append(PROMPTS_NOTE.replace("se_crossed", "se").replace(
                "per-item s/√n (se)", "per-item s/√n (describe's se)"))
        lines.append(str(self.signature))
        return "\n".join(lines)


def variance_components(
    scores: Scores | pd.DataFrame,
    *,
    factors: Sequence[str] = _DEFAULT.factors,
    interaction: str = _DEFAULT.interaction,
    settings: VarianceSettings | None = None,
) -> VarianceComponents:
    """REML variance components of each system's scores across items, prompts and samples.

    Per system × dataset × metric: ``value = mu + a_item + b_prompt [+ c_item:prompt] + e`` on
    the rows as given (every sample), fitted by our own REML
    (:mod:`ranger_eval.stats.crossed`: cells, Woodbury + Schur complement, profiled criterion,
    Newton to 1e-8), equal to ``lme4::lmer(value ~ 1 + (1|item) + (1|prompt)
    [+ (1|item:prompt)], REML = TRUE)``. Shares are component / sum of components;
    :meth:`VarianceComponents.project` is the D-study.

    Parameters
    ----------
    scores : Scores or pandas.DataFrame
        Scores with a ``prompt`` column and/or a ``sample`` column (replicate generations).
    factors : sequence of str, default ('item', 'prompt')
        The random factors; ``prompt`` is used when the scores have a prompt column.
    interaction : {'auto', 'always', 'never'}, default 'auto'
        The item × prompt component: where estimable (replicate samples in some cell), required,
        or left in the residual.
    settings : VarianceSettings, optional
        The settings object (instead of the keywords).

    Returns
    -------
    VarianceComponents
        One row per system × dataset × metric; ``to_frame``, ``to_dict``, ``summary``,
        ``project``.

    Raises
    ------
    ScoresError
        One prompt, prompts not crossed with items, no prompts and no replicate samples, or the
        item × prompt component required without replicate samples.

    References
    ----------
    Bates et al. (2015), "Fitting linear mixed-effects models using lme4", JSS 67(1);
    Brennan, R. L. (2001), *Generalizability Theory*, ch. 4; Madaan et al. (2024),
    "Quantifying variance in evaluation benchmarks", arXiv:2406.10229.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import ranger_eval as rg
    >>> rng = np.random.default_rng(0)
    >>> item = np.repeat(np.arange(40), 8); prompt = np.tile(np.repeat(np.arange(4), 2), 40)
    >>> value = rng.normal(size=40)[item] + 0.5 * rng.normal(size=4)[prompt] + rng.normal(size=320)
    >>> table = pd.DataFrame({"dataset": "qa", "system": "A", "item": item, "prompt": prompt,
    ...                       "sample": np.tile([0, 1], 160), "value": value})
    >>> vc = rg.variance_components(table)
    >>> vc.to_frame()[["n_items", "n_prompts", "n_cells"]].values.tolist()
    [[40, 4, 160]]
    >>> round(float(vc.to_frame()[[c for c in vc.to_frame() if c.startswith("share_")]].sum(axis=1).iloc[0]), 6)
    1.0
    """
    settings = resolve_settings(VarianceSettings, {"factors": factors,
                                                   "interaction": interaction},
                                settings, where="variance_components")
    scores = as_scores(scores, what="variance_components", error=ScoresError)
    raw = scores.raw_frame
    use_prompt = "prompt" in settings.factors and scores.has_prompts
    keys = ["dataset", "metric", "system"]
    rows = []
    for (dataset, metric, system), sub in raw.groupby(keys, sort=False, observed=True):
        where = f"dataset {dataset!r}, metric {metric!r}, system {system!r}"
        y = sub["value"].to_numpy(dtype=np.float64)
        item = sub["item"].to_numpy()
        prompt = sub["prompt"].to_numpy() if use_prompt else None
        cell_key = ((sub["item"] + "\x1f" + sub["prompt"]) if use_prompt else sub["item"])
        n_cells = int(cell_key.nunique())
        replicated = n_cells < len(sub)
        if prompt is not None:
            check_crossed(where, item, prompt)
        elif not replicated:
            raise ScoresError(f"{where}: one row per item and no prompt column: the item "
                              "variance cannot be told from the residual (add a sample or a "
                              "prompt column)")
        inter = use_prompt and (settings.interaction == "always"
                                or (settings.interaction == "auto" and replicated))
        if inter and not replicated:
            raise ScoresError(f"{where}: interaction='always' but no item × prompt cell has "
                              "more than one sample; the item × prompt component is not "
                              "estimable (it is inside the residual)")
        try:
            fit = crossed_reml(y, item, prompt, interaction=inter, tol=settings.tol)
        except StatsInputError as exc:
            raise ScoresError(f"{where}: {exc}") from None
        rows.append(VarianceRow(
            dataset=str(dataset), metric=str(metric), system=str(system), mean=fit.mu,
            se=float(np.sqrt(fit.mu_var)), item=fit.item_var,
            prompt=fit.prompt_var if use_prompt else float("nan"),
            item_prompt=fit.interaction_var, residual=fit.residual_var, n_obs=fit.n_obs,
            n_items=fit.n_items, n_prompts=fit.n_prompts, n_cells=n_cells,
            samples_per_cell=float(len(sub) / n_cells)))
    return VarianceComponents(rows=tuple(rows), factors=settings.factors,
                              interaction=settings.interaction, settings=settings)
