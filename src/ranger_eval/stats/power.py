"""Power, sample size and minimum detectable effect of the tests Ranger runs.

:func:`plan` solves the one unknown among ``effect``, ``n`` and ``power`` of a planned comparison
of two systems, for the tests ``compare`` runs:

``paired-t``
    Paired t test of the per-item differences (statsmodels ``TTestPower``, R
    ``pwr.t.test(type="paired")``). With ``sd`` the SD of the per-item differences, the
    standardised effect is d = effect / σ; the power of the two-sided test is
    ``P(T' > t_{1-α/2,ν}) + P(T' < -t_{1-α/2,ν})``, T' noncentral t with ν = n − 1 degrees of
    freedom and noncentrality d·√n (Cohen 1988, ch. 2).
``welch``
    Two independent groups of n items each (statsmodels ``TTestIndPower``, ``pwr.t.test(type=
    "two.sample")``): ν = 2(n − 1), noncentrality d·√(n/2). With equal group sizes and SDs,
    Welch's degrees of freedom are those of the pooled test, whose power this is.
``proportions-z``
    Two independent proportions by Cohen's h = 2·asin√p_t − 2·asin√p_c, power
    Φ(h√(n/2) − z_{1-α/2}) + Φ(−h√(n/2) − z_{1-α/2}) (statsmodels ``NormalIndPower``, R
    ``pwr.2p.test``).
``mcnemar``
    McNemar's asymptotic test of paired binary scores (Connor 1987; R ``MESS::power_mcnemar_test
    (method="normal")``): with discordant probabilities p₁₀ (treatment right, control wrong) and
    p₀₁, δ = p₁₀ − p₀₁ = p_t − p_c and p_d = p₁₀ + p₀₁, power
    Φ((√n·|δ| − z_{1-α/s}·√p_d) / √(p_d − δ²)), s = 2 for a two-sided test (the far tail left out,
    as in Connor's formula). The discordant probabilities come from the marginal accuracies
    ``p_control``, ``p_treatment`` and their item-level ``correlation`` φ:
    p₁₁ = p_t·p_c + φ·√(p_t(1−p_t)p_c(1−p_c)).
``mcnemar-exact``
    The exact (conditional binomial) McNemar test, its unconditional power summed over the number
    of discordant pairs D ~ Bin(n, p_d): Σ_D P(D)·P(reject | D), the test one-sided at α/2 in the
    direction of the effect for a two-sided test (R ``exact2x2::powerPaired2x2(strict=FALSE)``).

**Equivalence and non-inferiority**: with ``margin`` Δ > 0 (in the metric's units),
``alternative="two-sided"`` plans the two one-sided tests (TOST) of H₀: |δ| ≥ Δ (equivalence),
``"greater"`` the non-inferiority test H₀: δ ≤ −Δ (the treatment loses at most Δ), ``"less"``
H₀: δ ≥ Δ (for a metric where lower is better). For ``paired-t`` and ``welch`` the TOST power is
exact (Owen's Q, as R ``PowerTOST::power.TOST(method="exact", logscale=FALSE)``):
``E_s[max(0, Φ((Δ − θ)/se − t·ŝ/se) − Φ((−Δ − θ)/se + t·ŝ/se))]`` over ŝ/se ~ √(χ²_ν/ν), and the
non-inferiority power is the noncentral t's (``PowerTOST::power.noninf``). Two proportions use
the Wald statistic with the unpooled SE at the planned proportions (normal approximation).

**Paired binary scores against a margin** (δ = p₁₀ − p₀₁ = p_t − p_c; u items where only the
treatment is right, v discordant items, δ̂ = (2u − v)/n, σ̂² = v/n − δ̂²) are planned for Wellek's
asymptotic tests (Wellek 2010, *Testing Statistical Hypotheses of Equivalence and
Noninferiority*, 2nd ed., §5.2): non-inferiority rejects H₀: δ ≤ −Δ when
T = √n(δ̂ + Δ)/σ̂ > z_{1−α} (Wald; R ``EQUIVNONINF::mcnasc_ni``); equivalence rejects
H₀: |δ| ≥ Δ when √n|δ̂|/σ̂ < C, C² the α quantile of the noncentral χ²₁ with noncentrality
nΔ²/σ̂² (``EQUIVNONINF::mcnempow``; √nc + z_α when nc > 100, as there). ``mcnemar-exact`` gives
their **exact** power, Σ_v Bin(v; n, p_d) · P(u in the rejection region | v), u | v ~
Bin(v, p₁₀/p_d) — equal to ``mcnempow`` (equivalence) and to ``mcnasc_ni``'s exact size on the
boundary (non-inferiority) at 1e-9 (tests/oracles/power_mcnemar_margin.R); the exact power is
not monotone in n, so the solved n is the smallest that reaches the power. ``mcnemar`` gives
their large-sample power, with σ² = p_d − δ² and n/DE items: Φ(√n(δ + Δ)/σ − z_{1−α})
(non-inferiority; Lu & Bean 1995, Stat. Med. 14:1831) and Φ(c − √nδ/σ) − Φ(−c − √nδ/σ),
c² = χ²₁,α(nΔ²/σ²) (equivalence), which approaches the exact power as n grows. ``compare``
tests paired 0/1 scores against a margin with Tango's (1998) score test, which has the same
hypotheses and the same large-sample behaviour at δ = 0; its small-sample power differs slightly.

**Clusters** (items in clusters of m with intra-cluster correlation ICC) inflate the variance of a
mean by the design effect DE = 1 + (m − 1)·ICC (Kish 1965; Donner & Klar 2000): the effective
number of items is n/DE, and the t tests use the cluster-robust degrees of freedom C − 1 (paired)
or 2(C − 1) (two groups), C = n/m clusters. With equal clusters this is exactly the power of the
t test on the C cluster means (their variance is σ²·DE/m), which the cluster-robust test of
``compare`` generalises to unequal clusters. **Repeated samples**: with K samples per item and a
within-item SD σ_w of one system's single score, the variance of an item's mean is
σ² + σ_w²/K (Miller 2024, "Adding Error Bars to Evals", §4), and that of a paired difference
σ² + 2σ_w²/K; ``sd`` is then the between-item SD.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
from scipy import integrate, optimize, special
from scipy import stats as sps

from ..errors import Hint, renamed_keywords
from ..settings import PLAN_TESTS, PlanSettings, resolve_settings
from ..signature import Signature, make_signature
from ._validation import StatsInputError, check_choice

__all__ = ["PLAN_TESTS", "Plan", "plan", "power_of", "detectable_noncentrality",
           "minimum_detectable_effect", "retrodesign"]

#: The large-sample McNemar power, as each front end names it (``--test mcnemar``).
_MCNEMAR = Hint("test", "mcnemar", form="set")
_BINARY = ("proportions-z", "mcnemar", "mcnemar-exact")
_PAIRED = ("paired-t", "mcnemar", "mcnemar-exact")


@dataclass(frozen=True)
class Plan:
    """A planned comparison of two systems: the solved unknown and every input.

    ``n`` is the number of items (per system; per group for ``welch`` and ``proportions-z``)
    rounded up to whole clusters, ``n = n_clusters × cluster_size`` (a solved ``n`` is rounded
    up to the next multiple of ``cluster_size``; a given one must be such a multiple),
    ``n_exact`` the fractional solution (equal to ``n`` when ``n`` was given or the test is
    exact and unclustered). ``power`` is the target (or the solved
    power), ``power_at_n`` the power at the rounded ``n``. ``effect`` is the difference of means
    (or proportions) in the metric's units — standardised (Cohen's d) when no ``sd`` was given —
    and ``standardized_effect`` its ratio to the SD of the analysed item-level quantity.
    ``hypothesis`` is ``superiority``, ``equivalence`` or ``non-inferiority``.
    """

    test: str
    hypothesis: str
    alternative: str
    level: float
    solved_for: str
    n: int
    n_exact: float
    n_clusters: int
    power: float
    power_at_n: float
    effect: float
    standardized_effect: float | None
    n_effective: float
    design_effect: float
    icc: float
    cluster_size: int
    k_samples: int
    sd: float | None
    within_sd: float | None
    item_sd: float | None
    p_control: float | None
    p_treatment: float | None
    correlation: float | None
    margin: float | None
    #: the settings object of the call (:class:`~ranger_eval.settings.PlanSettings`)
    settings: PlanSettings | None = field(default=None, compare=False, repr=False)

    @property
    def alpha(self) -> float:
        """The planned test's significance level, 1 − ``level`` (to 12 decimals)."""
        return round(1.0 - self.level, 12)

    @property
    def signature(self) -> Signature:
        """``kind:plan`` with the test, hypothesis, alternative, level, the solved unknown and
        the design (ICC, cluster size, samples per item) — enough to redo the calculation."""
        return make_signature("plan", {
            "test": self.test,
            "hyp": None if self.hypothesis == "superiority" else self.hypothesis,
            "margin": self.margin,
            "alt": self.alternative,
            "level": f"{self.level:.6g}",
            "solve": self.solved_for,
            "icc": self.icc,
            "cluster_size": self.cluster_size,
            "k_samples": self.k_samples,
        })

    def to_dict(self) -> dict[str, Any]:
        """All fields (but the settings object) and the signature, JSON-friendly."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "settings"}
        out["signature"] = str(self.signature)
        return out

    def summary(self) -> str:
        """One paragraph in words."""
        unit = "items per group" if self.test in ("welch", "proportions-z") else "items"
        clusters = (f" in {self.n_clusters} clusters of {self.cluster_size} (design effect "
                    f"{self.design_effect:.3g})" if self.cluster_size > 1 else "")
        what = {"superiority": "detect", "equivalence": "show equivalence within ±margin at",
                "non-inferiority": "show non-inferiority within the margin at"}[self.hypothesis]
        return (f"{self.test} ({self.hypothesis}, {self.alternative}, α = {self.alpha:g}): "
                f"{self.n} {unit}{clusters} give power {self.power_at_n:.3f} to {what} a true "
                f"difference of {self.effect:.4g}.")


# ----------------------------------------------------------------------------------------------
# the design: everything but (effect, n, power)


@dataclass(frozen=True)
class _Design:
    test: str
    hypothesis: str
    alternative: str
    alpha: float
    scale: float            # SD of the analysed item-level quantity (1: standardised effect)
    deff: float
    m: int
    p_control: float | None
    correlation: float | None
    margin: float | None

    # --- one function for every test: power at n items and effect -----------------------------
    def power(self, n: float, effect: float) -> float:
        if self.test in ("paired-t", "welch"):
            return self._t_power(n, effect)
        if self.test == "proportions-z":
            return self._prop_power(n, effect)
        if self.margin is not None:  # paired binary against a margin: Wellek's tests
            p10, p01 = self._discordant(effect)
            if self.alternative == "less":  # H0 δ ≥ Δ: the mirror image of non-inferiority
                p10, p01 = p01, p10
            if self.test == "mcnemar":
                return _wellek_asymptotic_power(n / self.deff, p10, p01, self.alpha,
                                                self.margin, self.hypothesis)
            return _wellek_exact_power(int(round(n)), p10, p01, self.alpha, self.margin,
                                       self.hypothesis)
        if self.test == "mcnemar":
            return self._mcnemar_power(n, effect)
        return self._mcnemar_exact_power(int(round(n)), effect)

    def df(self, n: float) -> float:
        clusters = n / self.m
        return clusters - 1.0 if self.test == "paired-t" else 2.0 * (clusters - 1.0)

    def se(self, n: float) -> float:
        """SE of the estimated difference (in units of ``scale``... times scale)."""
        n_eff = n / self.deff
        factor = 1.0 if self.test in _PAIRED else 2.0
        return self.scale * math.sqrt(factor / n_eff)

    def _t_power(self, n: float, effect: float) -> float:
        df = self.df(n)
        if df <= 0:
            return float("nan")
        se = self.se(n)
        alpha = self.alpha
        if self.hypothesis == "equivalence":
            assert self.margin is not None
            return _tost_power(alpha, self.margin, effect, se, df)
        if self.hypothesis == "non-inferiority":
            assert self.margin is not None
            tval = sps.t.isf(alpha, df)
            shift = effect + self.margin if self.alternative == "greater" else self.margin - effect
            return _nct_sf(tval, df, shift / se)
        nc = effect / se
        if self.alternative == "two-sided":
            crit = sps.t.isf(alpha / 2, df)
            return _nct_sf(crit, df, nc) + _nct_cdf(-crit, df, nc)
        crit = sps.t.isf(alpha, df)
        if self.alternative == "greater":
            return _nct_sf(crit, df, nc)
        return _nct_cdf(-crit, df, nc)

    def _prop_power(self, n: float, effect: float) -> float:
        assert self.p_control is not None
        pc = self.p_control
        pt = pc + effect
        n_eff = n / self.deff
        if self.hypothesis == "superiority":
            h = 2 * math.asin(math.sqrt(pt)) - 2 * math.asin(math.sqrt(pc))
            return _normal_power(h * math.sqrt(n_eff / 2), self.alpha, self.alternative)
        assert self.margin is not None
        se = math.sqrt((pt * (1 - pt) + pc * (1 - pc)) / n_eff)
        return _wald_margin_power(effect, se, self.margin, self.alpha, self.hypothesis,
                                  self.alternative)

    def _discordant(self, effect: float) -> tuple[float, float]:
        assert self.p_control is not None and self.correlation is not None
        pc = self.p_control
        pt = pc + effect
        p11 = pt * pc + self.correlation * math.sqrt(pt * (1 - pt) * pc * (1 - pc))
        return pt - p11, pc - p11          # p10 (treatment right only), p01

    def _mcnemar_power(self, n: float, effect: float) -> float:
        p10, p01 = self._discordant(effect)
        delta, pd_ = p10 - p01, p10 + p01
        n_eff = n / self.deff
        sides = 2 if self.alternative == "two-sided" else 1
        signed = {"two-sided": abs(delta), "greater": delta, "less": -delta}[self.alternative]
        z = sps.norm.isf(self.alpha / sides)
        var = pd_ - delta * delta
        if var <= 0:
            return 1.0 if signed > 0 else 0.0
        return float(sps.norm.cdf((math.sqrt(n_eff) * signed - z * math.sqrt(pd_)) /
                                  math.sqrt(var)))

    def _mcnemar_exact_power(self, n: int, effect: float) -> float:
        p10, p01 = self._discordant(effect)
        pd_ = p10 + p01
        if pd_ <= 0:
            return 0.0
        if self.alternative == "two-sided":
            level, toward = self.alpha / 2, (p10 if p10 >= p01 else p01)
        else:
            level, toward = self.alpha, (p10 if self.alternative == "greater" else p01)
        return _exact_mcnemar_power(n, pd_, toward / pd_, level)

    def signed(self, effect: float) -> float:
        return -effect if self.alternative == "less" else effect


def _nct_sf(x: float, df: float, nc: float) -> float:
    """P(T > x) for T noncentral t(df, nc). scipy's ``nct`` returns NaN in some far tails at
    non-integer df (e.g. ``nct.cdf(-1.987, 87.76, 9.42)``, a value near 1e-28): then the same
    probability is taken by symmetry, P(T(df, nc) > x) = P(T(df, -nc) < -x), or as 1 - cdf."""
    value = float(sps.nct.sf(x, df, nc))
    if math.isnan(value):
        value = float(sps.nct.cdf(-x, df, -nc))
    if math.isnan(value):
        value = 1.0 - float(sps.nct.cdf(x, df, nc))
    if math.isnan(value):
        raise StatsInputError(f"the noncentral t distribution is not computable at x={x!r}, "
                              f"df={df!r}, noncentrality={nc!r}")
    return min(max(value, 0.0), 1.0)


def _nct_cdf(x: float, df: float, nc: float) -> float:
    """P(T < x) for T noncentral t(df, nc), as :func:`_nct_sf` of the mirrored distribution."""
    return _nct_sf(-x, df, -nc)


def _normal_power(nc: float, alpha: float, alternative: str) -> float:
    """Power of a z test whose statistic is N(nc, 1): both tails for a two-sided test."""
    if alternative == "two-sided":
        z = sps.norm.isf(alpha / 2)
        return float(sps.norm.sf(z - nc) + sps.norm.cdf(-z - nc))
    z = sps.norm.isf(alpha)
    return float(sps.norm.sf(z - nc) if alternative == "greater" else sps.norm.cdf(-z - nc))


def _wald_margin_power(effect: float, se: float, margin: float, alpha: float, hypothesis: str,
                       alternative: str) -> float:
    """Non-inferiority / equivalence power of a Wald z statistic (estimate ~ N(effect, se²))."""
    z = sps.norm.isf(alpha)
    lower = sps.norm.sf(z - (effect + margin) / se)     # rejects δ ≤ −Δ
    upper = sps.norm.sf(z - (margin - effect) / se)     # rejects δ ≥ Δ
    if hypothesis == "non-inferiority":
        return float(lower if alternative == "greater" else upper)
    return float(max(0.0, lower + upper - 1.0))


def _tost_power(alpha: float, margin: float, effect: float, se: float, df: float) -> float:
    """Exact power of the two one-sided t tests (Owen's Q, as PowerTOST's ``method="exact"``):
    the probability over the estimate ~ N(θ, se²) and ŝ/se ~ √(χ²_ν/ν) that
    −Δ + t·ŝ < estimate < Δ − t·ŝ."""
    tval = sps.t.isf(alpha, df)
    a = (margin - effect) / se
    b = (-margin - effect) / se
    upper = df * (margin / (tval * se)) ** 2      # χ² values beyond it cannot reject
    if upper <= 0:
        return 0.0

    log_norm = -0.5 * df * math.log(2.0) - math.lgamma(0.5 * df)
    ndtr = special.ndtr

    def integrand(v: float) -> float:
        if v <= 0.0:
            return 0.0
        w = tval * math.sqrt(v / df)
        gap = ndtr(a - w) - ndtr(b + w)
        if gap <= 0.0:
            return 0.0
        return gap * math.exp((0.5 * df - 1.0) * math.log(v) - 0.5 * v + log_norm)

    mode = max(df - 2.0, 0.0)
    points = [p for p in (mode, df) if 0 < p < upper]
    value, _ = integrate.quad(integrand, 0.0, upper, points=points or None, limit=500,
                              epsabs=1e-14, epsrel=1e-12)
    return float(min(max(value, 0.0), 1.0))


def _noncentral_chi1_root(alpha: float, nc: np.ndarray) -> np.ndarray:
    """√(α quantile of the noncentral χ²₁(nc)): the c with Φ(c − √nc) − Φ(−c − √nc) = α,
    by Newton's method from the normal approximation (vectorised; R ``sqrt(qchisq(alpha, 1,
    nc))``); √nc + z_α when nc > 100, as ``EQUIVNONINF``."""
    lam = np.sqrt(nc)
    z = float(special.ndtri(alpha))
    c = np.maximum(lam + z, 1e-3)
    small = nc <= 100
    if small.any():
        cs, ls = np.where(lam[small] + z > 0.05, lam[small] + z, 0.05), lam[small]
        for _ in range(100):
            f = special.ndtr(cs - ls) - special.ndtr(-cs - ls) - alpha
            step = f / (np.exp(-0.5 * (cs - ls) ** 2) + np.exp(-0.5 * (cs + ls) ** 2)) \
                * math.sqrt(2 * math.pi)
            cs = np.maximum(cs - step, cs / 2)
            if np.all(np.abs(step) <= 1e-14 * np.maximum(cs, 1.0)):
                break
        c[small] = cs
    return c


#: largest n of the exact paired-binary margin power (its work grows as n²/2)
EXACT_MARGIN_MAX_N = 5000


def _wellek_exact_power(n: int, p10: float, p01: float, alpha: float, margin: float,
                        hypothesis: str) -> float:
    """Exact power of Wellek's asymptotic McNemar test of non-inferiority (H₀: δ ≤ −Δ) or
    equivalence (H₀: |δ| ≥ Δ) at (p₁₀, p₀₁) with n items (module docstring). The rejection
    region of each number v = 1 … n of discordant items is found as ``EQUIVNONINF`` finds it:
    non-inferiority (``mcnasc_ni``) u ≥ k_v, k_v = 1 + the largest u < v with T(u) ≤ z_{1−α}
    (1 if none); equivalence (``mcnempow``) k_l ≤ u ≤ v − k_l, k_l the first u scanned upward
    (from 0; from 1 and at most n − 2 when v = n) with T(u) < C(u), else the end of the scan.
    The power is Σ_v Bin(v; n, p_d)·[F(high; v, π) − F(low − 1; v, π)], π = p₁₀/p_d."""
    if n > EXACT_MARGIN_MAX_N:
        raise StatsInputError(
            f"the exact power of the paired binary margin test is computed up to n = "
            f"{EXACT_MARGIN_MAX_N} items (its work grows as n²); n = {n} is beyond: use "
            f"{_MCNEMAR.text} (its large-sample power)", hints=[_MCNEMAR])
    eta = p10 + p01
    vv = np.arange(1, n + 1)
    if n < 1 or eta <= 0:
        return 0.0
    sizes = vv + 1  # u = 0 … v for every v
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    v = np.repeat(vv, sizes)
    u = np.arange(v.size) - np.repeat(starts, sizes)
    diff = (2.0 * u - v) / n
    var = v / n - diff * diff
    with np.errstate(divide="ignore", invalid="ignore"):
        if hypothesis == "non-inferiority":
            t = math.sqrt(n) * (diff + margin) / np.sqrt(var)
            stop = (u < v) & ~(t > float(special.ndtri(1.0 - alpha)))
            low = np.maximum.reduceat(np.where(stop, u, 0), starts) + 1
            high = vv
        else:
            t = math.sqrt(n) * np.abs(diff) / np.sqrt(var)
            crit = np.full(v.size, np.inf)
            ok = var > 0
            crit[ok] = _noncentral_chi1_root(alpha, n * margin ** 2 / var[ok])
            scanned = np.where(v < n, u <= v - 1, (u >= 1) & (u <= n - 2))
            big = np.iinfo(np.int64).max
            first = np.minimum.reduceat(np.where(scanned & ok & (t < crit), u, big), starts)
            end = np.where(vv < n, vv, n - 1 if n >= 2 else 0)
            low = np.where(first == big, end, first)
            high = vv - low
    share = p10 / eta
    conditional = np.where(low <= high, sps.binom.cdf(high, vv, share)
                           - sps.binom.cdf(low - 1, vv, share), 0.0)
    weights = sps.binom.pmf(vv, n, eta)
    return float(np.clip(np.sum(weights * conditional), 0.0, 1.0))


def _wellek_asymptotic_power(n: float, p10: float, p01: float, alpha: float, margin: float,
                             hypothesis: str) -> float:
    """Large-sample power of Wellek's McNemar tests (module docstring), σ² = p_d − δ²."""
    delta = p10 - p01
    var = p10 + p01 - delta * delta
    if var <= 0:
        inside = delta > -margin if hypothesis == "non-inferiority" else abs(delta) < margin
        return 1.0 if inside else 0.0
    sigma = math.sqrt(var)
    if hypothesis == "non-inferiority":
        return float(special.ndtr(math.sqrt(n) * (delta + margin) / sigma
                                  - special.ndtri(1.0 - alpha)))
    c = float(_noncentral_chi1_root(alpha, np.array([n * margin ** 2 / var]))[0])
    shift = math.sqrt(n) * delta / sigma
    return float(max(0.0, special.ndtr(c - shift) - special.ndtr(-c - shift)))


