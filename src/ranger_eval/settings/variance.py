"""The settings of :func:`~ranger_eval.variance_components`: :class:`VarianceSettings`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ._base import _Bad, _choice, _setting, _Settings

#: The random factors a variance decomposition may hold (``item`` always).
VARIANCE_FACTORS: tuple[str, ...] = ("item", "prompt")
#: Whether the item × prompt component is fitted: ``auto`` where estimable (replicate samples
#: in some item × prompt cell), ``always`` (an error where not estimable), ``never``.
INTERACTIONS: tuple[str, ...] = ("auto", "always", "never")


def _factors(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = (value,)
    try:
        out = tuple(str(v) for v in value)
    except TypeError:
        raise _Bad(f"must be a sequence of factor names from {', '.join(VARIANCE_FACTORS)}; "
                   f"got {value!r}") from None
    unknown = [v for v in out if v not in VARIANCE_FACTORS]
    if unknown:
        raise _Bad(f"unknown factor {unknown[0]!r}; use {', '.join(VARIANCE_FACTORS)} "
                   "(samples are the residual)")
    if "item" not in out or len(set(out)) != len(out):
        raise _Bad(f"must name 'item' (and optionally 'prompt') once each; got {out!r}")
    return tuple(f for f in VARIANCE_FACTORS if f in out)


@dataclass(frozen=True)
class VarianceSettings(_Settings):
    """The settings of :func:`~ranger_eval.variance_components` (REML variance components of
    each system's scores across items, prompts and samples). Python only.

    Parameters
    ----------
    factors : tuple of str, default ('item', 'prompt')
        The random factors: ``item`` and, when the scores have a ``prompt`` column, ``prompt``.
    interaction : {'auto', 'always', 'never'}, default 'auto'
        The item × prompt component: where estimable (``auto``: replicate samples in some
        item × prompt cell), required (``always``) or left in the residual (``never``).
    tol : float, default 1e-8
        Convergence of the REML variance parameters.

    Raises
    ------
    SettingsError
        A refused value, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import VarianceSettings
    >>> VarianceSettings(factors=["item"])
    VarianceSettings(factors=('item',), interaction='auto', tol=1e-08)
    """

    command: ClassVar[str] = "variance"
    section: ClassVar[str] = "variance"

    factors: tuple[str, ...] = _setting(
        ("item", "prompt"), "The random factors: item, and prompt.", _factors, cli=False,
        yaml=None, signature="factors")
    interaction: str = _setting(
        "auto", "The item x prompt component: auto (where estimable), always or never.",
        _choice(INTERACTIONS, "interaction"), cli=False, yaml=None, signature="interaction")
    tol: float = _setting(
        1e-8, "Convergence of the REML variance parameters, 1e-14 to 1e-4.",
        lambda v: _tol(v), cli=False, yaml=None)


def _tol(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            1e-14 <= float(value) <= 1e-4):
        raise _Bad(f"must be a number from 1e-14 to 1e-4; got {value!r}")
    return float(value)
