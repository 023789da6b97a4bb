"""Item response theory on systems × items 0/1 results: :func:`irt` and :class:`IRTResult`.

A system is a "person" of ability θ_v, an item has difficulty b_i (and, in the 2PL model,
discrimination a_i); P(x_vi = 1) = σ(a_i (θ_v − b_i)), σ the logistic function, a_i = 1 in the
Rasch model.

**Rasch** by conditional maximum likelihood (Andersen 1972): the item parameters maximise the
likelihood of the responses given each system's raw score, which does not involve θ; the
elementary symmetric functions are computed by the summation algorithm on their ratios
(numerically stable at 10,000 items: :mod:`ranger_eval.budget._rasch`) and Newton's method runs
with the exact Hessian. Difficulties sum to zero (eRm's default ``sum0``: its easiness
``betapar`` = −difficulty) and equal R ``eRm::RM`` to 1e-4 (eRm stops ``nlm`` at its default
gradient tolerance), standard errors too. Abilities are, as eRm's ``person.parameter``,
maximum likelihood given the items for every non-extreme raw score; a system with every item
right or wrong has no finite ML ability — eRm extrapolates a spline there, here Warm's (1989)
weighted likelihood estimate is given instead and the system is flagged ``extreme``.

**2PL** by marginal maximum likelihood (Bock & Aitkin 1981): θ ~ N(0, 1), the integral by
Gauss–Hermite quadrature, EM with a Newton M-step per item; abilities are expected a-posteriori
(EAP) with their posterior SD; standard errors from the cross-product (empirical) information
of the per-system scores (with at least as many parameters 2k as systems, that matrix is
singular and each item's own 2 × 2 block is inverted: its SEs given the other items).

**Items every system got right (or wrong)** have difficulty −∞ (+∞): they carry no information
about anything and are not estimable; they are left out of the fit, listed in
``excluded_items`` and counted in a warning (nothing is dropped silently), and :meth:`predict`
gives them P = 1 (0).

**Fit** (Wright & Masters 1982): with z_vi = (x − P)/√W, W = P(1 − P) over the non-extreme
systems, outfit = mean z², infit = Σ(x − P)² / ΣW, each with its Wilson–Hilferty standardised t
(t = (MSQ^{1/3} − 1)(3/q) + q/3, q² = ΣC/W²/n² − 1/n for outfit and Σ(C − W²)/(ΣW)² for
infit, C = W(1 − 3W)); an item outside [fit_low, fit_high] is flagged ``misfit``. The same
sums over a system's items give its fit (``system_infit`` …; NaN for an extreme system). Both
equal R ``eRm::itemfit`` and ``eRm::personfit`` (the sums over eRm's non-extreme persons).

:meth:`IRTResult.predict` is the building block of estimates from a subset of items: given a
new system's responses on some items, its ability (ML, or WLE when it has every item right or
wrong) from the fitted items and its probability of a correct answer on every item.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import optimize, special

from ..design import refuse_prompts
from ..errors import RangerWarning, VerdictError
from ..formatting import preview
from ..scores import Scores
from ..settings import IRTSettings, resolve_settings, signature_fields
from ..signature import Signature, make_signature
from ._rasch import fit_cml

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["IRTPrediction", "IRTResult", "irt"]

_DEFAULT = IRTSettings()


@dataclass(frozen=True)
class IRTPrediction:
    """A new system's ability and its probability of a correct answer on every item.

    ``ability`` and ``se`` (ML given the fitted items; WLE when the answers were all right or
    all wrong, ``extreme``), ``probability`` (a Series over every item of the fit, excluded
    ones at 1 or 0), ``n_items`` answered."""

    ability: float
    se: float
    probability: pd.Series
    n_items: int
    extreme: bool

    def expected_mean(self) -> float:
        """The predicted mean score over every item of the benchmark (mean of ``probability``)."""
        return float(self.probability.mean())


@dataclass(frozen=True)
class IRTResult:
    """The fit of :func:`irt`: item and system parameters, standard errors, fit statistics.

    Items are indexed by their id, systems by name (``pandas.Series``). ``difficulty`` b_i (sum
    zero in the Rasch model), ``discrimination`` a_i (1 in the Rasch model), ``ability`` θ_v,
    their ``*_se``; ``infit``, ``outfit`` and ``infit_t``, ``outfit_t``, ``misfit`` per item;
    ``extreme`` per system and the system fit ``system_infit``, ``system_outfit``,
    ``system_infit_t``, ``system_outfit_t`` (NaN for extreme systems, as eRm's ``personfit``);
    ``excluded_items`` (every system right: "all-correct", or wrong)."""

    model: str
    difficulty: pd.Series
    difficulty_se: pd.Series
    discrimination: pd.Series
    discrimination_se: pd.Series
    ability: pd.Series
    ability_se: pd.Series
    extreme: pd.Series
    infit: pd.Series
    outfit: pd.Series
    infit_t: pd.Series
    outfit_t: pd.Series
    misfit: pd.Series
    system_infit: pd.Series
    system_outfit: pd.Series
    system_infit_t: pd.Series
    system_outfit_t: pd.Series
    excluded_items: Mapping[str, str]
    loglik: float
    iterations: int
    n_quadrature: int
    settings: IRTSettings = field(default_factory=IRTSettings)

    @property
    def signature(self) -> Signature:
        return make_signature("irt", signature_fields(IRTSettings, self, {
            "n_quadrature": self.n_quadrature if self.model == "2pl" else None}))

    def probability(self, theta: float | np.ndarray) -> np.ndarray:
        """P(correct) of every fitted item at ability ``theta`` (array: one row per θ)."""
        t = np.atleast_1d(np.asarray(theta, dtype=float))[:, None]
        a = self.discrimination.to_numpy()
        b = self.difficulty.to_numpy()
        return special.expit(a * (t - b))

    def information(self, theta: float | np.ndarray) -> pd.DataFrame:
        """Item information I_i(θ) = a_i² P(1 − P) at each ``theta`` (rows) and item (columns);
        the test information is the row sum, the SE of an ability 1/√(test information)."""
        t = np.atleast_1d(np.asarray(theta, dtype=float))
        p = self.probability(t)
        a = self.discrimination.to_numpy()
        return pd.DataFrame(a**2 * p * (1 - p), index=pd.Index(t, name="theta"),
                            columns=self.difficulty.index)

    def predict(self, responses: Mapping[Any, float] | pd.Series) -> IRTPrediction:
        """A new system's ability and P(correct) on every item from its 0/1 ``responses`` on
        some items (a mapping or Series item → 0/1; items of the fit only), given the fitted
        item parameters: ML ability (WLE when every answered item is right or wrong) and
        P_i = σ(a_i(θ − b_i)) for every item; excluded items get 1 (all-correct) or 0.

        Examples
        --------
        >>> import numpy as np, ranger_eval as rg
        >>> rng = np.random.default_rng(0)
        >>> x = (rng.random((40, 8)) < np.linspace(0.2, 0.8, 8)).astype(int)
        >>> fit = rg.irt(x)
        >>> new = fit.predict({0: 1, 1: 0, 2: 1})
        >>> new.n_items, round(new.expected_mean(), 3)
        (3, 0.808)
        """
        series = pd.Series(responses, dtype=float)
        items = self.difficulty.index
        unknown = [i for i in series.index if i not in items and i not in self.excluded_items]
        if unknown:
            raise VerdictError(f"predict: item(s) {preview([str(u) for u in unknown])} are not "
                               f"items of the fit ({len(items)} items)")
        _check_binary(series.to_numpy()[None, :], ["new system"], list(series.index))
        fitted = series[[i for i in series.index if i in items]]
        if fitted.empty:
            raise VerdictError("predict: no response on a fitted item (only excluded items)")
        pos = items.get_indexer(fitted.index)
        a = self.discrimination.to_numpy()[pos]
        b = self.difficulty.to_numpy()[pos]
        x = fitted.to_numpy()
        theta, se, extreme = _ability_one(x, a, b)
        p = self.probability(theta)[0]
        full = pd.Series(p, index=items)
        extra = pd.Series({i: 1.0 if why == "all-correct" else 0.0
                           for i, why in self.excluded_items.items()}, dtype=float)
        return IRTPrediction(theta, se, pd.concat([full, extra]), int(series.size), extreme)

    def plot(self, **kwargs: Any) -> Figure:
        """Item characteristic curves and item information of a readable subset of items (the
        misfits and a spread of difficulties, or ``items=``), with the test information
        (:func:`ranger_eval.plots.irt.irt_plot`)."""
        from ..plots.irt import irt_plot

        return irt_plot(self, **kwargs)

    def to_frame(self) -> pd.DataFrame:
        """One row per item: difficulty, discrimination, their SEs, infit, outfit, t, misfit."""
        return pd.DataFrame({
            "difficulty": self.difficulty, "difficulty_se": self.difficulty_se,
            "discrimination": self.discrimination, "discrimination_se": self.discrimination_se,
            "infit": self.infit, "outfit": self.outfit, "infit_t": self.infit_t,
            "outfit_t": self.outfit_t, "misfit": self.misfit}).rename_axis("item")

    def abilities(self) -> pd.DataFrame:
        """One row per system: ability, its SE, whether its raw score was extreme, its fit."""
        return pd.DataFrame({"ability": self.ability, "ability_se": self.ability_se,
                             "extreme": self.extreme, "infit": self.system_infit,
                             "outfit": self.system_outfit, "infit_t": self.system_infit_t,
                             "outfit_t": self.system_outfit_t}).rename_axis("system")

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly: items, systems, excluded items, settings, the signature."""
        items = self.to_frame().reset_index()
        items["item"] = items["item"].astype(str)
        systems = self.abilities().reset_index()
        systems["system"] = systems["system"].astype(str)
        return {"model": self.model, "loglik": self.loglik, "iterations": self.iterations,
                "items": items.to_dict(orient="records"),
                "systems": systems.to_dict(orient="records"),
                "excluded_items": {str(k): v for k, v in self.excluded_items.items()},
                "settings": self.settings.as_dict(), "signature": str(self.signature)}

    def summary(self) -> str:
        """A few lines: model, counts, the hardest and easiest items, misfits."""
        d = self.difficulty.sort_values()
        name = "Rasch (conditional ML)" if self.model == "rasch" else "2PL (marginal ML)"
        lines = [f"{name}: {len(self.ability)} systems × {len(d)} items, log-likelihood "
                 f"{self.loglik:.4f}",
                 f"easiest item {d.index[0]} (b = {d.iloc[0]:.3f}), hardest {d.index[-1]} "
                 f"(b = {d.iloc[-1]:.3f})",
                 f"misfitting items (infit/outfit outside [{self.settings.fit_low}, "
                 f"{self.settings.fit_high}]): {int(self.misfit.sum())}"]
        if self.excluded_items:
            lines.append(f"not estimable, left out: {len(self.excluded_items)} item(s) "
                         f"({preview([str(k) for k in self.excluded_items])})")
        if self.extreme.any():
            lines.append(f"systems with every item right or wrong (WLE ability): "
                         f"{int(self.extreme.sum())}")
        lines.append(str(self.signature))
        return "\n".join(lines)


# --------------------------------------------------------------------------- input
def _check_binary(x: np.ndarray, systems: list[Any], items: list[Any]) -> None:
    bad = ~np.isin(x, (0.0, 1.0))
    if bad.any():
        v, i = np.argwhere(bad)[0]
        what = "a missing result" if np.isnan(x[v, i]) else f"value {x[v, i]!r}"
        raise VerdictError(
            f"irt: responses must be 0/1 (right/wrong) for every system and item; system "
            f"{systems[v]!r}, item {items[i]!r} has {what} ({int(bad.sum())} such cell(s)); "
            f"binarise scores first (e.g. value >= 0.5) and give every system every item")


def _wide(responses: Any) -> pd.DataFrame:
    """The systems × items table of ``responses`` (wide table or array, or long table)."""
    if isinstance(responses, Scores):
        refuse_prompts(responses, where="irt", error=VerdictError,
                       why="the model reads one 0/1 response per system × item (a mean over the "
                           "prompts is not one)", instead="select the rows of one prompt")
        responses = responses.table
    if isinstance(responses, pd.DataFrame) and {"system", "item", "value"} <= set(responses):
        long = responses
        for col in ("dataset", "metric"):
            if col in long and long[col].nunique() > 1:
                raise VerdictError(
                    f"irt: the responses hold {long[col].nunique()} {col}s "
                    f"({preview([str(v) for v in pd.unique(long[col])])}); fit one at a time: "
                    f"select it first (e.g. scores.table[scores.table.{col} == NAME])")
        dup = long.duplicated(["system", "item"])
        if dup.any():
            row = long[dup].iloc[0]
            raise VerdictError(f"irt: system {row['system']!r} has item {row['item']!r} more "
                               f"than once (seeds or samples: average or binarise first)")
        wide = long.pivot(index="system", columns="item", values="value")
        # the order of first appearance, as a wide table gives it
        wide = wide.reindex(index=pd.unique(long["system"]), columns=pd.unique(long["item"]))
        return wide.rename_axis(index=None, columns=None).astype(float)
    if isinstance(responses, pd.DataFrame):
        return responses.astype(float)
    arr = np.asarray(responses, dtype=float)
    if arr.ndim != 2:
        raise VerdictError(f"irt: responses must be a systems × items table; got an array of "
                           f"shape {arr.shape}")
    return pd.DataFrame(arr)


# --------------------------------------------------------------------------- abilities
def _ml_theta(r: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ML abilities solving Σ a_i (x_i − P_i) = 0 for weighted scores r (0 < r < Σa), Newton
    vectorised over r, started from the logit of the proportion."""
    total = a.sum()
    theta = np.log(r / (total - r)) + np.average(b, weights=a)
    for _ in range(100):
        p = special.expit(a * (theta[:, None] - b))
        f = (a * p).sum(1) - r
        d = (a**2 * p * (1 - p)).sum(1)
        step = f / d
        theta = theta - np.clip(step, -2, 2)
        if np.max(np.abs(step)) < 1e-12:
            break
    return theta


def _se(theta: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    p = special.expit(a * (np.atleast_1d(theta)[:, None] - b))
    return 1.0 / np.sqrt((a**2 * p * (1 - p)).sum(1))


def _wle(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Warm's (1989) weighted likelihood estimate: Σ a(x − P) + J/(2I) = 0, J = Σ a³P(1−P)(1−2P),
    I = Σ a²P(1−P) (finite for all-right and all-wrong answers)."""
    def eq(t: float) -> float:
        p = special.expit(a * (t - b))
        w = p * (1 - p)
        return float((a * (x - p)).sum() + (a**3 * w * (1 - 2 * p)).sum()
                     / (2 * (a**2 * w).sum()))
    lo, hi = b.min() - 30, b.max() + 30
    return float(optimize.brentq(eq, lo, hi, xtol=1e-13))


def _ability_one(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[float, float, bool]:
    r = float(a @ x)
    if x.min() == x.max():
        t = _wle(x, a, b)
        return t, float(_se(np.array([t]), a, b)[0]), True
    t = float(_ml_theta(np.array([r]), a, b)[0])
    return t, float(_se(np.array([t]), a, b)[0]), False


def _rasch_abilities(x: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    k = x.shape[1]
    a = np.ones(k)
    r = x.sum(1)
    theta = np.empty(x.shape[0])
    extreme = (r == 0) | (r == k)
    mid = np.unique(r[~extreme])
    if mid.size:
        t = _ml_theta(mid.astype(float), a, b)
        theta[~extreme] = t[np.searchsorted(mid, r[~extreme])]
    for v in np.flatnonzero(extreme):
        theta[v] = _wle(x[v], a, b)
    return theta, _se(theta, a, b), extreme


# --------------------------------------------------------------------------- fit statistics
def _wilson_hilferty(msq: np.ndarray, q: np.ndarray) -> np.ndarray:
    return (np.cbrt(msq) - 1) * 3 / q + q / 3


def _fit(x: np.ndarray, theta: np.ndarray, a: np.ndarray, b: np.ndarray,
         use: np.ndarray) -> tuple[np.ndarray, ...]:
    """Item fit (over the systems ``use``) and system fit (NaN for the others), each infit and
    outfit mean square with its Wilson–Hilferty t: eRm's ``itemfit`` / ``personfit``."""
    p = special.expit(a * (theta[use][:, None] - b))
    xs = x[use]
    w = p * (1 - p)
    res2 = (xs - p) ** 2
    c = w * (1 - 3 * w)
    out: list[np.ndarray] = []
    for axis in (0, 1):
        n = xs.shape[axis]
        outfit = (res2 / w).mean(axis)
        infit = res2.sum(axis) / w.sum(axis)
        q_out = np.sqrt(np.maximum((c / w**2).sum(axis) / n**2 - 1.0 / n, 1e-300))
        q_in = np.sqrt(np.maximum((c - w**2).sum(axis) / w.sum(axis) ** 2, 1e-300))
        stats = [infit, outfit, _wilson_hilferty(infit, q_in), _wilson_hilferty(outfit, q_out)]
        out.extend(stats if axis == 0 else [_spread(v, use) for v in stats])
    return tuple(out)


def _spread(values: np.ndarray, use: np.ndarray) -> np.ndarray:
    full = np.full(use.size, np.nan)
    full[use] = values
    return full


# --------------------------------------------------------------------------- 2PL
#: A 2PL discrimination beyond this (on the logit scale) is a step function: the marginal
#: likelihood grows without bound (a Heywood case) and the fit stops with an error.
MAX_DISCRIMINATION = 40.0


def _twopl(x: np.ndarray, n_q: int, items: list[Any]) -> tuple[Any, ...]:
    """Bock–Aitkin EM for the 2PL: returns a, b, their SEs, EAP θ, posterior SD, loglik, iters."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(n_q)
    weights = weights / weights.sum()
    n, k = x.shape
    p0 = np.clip(x.mean(0), 0.01, 0.99)
    a = np.ones(k)
    c = np.log(p0 / (1 - p0)) * 1.7 / 1.7
    loglik = -np.inf
    iterations = 0
    for it in range(1, 5001):
        iterations = it
        logit = nodes[:, None] * a + c                                 # Q × k
        lp1 = -np.logaddexp(0, -logit)
        lp0 = -np.logaddexp(0, logit)
        ll = x @ lp1.T + (1 - x) @ lp0.T + np.log(weights)              # n × Q
        norm = special.logsumexp(ll, axis=1)
        post = np.exp(ll - norm[:, None])
        new = float(norm.sum())
        nq = post.sum(0)                                                # Q
        rq = post.T @ x                                                 # Q × k
        before = np.concatenate([a, c])
        for _ in range(3):
            p = special.expit(nodes[:, None] * a + c)
            g_c = (rq - nq[:, None] * p).sum(0)
            g_a = (nodes[:, None] * (rq - nq[:, None] * p)).sum(0)
            w = nq[:, None] * p * (1 - p)
            h_cc = w.sum(0)
            h_ac = (nodes[:, None] * w).sum(0)
            h_aa = (nodes[:, None] ** 2 * w).sum(0)
            det = h_aa * h_cc - h_ac**2
            a = a + (h_cc * g_a - h_ac * g_c) / det
            c = c + (h_aa * g_c - h_ac * g_a) / det
        diverged = ~np.isfinite(a) | ~np.isfinite(c) | (np.abs(a) > MAX_DISCRIMINATION)
        if diverged.any():
            bad = [items[i] for i in np.flatnonzero(diverged)]
            raise VerdictError(
                f"irt: the 2PL has no finite maximum: the discrimination of item(s) "
                f"{preview([str(i) for i in bad])} grows without bound (|a| > "
                f"{MAX_DISCRIMINATION:g} after {it} EM iterations; a Heywood case): the item "
                f"splits the systems almost perfectly by ability. Fit model='rasch' (equal "
                f"discriminations), or leave the item out")
        if float(np.max(np.abs(np.concatenate([a, c]) - before))) < 1e-8:
            loglik = new
            break
        loglik = new
    # empirical (cross-product) information of the per-system scores in (a, c)
    p = special.expit(nodes[:, None] * a + c)
    logit = nodes[:, None] * a + c
    ll = x @ (-np.logaddexp(0, -logit)).T + (1 - x) @ (-np.logaddexp(0, logit)).T + np.log(weights)
    post = np.exp(ll - special.logsumexp(ll, axis=1)[:, None])
    eap = post @ nodes
    sd = np.sqrt(np.maximum(post @ nodes**2 - eap**2, 0))
    # score of system v: Σ_q post_vq (x_vi − P_iq)(θ_q, 1)
    resid_c = x - post @ p                                              # n × k
    resid_a = x * eap[:, None] - post @ (nodes[:, None] * p)
    if 2 * k < n:
        scores = np.concatenate([resid_a, resid_c], axis=1)
        cov = np.linalg.pinv(scores.T @ scores)
        var_a = np.diag(cov)[:k]
        var_c = np.diag(cov)[k:]
        cov_ac = np.diag(cov[:k, k:])
    else:
        # more parameters than systems: the full cross-product (rank ≤ n) is singular; each
        # item's own 2 × 2 block is inverted (the item's SEs given the other items)
        h_aa = (resid_a**2).sum(0)
        h_cc = (resid_c**2).sum(0)
        h_ac = (resid_a * resid_c).sum(0)
        det = h_aa * h_cc - h_ac**2
        var_a, var_c, cov_ac = h_cc / det, h_aa / det, -h_ac / det
    b = -c / a
    # delta method: b = −c/a
    var_b = (var_c / a**2 + c**2 * var_a / a**4 - 2 * c * cov_ac / a**3)
    return a, b, np.sqrt(var_a), np.sqrt(var_b), eap, sd, loglik, iterations


# --------------------------------------------------------------------------- entry point
def irt(responses: Any, *, model: str = _DEFAULT.model, n_quadrature: int = _DEFAULT.n_quadrature,
        fit_low: float = _DEFAULT.fit_low, fit_high: float = _DEFAULT.fit_high,
        settings: IRTSettings | None = None) -> IRTResult:
    """Item response theory on systems × items 0/1 results: item difficulties (and
    discriminations), system abilities, standard errors, item fit.

    Rasch (``model="rasch"``): P(x_vi = 1) = σ(θ_v − b_i), items by conditional maximum
    likelihood (sum-zero difficulties; = R ``eRm::RM`` to 1e-4 with β = −b), abilities by
    maximum likelihood given the items (= ``eRm::person.parameter`` for non-extreme scores;
    WLE for systems with every item right or wrong). 2PL (``model="2pl"``):
    P = σ(a_i(θ_v − b_i)) by marginal maximum likelihood (Bock–Aitkin EM, θ ~ N(0, 1),
    ``n_quadrature`` Gauss–Hermite points), EAP abilities. Formulas and the handling of
    all-correct items and extreme systems: :mod:`ranger_eval.budget.irt`.

    Parameters
    ----------
    responses : pandas.DataFrame, array or Scores
        Wide: systems as rows, items as columns (an array: rows and columns numbered). Long: a
        table with ``system``, ``item``, ``value`` columns (or a :class:`Scores`), one dataset
        and metric (several are an error: select one first). Values 0 or 1, no gaps.
    model : {"rasch", "2pl"}, default "rasch"
        The item response model.
    n_quadrature : int, default 41
        Gauss–Hermite points (2PL).
    fit_low, fit_high : float, default 0.5, 1.5
        The infit/outfit band outside which an item is flagged ``misfit``.
    settings : IRTSettings, optional
        The settings object instead of the keywords (a keyword other than its default next to
        it is a ``SettingsError``).

    Returns
    -------
    IRTResult
        ``difficulty``, ``discrimination``, ``ability`` with SEs, ``infit``/``outfit``,
        ``misfit``, ``information(θ)``, ``predict(responses)``, ``plot()``, ``signature``.

    Raises
    ------
    VerdictError
        Values other than 0/1 or missing cells (naming the system and item), several datasets
        or metrics, fewer than 2 systems or 2 estimable items.

    References
    ----------
    Andersen, E. B. (1972), "The numerical solution of a set of conditional estimation
    equations", JRSS-B 34:42–54. Bock, R. D. & Aitkin, M. (1981), Psychometrika 46:443–459.
    Mair, P. & Hatzinger, R. (2007), "Extended Rasch modeling: the eRm package", JSS 20(9).
    Warm, T. A. (1989), Psychometrika 54:427–450. Wright, B. D. & Masters, G. N. (1982),
    Rating Scale Analysis, MESA Press.

    Examples
    --------
    >>> import numpy as np, ranger_eval as rg
    >>> rng = np.random.default_rng(0)
    >>> x = (rng.random((40, 8)) < np.linspace(0.2, 0.8, 8)).astype(int)
    >>> fit = rg.irt(x)
    >>> [round(v, 3) for v in fit.difficulty.iloc[:3]]
    [0.755, 1.201, 0.891]
    >>> abs(float(fit.difficulty.sum())) < 1e-12
    True
    """
    settings = resolve_settings(IRTSettings, {
        "model": model, "n_quadrature": n_quadrature, "fit_low": fit_low,
        "fit_high": fit_high}, settings, where="irt")
    wide = _wide(responses)
    systems, items = list(wide.index), list(wide.columns)
    x = wide.to_numpy(dtype=float)
    _check_binary(x, systems, items)
    if x.shape[0] < 2:
        raise VerdictError(f"irt: needs at least 2 systems; got {x.shape[0]}")
    col = x.sum(0)
    n = x.shape[0]
    excluded = {items[i]: ("all-correct" if col[i] == n else "all-wrong")
                for i in np.flatnonzero((col == 0) | (col == n))}
    if excluded:
        warnings.warn(
            f"irt: {len(excluded)} item(s) answered the same by every system "
            f"({preview([str(k) for k in excluded])}) have difficulty ±∞ and are not "
            f"estimable; left out of the fit (excluded_items; predict gives them P = 1 or 0)",
            RangerWarning, stacklevel=2)
    keep = np.flatnonzero((col > 0) & (col < n))
    if keep.size < 2:
        raise VerdictError(f"irt: needs at least 2 items that some systems got right and some "
                           f"wrong; got {keep.size} of {len(items)}")
    x = x[:, keep]
    item_index = pd.Index([items[i] for i in keep], name="item")
    system_index = pd.Index(systems, name="system")
    k = x.shape[1]
    if settings.model == "rasch":
        r = x.sum(1).astype(np.int64)
        mid = (r > 0) & (r < k)
        if not mid.any():
            raise VerdictError("irt: every system got every item right or every item wrong; "
                               "the Rasch model's conditional likelihood is empty")
        scores, counts = np.unique(r[mid], return_counts=True)
        totals, inverse, mult = np.unique(x.sum(0), return_inverse=True, return_counts=True)
        cml = fit_cml(totals.astype(float), mult, scores, counts)
        b = -cml.beta[inverse]
        b_se = np.sqrt(cml.var_item[inverse])
        a = np.ones(k)
        a_se = np.zeros(k)
        theta, theta_se, extreme = _rasch_abilities(x, b)
        loglik, iterations = cml.loglik, cml.iterations
    else:
        a, b, a_se, b_se, theta, theta_se, ll, its = _twopl(x, settings.n_quadrature, list(item_index))
        loglik, iterations = float(ll), int(its)
        extreme = (x.sum(1) == 0) | (x.sum(1) == k)
    use = ~extreme if (~extreme).any() else np.ones(n, dtype=bool)
    infit, outfit, t_in, t_out, s_in, s_out, s_tin, s_tout = _fit(x, theta, a, b, use)
    misfit = ((infit < settings.fit_low) | (infit > settings.fit_high)
              | (outfit < settings.fit_low) | (outfit > settings.fit_high))

    def s_item(v: np.ndarray) -> pd.Series:
        return pd.Series(np.asarray(v, dtype=float), index=item_index)

    def s_sys(v: np.ndarray) -> pd.Series:
        return pd.Series(v, index=system_index)

    return IRTResult(
        model=settings.model, difficulty=s_item(b), difficulty_se=s_item(b_se),
        discrimination=s_item(a), discrimination_se=s_item(a_se),
        ability=s_sys(np.asarray(theta, dtype=float)), ability_se=s_sys(np.asarray(theta_se)),
        extreme=s_sys(np.asarray(extreme, dtype=bool)), infit=s_item(infit),
        outfit=s_item(outfit), infit_t=s_item(t_in), outfit_t=s_item(t_out),
        misfit=pd.Series(misfit, index=item_index), system_infit=s_sys(s_in),
        system_outfit=s_sys(s_out), system_infit_t=s_sys(s_tin), system_outfit_t=s_sys(s_tout),
        excluded_items=excluded,
        loglik=float(loglik), iterations=int(iterations), n_quadrature=settings.n_quadrature,
        settings=settings)
