"""The equivalence / non-inferiority verdict of a meta-analysis against a margin.

A summary effect θ (treatment − control, positive = the treatment is better, as the forest
plot's "Favours" sides) is judged against a margin m > 0 in the effect measure's units by
where its intervals lie (Wellek 2010, "Testing Statistical Hypotheses of Equivalence and
Noninferiority", 2nd ed., §1.6: an equivalence test at α is an interval inclusion rule):

- the confidence interval of the summary at ``level``, inside (−m, m): **"equivalent across
  datasets"** (the average effect is negligible); else its lower bound above −m:
  **"non-inferior"** (where lower is better, ``higher_is_better=False``: its upper bound below
  +m); else **"inconclusive"**;
- separately, the prediction interval (the effect on a new dataset, ``predict.rma``) inside
  (−m, m): **"equivalent on a new dataset"**; lower bound above −m: **"non-inferior on a new
  dataset"**; else **"inconclusive on a new dataset"**.

The two-sided interval at ``level`` makes each side a one-sided test at (1 − level)/2: the
conservative reading (two one-sided tests at α = 1 − level use the 1 − 2α interval).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import MetaInputError

__all__ = ["MarginVerdict", "margin_verdict"]


@dataclass(frozen=True)
class MarginVerdict:
    """``margin``; ``summary`` (from the confidence interval) and ``new_dataset`` (from the
    prediction interval), each one of the module's verdicts."""

    margin: float
    summary: str
    new_dataset: str
    higher_is_better: bool = True

    def sentence(self) -> str:
        """One line in words: ``Margin ±0.05: non-inferior (confidence interval); inconclusive
        on a new dataset (prediction interval).``"""
        lower = "" if self.higher_is_better else " (lower is better)"
        return (f"Margin ±{self.margin:g}{lower}: {self.summary} (confidence interval); "
                f"{self.new_dataset} (prediction interval).")


def _verdict(low: float, high: float, margin: float, suffix: str,
             higher_is_better: bool) -> str:
    if -margin < low and high < margin:
        return "equivalent " + ("across datasets" if not suffix else suffix)
    if (low > -margin) if higher_is_better else (high < margin):
        return "non-inferior" + (f" {suffix}" if suffix else "")
    return "inconclusive" + (f" {suffix}" if suffix else "")


def margin_verdict(ci: tuple[float, float], pi: tuple[float, float], margin: float, *,
                   higher_is_better: bool = True) -> MarginVerdict:
    """The verdicts of the confidence interval ``ci`` and the prediction interval ``pi`` of a
    summary effect against ``(−margin, margin)`` (module docstring); ``higher_is_better=False``
    turns non-inferiority around (the effect must stay below +margin).

    Parameters
    ----------
    ci : tuple of float
        The confidence interval (low, high) of the summary effect.
    pi : tuple of float
        The prediction interval (low, high): the effect on a new dataset.
    margin : float
        m > 0, in the effect measure's units.
    higher_is_better : bool, default True
        Direction of the effect: with ``False`` non-inferior means below +m.

    Returns
    -------
    MarginVerdict
        ``summary`` (from ``ci``) and ``new_dataset`` (from ``pi``), with ``sentence()``.

    Raises
    ------
    MetaInputError
        A margin that is not positive and finite.

    References
    ----------
    Wellek (2010), *Testing Statistical Hypotheses of Equivalence and Noninferiority*, 2nd ed.,
    Chapman & Hall/CRC, §1.6.

    Examples
    --------
    >>> from ranger_eval.meta.verdict import margin_verdict
    >>> v = margin_verdict((0.01, 0.05), (-0.03, 0.09), 0.02)
    >>> v.summary, v.new_dataset
    ('non-inferior', 'inconclusive on a new dataset')
    >>> v.sentence()
    'Margin ±0.02: non-inferior (confidence interval); inconclusive on a new dataset (prediction interval).'
    """
    m = float(margin)
    if not (0.0 < m < math.inf):
        raise MetaInputError(f"margin: must be a positive, finite number in the effect "
                             f"measure's units; got {margin!r}")
    hib = bool(higher_is_better)
    return MarginVerdict(m, _verdict(float(ci[0]), float(ci[1]), m, "", hib),
                         _verdict(float(pi[0]), float(pi[1]), m, "on a new dataset", hib), hib)