def _exact_mcnemar_power(n: int, p_discordant: float, share: float, level: float) -> float:
    """Σ_D Bin(D; n, p_d)·P(Bin(D, share) ≥ b_D), b_D the smallest count whose one-sided exact
    binomial p-value P(Bin(D, ½) ≥ b) is at most ``level``."""
    d = np.arange(n + 1, dtype=np.float64)
    k = sps.binom.ppf(level, d, 0.5)                 # smallest k with F(k) ≥ level
    k = np.where(sps.binom.cdf(k, d, 0.5) > level, k - 1, k)    # largest k with F(k) ≤ level
    b = d - k                                        # reject when the count ≥ D − k
    conditional = np.where(k >= 0, sps.binom.sf(b - 1, d, share), 0.0)
    weights = sps.binom.pmf(d, n, p_discordant)
    return float(np.clip(np.sum(weights * conditional), 0.0, 1.0))


# ----------------------------------------------------------------------------------------------
# checks


def _number(name: str, value: object, *, low: float | None = None, high: float | None = None,
            low_open: bool = True, high_open: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise StatsInputError(f"{name} must be a number; got {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise StatsInputError(f"{name} must be finite; got {value!r}")
    if low is not None and (x < low or (low_open and x == low)):
        sign = ">" if low_open else "≥"
        raise StatsInputError(f"{name} must be {sign} {low:g}; got {value!r}")
    if high is not None and (x > high or (high_open and x == high)):
        sign = "<" if high_open else "≤"
        raise StatsInputError(f"{name} must be {sign} {high:g}; got {value!r}")
    return x


def _whole(x: float) -> float | int:
    """``x`` as an ``int`` when it is whole (messages say ``n=1998``, not ``n=1998.0``)."""
    return int(x) if float(x).is_integer() else x


def _integer(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise StatsInputError(f"{name} must be an integer ≥ {low}; got {value!r}")
    if int(value) < low:
        raise StatsInputError(f"{name} must be an integer ≥ {low}; got {value!r}")
    return int(value)


def _hypothesis(margin: float | None, alternative: str) -> str:
    if margin is None:
        return "superiority"
    return "equivalence" if alternative == "two-sided" else "non-inferiority"


# ----------------------------------------------------------------------------------------------
# solving


def _root(f: Callable[[float], float], lo: float, hi: float) -> float:
    return float(optimize.brentq(f, lo, hi, xtol=1e-13, rtol=4 * np.finfo(float).eps,
                                 maxiter=500))


def _effect_range(design: _Design) -> tuple[float, float]:
    """Open interval of |effect| (signed by the alternative) the test can take."""
    if design.test in _BINARY:
        assert design.p_control is not None
        pc = design.p_control
        room = (1 - pc) if design.alternative != "less" else pc
        if design.hypothesis == "equivalence":
            assert design.margin is not None
            room = min(room, design.margin)
        return 0.0, room
    if design.hypothesis == "equivalence":
        assert design.margin is not None
        return 0.0, design.margin
    return 0.0, math.inf


def _solve_n(design: _Design, effect: float, power: float) -> float:
    minimum = 2.0 * design.m + 1e-9 if design.test in ("paired-t", "welch") else 1.0
    if design.test == "mcnemar-exact":
        return float(_solve_n_exact(design, effect, power))

    def f(n: float) -> float:
        return design.power(n, effect) - power

    lo = minimum
    if f(lo) >= 0:
        return lo
    hi = max(2 * lo, 4.0)
    while f(hi) < 0:
        hi *= 2
        if hi > 1e12:
            raise StatsInputError(
                f"power {power:g} is not reached with any n up to 1e12 items at effect "
                f"{effect:g}: the effect is too small for this design")
    return _root(f, lo, hi)


def _solve_n_exact(design: _Design, effect: float, power: float) -> int:
    """The smallest n whose exact McNemar power reaches ``power`` (the power is not monotone
    in n, so the n from the asymptotic formula is a starting point, then integers are scanned)."""
    approx = _Design(**{**design.__dict__, "test": "mcnemar"})
    # against a margin each exact power costs O(n²): scan from near the large-sample n
    share = 0.9 if design.margin is not None else 0.5
    start = max(1, int(share * _solve_n(approx, effect, power)))
    n = start
    while design.power(n, effect) < power:
        n += 1
        if n > 20 * start + 10_000:
            raise StatsInputError(f"the exact McNemar power does not reach {power:g} below "
                                  f"n = {n} items")
    while n > 1 and design.power(n - 1, effect) >= power:
        n -= 1
    return n


def _solve_effect(design: _Design, n: float, power: float) -> float:
    lo, hi = _effect_range(design)
    sign = -1.0 if design.alternative == "less" else 1.0
    if design.hypothesis == "equivalence":
        # power is largest at θ = 0 and falls with |θ|: the largest |θ| still reaching power
        top = design.power(n, 0.0)
        if top < power:
            raise StatsInputError(
                f"power {power:g} cannot be reached with n = {n:g} items even when the true "
                f"difference is 0 (power {top:.4g}): increase n or the margin")
        return _root(lambda e: design.power(n, e) - power, 0.0, hi * (1 - 1e-12))

    def f(e: float) -> float:
        return design.power(n, sign * e) - power

    if math.isinf(hi):
        hi = 1.0
        while f(hi) < 0:
            hi *= 2
            if hi > 1e15:
                raise StatsInputError(f"power {power:g} is not reached at n = {n:g} by any "
                                      "effect")
    else:
        hi = hi * (1 - 1e-12)
        if f(hi) < 0:
            raise StatsInputError(
                f"power {power:g} cannot be reached with n = {n:g} items by any possible "
                f"difference of proportions (largest power {design.power(n, sign * hi):.4g})")
    low = design.hypothesis == "non-inferiority" and design.margin is not None
    start = -design.margin * (1 - 1e-12) if low and design.margin is not None else lo
    if f(start) >= 0:
        return sign * start
    return sign * _root(f, start, hi)


# ----------------------------------------------------------------------------------------------
# public



def solved_for(effect: object, n: object, power: object) -> str:
    """Which of ``effect``, ``n`` and ``power`` a plan solves for: the one left out (None).
    Not exactly one left out is a :class:`StatsInputError` whose keywords are hints, so the
    command line names its options (``--effect``, ``--n``, ``--power``)."""
    values = {"effect": effect, "n": n, "power": power}
    unknown = [k for k, v in values.items() if v is None]
    if len(unknown) == 1:
        return unknown[0]
    hints = {k: Hint(k, form="set") for k in values}
    named = ", ".join(hints[k].text for k in ("effect", "n")) + f" and {hints['power'].text}"
    raise StatsInputError(
        f"exactly one of {named} must be left out (it is solved for); "
        + (f"{_listed([hints[k].text for k in unknown])} are missing" if unknown
           else "all three were given"), hints=list(hints.values()))


def _listed(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]

_DEFAULT = PlanSettings()


@renamed_keywords(alpha="level")
def plan(
    test: str | None = _DEFAULT.test,
    *,
    effect: float | None = None,
    n: float | None = None,
    power: float | None = None,
    level: float = _DEFAULT.level,
    alternative: str = _DEFAULT.alternative,
    sd: float | None = None,
    p_control: float | None = None,
    p_treatment: float | None = None,
    correlation: float | None = None,
    icc: float = 0.0,
    cluster_size: int = 1,
    k_samples: int = 1,
    within_sd: float | None = None,
    margin: float | None = _DEFAULT.margin,
    settings: PlanSettings | None = None,
) -> Plan:
    """Solve the one unknown among ``effect``, ``n`` and ``power`` of a planned comparison.

    ``test``: one of :data:`PLAN_TESTS` (formulas in the module docstring). ``level`` is the
    confidence level of the planned test, which is at α = 1 − level (to 12 decimals:
    ``level=0.95`` is α = 0.05). ``effect`` is the true difference
    treatment − control in the metric's units (with ``sd``), a standardised difference (Cohen's
    d, without ``sd``), or for the binary tests p_t − p_c (or give ``p_treatment``).
    ``alternative`` ``"greater"`` plans a test that the treatment is better. With ``margin``
    Δ > 0 the plan is for equivalence (two-sided) or non-inferiority (one-sided); then
    ``effect`` may be 0 (the systems truly equal). ``icc`` and ``cluster_size`` give the design
    effect of clustered items, ``k_samples`` and ``within_sd`` the repeated samples per item.
    ``settings``: a :class:`~ranger_eval.settings.PlanSettings` instead of ``test``, ``level``,
    ``alternative`` and ``margin`` (its pilot fields must stay at their defaults); the result
    carries it as ``.settings``.
    Impossible targets (power ≥ 1 or ≤ α, no effect to detect, …) raise ``StatsInputError``.

    Parameters
    ----------
    test : {"paired-t", "welch", "proportions-z", "mcnemar", "mcnemar-exact"}, optional
        The planned test (required: None is an error naming the tests).
    effect : float, optional
        True difference treatment − control (metric units with ``sd``, Cohen's d without; for
        the binary tests p_t − p_c).
    n : float, optional
        Items (per group for ``welch`` and ``proportions-z``).
    power : float, optional
        Target power, in (α, 1). Exactly one of ``effect``, ``n``, ``power`` is None.
    level : float, default 0.95
        Confidence level; the test is at α = 1 − level.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" plans a test that the treatment is better.
    sd : float, optional
        SD of the per-item differences (paired) or of the scores (welch).
    p_control, p_treatment : float, optional
        Accuracies of the binary tests.
    correlation : float, optional
        Item-level correlation φ of the two systems' 0/1 scores (McNemar).
    icc : float, default 0.0
        Intra-cluster correlation of the items.
    cluster_size : int, default 1
        Items per cluster (design effect 1 + (m − 1)·ICC).
    k_samples : int, default 1
        Repeated samples per item.
    within_sd : float, optional
        SD of the samples within an item.
    margin : float, optional
        Equivalence / non-inferiority margin Δ > 0, in the metric's units.
    settings : PlanSettings, optional
        ``test``, ``level``, ``alternative`` and ``margin`` as one object.

    Returns
    -------
    Plan
        ``solved_for``, ``n`` (whole items, or clusters × size), ``n_exact``, ``power``,
        ``power_at_n``, ``effect``, ``standardized_effect``, ``design_effect`` and ``settings``.

    Raises
    ------
    StatsInputError
        Impossible targets (power ≥ 1 or ≤ α, no effect to detect, …) or not exactly one unknown.

    References
    ----------
    Cohen, J. (1988), *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed., ch. 2
    (noncentral t). Connor, R. J. (1987), "Sample size for testing differences in proportions for
    the paired-sample design", Biometrics 43:207–211 (McNemar). Kish, L. (1965), *Survey
    Sampling*; Donner, A. & Klar, N. (2000), *Design and Analysis of Cluster Randomization Trials
    in Health Research* (design effect).

    Examples
    --------
    >>> import ranger_eval as rg
    >>> p = rg.plan("paired-t", effect=0.3, power=0.8)
    >>> p.solved_for, p.n
    ('n', 90)
    >>> round(rg.plan("paired-t", effect=0.3, n=100).power, 4)
    0.8439
    """
    if isinstance(settings, PlanSettings) and test is not None and settings.test in (None, test):
        # the planned test given positionally beside a settings object that names none (or the
        # same): plan("paired-t", settings=PlanSettings(level=0.9)) is one analysis, no clash
        if settings.test is None:
            settings = dataclasses.replace(settings, test=test)
        test = _DEFAULT.test
    settings = resolve_settings(PlanSettings, {"test": test, "level": level,
                                               "alternative": alternative, "margin": margin},
                                settings, where="plan")
    pilot_only = [(name, Hint(name, getattr(settings, name), form="set"))
                  for name in ("n_resamples", "seed")
                  if getattr(settings, name) != getattr(_DEFAULT, name)]
    if pilot_only:
        said = [hint for _, hint in pilot_only]
        raise StatsInputError(
            f"{' and '.join(h.text for h in said)}: only a plan simulated from a pilot "
            "(plan_from_pilot, --pilot) has simulations; plan() computes its power exactly",
            hints=said)
    if settings.test is None:
        hint = Hint("test")
        raise StatsInputError(f"name the planned test ({', '.join(PLAN_TESTS)}); {hint.text}",
                              hints=[hint])
    test = check_choice("test", settings.test, PLAN_TESTS)
    alternative, margin = settings.alternative, settings.margin
    alpha = settings.alpha
    icc = _number("icc", icc, low=0.0, high=1.0, low_open=False, high_open=False)
    cluster_size = _integer("cluster_size", cluster_size, 1)
    k_samples = _integer("k_samples", k_samples, 1)
    hypothesis = _hypothesis(margin, alternative)

    if p_treatment is not None:
        if test not in _BINARY:
            raise StatsInputError(f"p_treatment is for the binary tests {_BINARY}; {test!r} "
                                  "takes effect= (and sd=)")
        if p_control is None:
            raise StatsInputError("p_treatment needs p_control")
        p_treatment = _number("p_treatment", p_treatment, low=0.0, high=1.0)
        implied = p_treatment - _number("p_control", p_control, low=0.0, high=1.0)
        if effect is not None and not math.isclose(effect, implied, rel_tol=1e-12,
                                                   abs_tol=1e-15):
            raise StatsInputError(f"effect={effect!r} disagrees with p_treatment - p_control "
                                  f"= {implied!r}; give one of them")
        effect = implied
    solve = solved_for(effect, n, power)

    # --- the scale of the analysed item-level quantity -------------------------------------
    if test in _BINARY:
        for name, value in (("sd", sd), ("within_sd", within_sd)):
            if value is not None:
                raise StatsInputError(f"{name} is not used by {test!r} (binary scores: the "
                                      "variance follows from the proportions)")
        if k_samples != 1:
            raise StatsInputError(
                f"k_samples={k_samples} with the binary test {test!r}: the mean of K binary "
                "samples is not binary; plan 'paired-t' on the item means with sd= and "
                "within_sd=")
        if p_control is None:
            raise StatsInputError(f"{test!r} needs p_control= (the control's proportion)")
        p_control = _number("p_control", p_control, low=0.0, high=1.0)
        if test != "proportions-z":
            if correlation is None:
                raise StatsInputError(
                    f"{test!r} needs correlation= (the φ correlation of the two systems' "
                    "correctness on an item; 0 if they err independently)")
            correlation = _number("correlation", correlation, low=-1.0, high=1.0,
                                  low_open=False, high_open=False)
        elif correlation is not None:
            raise StatsInputError("correlation is for the paired binary tests ('mcnemar', "
                                  "'mcnemar-exact'); 'proportions-z' compares independent groups")
        scale = 1.0
        item_sd = None
    else:
        if p_control is not None or correlation is not None:
            raise StatsInputError(f"p_control and correlation are for the binary tests {_BINARY}"
                                  f"; {test!r} takes effect= and sd=")
        if sd is not None:
            sd = _number("sd", sd, low=0.0)
        if within_sd is not None:
            within_sd = _number("within_sd", within_sd, low=0.0, low_open=False)
            if sd is None:
                raise StatsInputError("within_sd needs sd= (the between-item SD) in the same "
                                      "units")
        elif k_samples > 1:
            raise StatsInputError(f"k_samples={k_samples} needs within_sd= (the SD of one "
                                  "system's samples on one item; describe() reports it)")
        if margin is not None and sd is None:
            raise StatsInputError("margin= is in the metric's units: give sd= too")
        factor = 2.0 if test == "paired-t" else 1.0
        scale = 1.0 if sd is None else math.sqrt(sd ** 2 + factor * (within_sd or 0.0) ** 2
                                                 / k_samples)
        item_sd = None if sd is None else scale
    if test == "mcnemar-exact" and icc > 0 and cluster_size > 1:
        raise StatsInputError("the exact McNemar power has no clustered version; use "
                              f"{_MCNEMAR.text} (asymptotic, with the design effect)",
                              hints=[_MCNEMAR])
    if test in _BINARY and margin is not None and margin >= 1.0:
        raise StatsInputError(
            f"margin={margin!r} on 0/1 scores: a difference of proportions lies in [-1, 1], so "
            "a margin of 1 or more holds for any data; give a margin below 1")
    deff = 1.0 + (cluster_size - 1) * icc
    design = _Design(test, hypothesis, alternative, alpha, scale, deff, cluster_size, p_control,
                     correlation, margin)

    if power is not None:
        power = _number("power", power, low=0.0, high=1.0)
        if hypothesis == "superiority" and power <= alpha / (2 if alternative == "two-sided"
                                                             else 1):
            raise StatsInputError(f"power={power!r} is not above the test's false-positive "
                                  f"rate (α = {alpha:g}): ask for a power such as 0.8")
    if n is not None:
        n_min = 2 * cluster_size if test in ("paired-t", "welch") else cluster_size
        if test == "mcnemar-exact":
            n = _integer("n", n, 1)
        if cluster_size > 1 and isinstance(n, (int, float, np.integer, np.floating)) \
                and not isinstance(n, bool) and math.isfinite(n) and 0 < n < n_min:
            said_n, size, least = (Hint("n", _whole(n), form="set"),
                                  Hint("cluster_size", cluster_size, form="set"),
                                  Hint("n", n_min))
            need = n_min // cluster_size
            raise StatsInputError(
                f"{said_n.text} items cannot fill {need} whole cluster(s) of {size.text}: "
                + ("the t test of clustered items needs at least 2 clusters (C − 1 degrees of "
                   "freedom)" if need > 1 else "a plan counts whole clusters")
                + f"; {least.text} or more, or smaller clusters", hints=[said_n, size, least])
        n = _number("n", n, low=float(n_min), low_open=False)
        if cluster_size > 1 and not float(n / cluster_size).is_integer():
            below = int(n // cluster_size) * cluster_size
            hints = [Hint("n", _whole(n), form="set"), Hint("n", below + cluster_size),
                     Hint("n", below, form="set")]
            raise StatsInputError(
                f"{hints[0].text} items are not whole clusters of {cluster_size}: a plan assumes "
                f"equal clusters, n = clusters × cluster size; {hints[1].text} "
                f"({below // cluster_size + 1} clusters) or {hints[2].text} "
                f"({below // cluster_size})", hints=hints)
    if effect is not None:
        effect = _number("effect", effect)
        _check_effect(design, effect, solve)

    if solve == "power":
        assert n is not None and effect is not None
        power = design.power(n, effect)
        n_exact = n
    elif solve == "n":
        assert effect is not None and power is not None
        n_exact = _solve_n(design, effect, power)
    else:
        assert n is not None and power is not None
        effect = _solve_effect(design, n, power)
        n_exact = n
    assert effect is not None and power is not None
    n_int = max(int(math.ceil(n_exact - 1e-9 * max(1.0, n_exact))), 1)
    # whole clusters (a cluster is sampled whole): n = C·m, C rounded up; power at n recomputed
    n_int = int(math.ceil(n_int / cluster_size)) * cluster_size
    power_at_n = design.power(float(n_int), effect)
    if solve == "n" and test == "mcnemar-exact":  # not monotone in n: whole clusters until reached
        while power_at_n < power and n_int < 20 * max(n_exact, 1.0) + 10_000:
            n_int += cluster_size
            power_at_n = design.power(float(n_int), effect)
    standardized = None if test in _BINARY else effect / scale
    return Plan(
        test=test, hypothesis=hypothesis, alternative=alternative, level=settings.level,
        solved_for=solve, n=n_int, n_exact=float(n_exact),
        n_clusters=n_int // cluster_size, power=float(power),
        power_at_n=float(power_at_n), effect=float(effect),
        standardized_effect=None if standardized is None else float(standardized),
        n_effective=n_int / deff, design_effect=deff, icc=icc, cluster_size=cluster_size,
        k_samples=k_samples, sd=sd, within_sd=within_sd, item_sd=item_sd,
        p_control=p_control,
        p_treatment=None if p_control is None else p_control + float(effect),
        correlation=correlation, margin=margin, settings=settings)


def _check_effect(design: _Design, effect: float, solve: str) -> None:
    if design.test in _BINARY:
        assert design.p_control is not None
        pt = design.p_control + effect
        if not 0.0 < pt < 1.0:
            raise StatsInputError(f"p_control + effect = {pt!r} is not a proportion in (0, 1)")
        if design.test != "proportions-z":
            _check_joint(design, effect)
    if design.hypothesis == "equivalence":
        assert design.margin is not None
        if abs(effect) >= design.margin:
            raise StatsInputError(
                f"effect={effect!r} is outside the equivalence margin ±{design.margin:g}: "
                "equivalence cannot be shown (its power is at most α)")
        return
    if design.hypothesis == "non-inferiority":
        assert design.margin is not None
        if design.signed(effect) <= -design.margin:
            raise StatsInputError(
                f"effect={effect!r} is at or beyond the non-inferiority margin "
                f"{design.margin:g}: non-inferiority cannot be shown")
        return
    if solve == "n" and (effect == 0 or design.signed(effect) < 0):
        raise StatsInputError(
            f"effect={effect!r} cannot be detected by a {design.alternative} test: no n gives "
            "the power asked for" + (" (the effect is 0)" if effect == 0 else
                                     " (it points the other way)"))


def _check_joint(design: _Design, effect: float) -> None:
    assert design.p_control is not None and design.correlation is not None
    pc = design.p_control
    pt = pc + effect
    p11 = pt * pc + design.correlation * math.sqrt(pt * (1 - pt) * pc * (1 - pc))
    if p11 < max(0.0, pc + pt - 1.0) - 1e-12 or p11 > min(pc, pt) + 1e-12:
        sd = math.sqrt(pt * (1 - pt) * pc * (1 - pc))
        lo = (max(0.0, pc + pt - 1.0) - pt * pc) / sd
        hi = (min(pc, pt) - pt * pc) / sd
        raise StatsInputError(
            f"correlation={design.correlation!r} is impossible for proportions {pc:g} and "
            f"{pt:g}: it must lie in [{lo:.4g}, {hi:.4g}]")


@renamed_keywords(alpha="level")
def power_of(test: str, *, n: float, effect: float, **design: Any) -> float:
    """The power alone (:func:`plan` with ``power=None``).

    Parameters
    ----------
    test : str
        One of :data:`PLAN_TESTS`.
    n : float
        Items (or pairs) per system.
    effect : float
        The true difference, as :func:`plan` reads it.
    **design
        Any other keyword of :func:`plan` (``level``, ``alternative``, ``sd``, ``icc``, …).

    Returns
    -------
    float
        The probability that the planned test rejects.

    Raises
    ------
    StatsInputError
        As :func:`plan`.

    Examples
    --------
    >>> from ranger_eval.stats.power import power_of
    >>> round(power_of("paired-t", n=100, effect=0.3), 4)
    0.8439
    """
    return plan(test, n=n, effect=effect, **design).power


@renamed_keywords(alpha="level")
def detectable_noncentrality(df: float | None, *, level: float = _DEFAULT.level,
                             power: float = 0.8, alternative: str = _DEFAULT.alternative
                             ) -> float:
    """λ such that a t test at α = 1 − ``level`` on ``df`` degrees of freedom (a z test when
    ``df`` is None or infinite) whose statistic has noncentrality λ rejects with probability
    ``power`` (α is 1 − level as computed, unrounded, as compare's ``mde`` column and
    ``MetaResult.mde`` always had it): both tails
    counted for a two-sided test (the exact inversion of ``paired-t``'s power above). The
    minimum detectable effect of a test with standard error se is λ·se; Bloom's (1995)
    t_{1-α/2,ν} + t_{power,ν} is its approximation without the far tail and the noncentral t's
    skew. NaN for ``df`` < 1.

    Parameters
    ----------
    df : float or None
        Degrees of freedom of the t test; None or ``inf`` for a z test.
    level : float, default 0.95
        The test is at α = 1 − level.
    power : float, default 0.8
        The probability of rejecting.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        A one-sided test counts one tail.

    Returns
    -------
    float
        The noncentrality λ (NaN for ``df`` < 1).

    References
    ----------
    Bloom, H. S. (1995), "Minimum detectable effects: A simple way to report the statistical
    power of experimental designs", Evaluation Review 19(5):547–556.

    Examples
    --------
    For a z test it is z_{0.975} + z_{0.8}; a t test on few degrees of freedom needs more:

    >>> from ranger_eval.stats.power import detectable_noncentrality
    >>> round(detectable_noncentrality(None), 4), round(detectable_noncentrality(20), 4)
    (2.8016, 2.9455)
    >>> round(detectable_noncentrality(20, alternative="greater"), 4)
    2.5751
    """
    if df is not None and not df >= 1:
        return float("nan")
    return _noncentrality(None if df is None or math.isinf(df) else float(df),
                          1.0 - float(level), float(power), alternative)


@functools.lru_cache(maxsize=4096)
def _noncentrality(df: float | None, alpha: float, power: float, alternative: str) -> float:
    """:func:`detectable_noncentrality`, cached: compare asks it once per distinct df."""
    sides = 2 if alternative == "two-sided" else 1
    normal = df is None

    def achieved(nc: float) -> float:
        if normal:
            z = sps.norm.isf(alpha / sides)
            return float(sps.norm.sf(z - nc) + (sps.norm.cdf(-z - nc) if sides == 2 else 0.0))
        assert df is not None
        crit = sps.t.isf(alpha / sides, df)
        return _nct_sf(crit, df, nc) + (_nct_cdf(-crit, df, nc) if sides == 2 else 0.0)

    hi = 2.0 * (sps.norm.isf(alpha / sides) + sps.norm.isf(1 - power))
    while achieved(hi) < power:
        hi *= 2
    return _root(lambda nc: achieved(nc) - power, 0.0, hi)


@renamed_keywords(alpha="level")
def minimum_detectable_effect(se: float, df: float | None = None, *,
                              level: float = _DEFAULT.level, power: float = 0.8,
                              alternative: str = _DEFAULT.alternative) -> float:
    """The smallest true difference a test with standard error ``se`` detects with ``power``:
    :func:`detectable_noncentrality` (``df``) × ``se`` (Bloom 1995, "Minimum detectable
    effects", with the exact noncentral t). NaN for a zero or non-finite ``se`` or ``df`` < 1;
    for a one-sided test, the effect in the tested direction (positive).

    Parameters
    ----------
    se : float
        Standard error of the estimated difference.
    df : float, optional
        Degrees of freedom of the t test (default: a z test).
    level : float, default 0.95
        The test is at α = 1 − level.
    power : float, default 0.8
        The probability of detecting the effect.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The test's alternative.

    Returns
    -------
    float
        The minimum detectable effect, in the units of ``se`` (NaN when undefined).

    References
    ----------
    Bloom, H. S. (1995), "Minimum detectable effects: A simple way to report the statistical
    power of experimental designs", Evaluation Review 19(5):547–556.

    Examples
    --------
    >>> from ranger_eval.stats.power import minimum_detectable_effect
    >>> round(minimum_detectable_effect(0.05, 30), 4), round(minimum_detectable_effect(0.05), 4)
    (0.1448, 0.1401)
    >>> minimum_detectable_effect(0.0)
    nan
    """
    if not (math.isfinite(se) and se > 0):
        return float("nan")
    return detectable_noncentrality(df, level=level, power=power, alternative=alternative) * se


@renamed_keywords(alpha="level")
def retrodesign(effect: float, se: float, *, level: float = _DEFAULT.level
                ) -> tuple[float, float, float]:
    """Power, Type S and Type M error of a two-sided z test at α = 1 − ``level`` (to 12
    decimals, as :func:`plan`) of a true effect A with standard
    error s (Gelman & Carlin 2014, closed form as R ``retrodesign::retro_design_closed_form``):
    λ = A/s, z = z_{1-α/2}; power = 1 − Φ(z − λ) + Φ(−z − λ); Type S = Φ(−z − λ)/power (for
    A ≥ 0); Type M = [φ(λ + z) + φ(λ − z) + λ(Φ(λ + z) + Φ(λ − z) − 1)] /
    [λ(1 − Φ(λ + z) + Φ(λ − z))], in absolute value.

    Parameters
    ----------
    effect : float
        The assumed true effect A.
    se : float
        The standard error s of its estimate (> 0).
    level : float, default 0.95
        The test is at α = 1 − level.

    Returns
    -------
    tuple of float
        ``(power, type_s, type_m)``: the probability of a significant result, the probability
        that a significant estimate has the wrong sign, and the expected exaggeration ratio
        |estimate|/|A| of a significant estimate.

    References
    ----------
    Gelman, A. & Carlin, J. (2014), "Beyond power calculations: Assessing Type S (sign) and
    Type M (magnitude) errors", Perspectives on Psychological Science 9(6):641–651.

    Examples
    --------
    A true effect twice its standard error, and one well below it:

    >>> from ranger_eval.stats.power import retrodesign
    >>> [round(x, 4) for x in retrodesign(0.1, 0.05)]
    [0.516, 0.0001, 1.3863]
    >>> [round(x, 4) for x in retrodesign(0.02, 0.05)]
    [0.0685, 0.1334, 5.9431]
    """
    z = sps.norm.isf(round(1.0 - level, 12) / 2)
    lam = effect / se
    p_hi = sps.norm.sf(z - lam)
    p_lo = sps.norm.cdf(-z - lam)
    power = p_hi + p_lo
    type_s = p_lo / power if effect >= 0 else 1 - p_lo / power
    type_m = ((sps.norm.pdf(lam + z) + sps.norm.pdf(lam - z)
               + lam * (sps.norm.cdf(lam + z) + sps.norm.cdf(lam - z) - 1))
              / (lam * (1 - sps.norm.cdf(lam + z) + sps.norm.cdf(lam - z))))
    return float(power), float(type_s), float(abs(type_m))
