"""The settings of :func:`~ranger_eval.irt`: :class:`IRTSettings`."""
from __future__ import annotations

from dataclasses import dataclass
from numbers import Real
from typing import Any, ClassVar

from ..errors import SettingsError
from ._base import _Bad, _choice, _setting, _Settings, _whole

#: The item response models of :func:`~ranger_eval.irt`: the Rasch model by conditional maximum
#: likelihood, the two-parameter logistic model by marginal maximum likelihood.
IRT_MODELS: tuple[str, ...] = ("rasch", "2pl")


def _mean_square(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 < float(value) < 10:
        raise _Bad(f"must be a positive mean square below 10, e.g. 0.5 or 1.5; got {value!r}")
    return float(value)


@dataclass(frozen=True)
class IRTSettings(_Settings):
    """The settings of :func:`~ranger_eval.irt` (item response theory on systems × items 0/1
    results). Python only (no command has options for them).

    ``model`` chooses the Rasch model (conditional maximum likelihood, equal to R ``eRm::RM``)
    or the 2PL model (marginal maximum likelihood, Bock–Aitkin EM on ``n_quadrature``
    Gauss–Hermite points). An item is flagged as misfitting when its infit or outfit mean
    square lies outside [``fit_low``, ``fit_high``] (Linacre's 0.5–1.5 "productive for
    measurement" band; Wright & Linacre 1994).

    Parameters
    ----------
    model : {'rasch', '2pl'}, default 'rasch'
        The item response model.
    n_quadrature : int, default 41
        Gauss–Hermite points of the 2PL's ability integral, 5 to 201.
    fit_low : float, default 0.5
        Mean squares below are flagged (overfit: too predictable).
    fit_high : float, default 1.5
        Mean squares above are flagged (underfit: noise).

    Raises
    ------
    SettingsError
        A refused value, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import IRTSettings
    >>> IRTSettings(model="2pl")
    IRTSettings(model='2pl', n_quadrature=41, fit_low=0.5, fit_high=1.5)
    """

    command: ClassVar[str] = "irt"
    section: ClassVar[str] = "irt"

    model: str = _setting(
        "rasch", "The item response model: rasch (conditional ML) or 2pl (marginal ML).",
        _choice(IRT_MODELS, "item response model", ignore_case=True), cli=False, yaml=None,
        signature="model")
    n_quadrature: int = _setting(
        41, "Gauss-Hermite points of the 2PL's ability integral.", _whole(5, 201), cli=False,
        yaml=None, signature="n_quadrature")
    fit_low: float = _setting(
        0.5, "Infit/outfit mean squares below are flagged.", _mean_square, cli=False, yaml=None)
    fit_high: float = _setting(
        1.5, "Infit/outfit mean squares above are flagged.", _mean_square, cli=False, yaml=None)

    def _check_combinations(self) -> None:
        if self.fit_low >= self.fit_high:
            raise SettingsError(f"fit_low: must be below fit_high ({self.fit_high}); got "
                                f"{self.fit_low}")
