"""Power, Type S and Type M error by simulation from a pilot's per-item scores.

:func:`plan_from_pilot` follows Card et al. (EMNLP 2020, "With Little Power Comes Great
Responsibility", §3): the pilot's per-item differences d_i = treatment_i − control_i, centred at
0 and shifted by the hypothesised true difference θ, are the population; each simulated
experiment draws n items with replacement, runs the test and records whether it is significant
and its estimate (the mean difference). Over the simulations:

* power = P(significant);
* Type S error = P(estimate has the wrong sign | significant);
* Type M error (exaggeration ratio) = E(|estimate| | significant) / |θ|
  (Gelman & Carlin 2014, "Beyond power calculations").

A pilot whose items come in clusters (a ``cluster`` column) is resampled by whole clusters: an
experiment of n items draws C = max(2, round(n / m̄)) clusters (m̄ the pilot's mean cluster
size) and runs the cluster-robust paired t test ``compare`` uses, CR1 on C − 1 degrees of
freedom (t = d̄ / SE, SE² = C/(C − 1)·Σ_c (S_c − m_c·d̄)² / N², S_c and m_c the cluster's sum
of differences and size, N = Σ m_c; = statsmodels OLS with ``cov_type="cluster"``).

The simulations share one matrix of draws (common random numbers: the experiment with n items
uses the first n draws of every row), so the power moves smoothly when n or θ is solved for. The
result also carries the normal closed forms of the same three quantities with the pilot's SD
(:func:`~ranger_eval.stats.power.retrodesign`, R ``retrodesign::retro_design_closed_form``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import pandas as pd
from scipy import special
from scipy import stats as sps

from ..errors import Hint, renamed_keywords
from ..scores import Scores, as_scores
from ..settings import PILOT_TESTS, PlanSettings, resolve_settings
from ..signature import Signature, make_signature
from ._validation import StatsInputError, check_choice
from .power import plan, retrodesign, solved_for

__all__ = ["PILOT_TESTS", "PilotPlan", "plan_from_pilot"]
_BLOCK = 256                # columns of draws per seeded block (prefixes are reproducible)
_MAX_DRAWS = 50_000_000     # n_resamples × n held at once


@dataclass(frozen=True)
class PilotPlan:
    """A plan simulated from a pilot: ``power``, ``type_s``, ``type_m`` at ``n`` items and true
    difference ``effect`` (one of the three solved for), with the normal closed forms
    (``power_normal``, ``type_s_normal``, ``type_m_normal``) at the pilot's SD of the
    differences. ``type_s``/``type_m`` are None when ``effect`` is 0 or nothing was significant.
    """

    dataset: str
    metric: str
    treatment: str
    control: str
    test: str
    alternative: str
    level: float
    solved_for: str
    n: int
    effect: float
    power: float
    type_s: float | None
    type_m: float | None
    power_normal: float
    type_s_normal: float | None
    type_m_normal: float | None
    n_pilot: int
    pilot_mean: float
    pilot_sd: float
    n_resamples: int
    seed: int
    n_clusters: int | None = None
    #: the settings object of the call (:class:`~ranger_eval.settings.PlanSettings`)
    settings: PlanSettings | None = field(default=None, compare=False, repr=False)

    @property
    def alpha(self) -> float:
        """The simulated test's significance level, 1 − ``level`` (to 12 decimals)."""
        return round(1.0 - self.level, 12)

    @property
    def signature(self) -> Signature:
        return make_signature("plan", {
            "test": self.test, "alt": self.alternative, "level": f"{self.level:.6g}",
            "solve": self.solved_for, "n_resamples": self.n_resamples, "seed": self.seed,
        })

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "settings"}
        out["signature"] = str(self.signature)
        return out

    def summary(self) -> str:
        errors = ("" if self.type_s is None or self.type_m is None else
                  f"; a significant result has the wrong sign with probability "
                  f"{self.type_s:.3g} and exaggerates the effect {self.type_m:.3g}-fold")
        return (f"{self.treatment} vs {self.control} on {self.dataset} ({self.metric}), "
                f"{self.test}"
                + (", cluster-robust" if self.n_clusters is not None else "")
                + f", α = {self.alpha:g}: with {self.n} items"
                + (f" in {self.n_clusters} whole clusters (the pilot's clusters drawn whole)"
                   if self.n_clusters is not None else "")
                + " and a true difference of "
                f"{self.effect:.4g}, {self.n_resamples} simulated experiments from the "
                f"{self.n_pilot}-item pilot reach power {self.power:.3f}{errors}.")


class _Simulator:
    """Draws, tests and summarises simulated experiments of n items."""

    def __init__(self, centred: np.ndarray, test: str, alternative: str, alpha: float,
                 n_resamples: int, seed: int) -> None:
        self.centred = centred
        self.test = test
        self.alternative = alternative
        self.alpha = alpha
        self.n_resamples = n_resamples
        self.seed = seed
        self._blocks: list[np.ndarray] = []

    def se(self, n: int) -> float:
        """Standard error of the mean difference of n items (the normal closed forms)."""
        return float(np.std(self.centred, ddof=1)) / math.sqrt(n)

    def clusters_for(self, n: int) -> int | None:
        return None

    def indices(self, n: int, population: int) -> np.ndarray:
        """n_resamples × n draws from ``range(population)``; block j of columns from seed
        (seed, j), so the first n columns are the same whatever larger n is drawn later."""
        if self.n_resamples * n > _MAX_DRAWS:
            raise StatsInputError(
                f"{self.n_resamples} simulations of {n} draws exceed {_MAX_DRAWS:,}; "
                "pass fewer n_resamples= or use plan() with the pilot's SD")
        while len(self._blocks) * _BLOCK < n:
            rng = np.random.default_rng([self.seed, len(self._blocks)])
            self._blocks.append(rng.integers(0, population, size=(self.n_resamples, _BLOCK)))
        return np.concatenate(self._blocks, axis=1)[:, :n]

    def draws(self, n: int) -> np.ndarray:
        """n_resamples × n pilot values (centred)."""
        return self.centred[self.indices(n, self.centred.size)]

    def run(self, n: int, effect: float) -> tuple[float, float | None, float | None]:
        """(power, Type S, Type M) of n items at true difference ``effect``."""
        x = self.draws(n) + effect
        estimate = x.mean(axis=1)
        p_greater, p_less = self._one_sided(x, estimate)
        return self._summarise(estimate, p_greater, p_less, effect)

    def _summarise(self, estimate: np.ndarray, p_greater: np.ndarray, p_less: np.ndarray,
                   effect: float) -> tuple[float, float | None, float | None]:
        if self.alternative == "two-sided":
            significant = np.minimum(1.0, 2.0 * np.minimum(p_greater, p_less)) <= self.alpha
        elif self.alternative == "greater":
            significant = p_greater <= self.alpha
        else:
            significant = p_less <= self.alpha
        power = float(significant.mean())
        if effect == 0 or not significant.any():
            return power, None, None
        sig = estimate[significant]
        type_s = float(np.mean(np.sign(sig) != np.sign(effect)))
        type_m = float(np.mean(np.abs(sig)) / abs(effect))
        return power, type_s, type_m

    def _one_sided(self, x: np.ndarray, estimate: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = x.shape[1]
        if self.test == "paired-t":
            sd = x.std(axis=1, ddof=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                t = estimate / (sd / math.sqrt(n))
            # no spread: the mean is exact (p 0 in its direction, 1 against; 0/0 → 1)
            t = np.where(sd > 0, t, np.sign(estimate) * np.inf)
            t = np.where((sd > 0) | (estimate != 0), t, 0.0)
            p_greater = special.stdtr(n - 1, -t)
            p_less = special.stdtr(n - 1, t)
            p_greater = np.where(t == 0, np.where(sd > 0, 0.5, 1.0), p_greater)
            p_less = np.where(t == 0, np.where(sd > 0, 0.5, 1.0), p_less)
            return p_greater, p_less
        if self.test == "sign":
            pos = (x > 0).sum(axis=1)
            nonzero = (x != 0).sum(axis=1)
            p_greater = np.where(nonzero > 0, sps.binom.sf(pos - 1, nonzero, 0.5), 1.0)
            p_less = np.where(nonzero > 0, sps.binom.cdf(pos, nonzero, 0.5), 1.0)
            return p_greater, p_less
        # wilcoxon signed-rank, scipy's (zeros dropped, exact or normal as scipy chooses)
        zero = np.all(x == 0, axis=1)
        safe = np.where(zero[:, None], 1.0, x)
        p_greater = sps.wilcoxon(safe, axis=1, alternative="greater").pvalue
        p_less = sps.wilcoxon(safe, axis=1, alternative="less").pvalue
        return np.where(zero, 1.0, p_greater), np.where(zero, 1.0, p_less)


class _ClusterSimulator(_Simulator):
    """Whole clusters resampled; the CR1 cluster-robust paired t on C − 1 df."""

    def __init__(self, centred: np.ndarray, codes: np.ndarray, alternative: str, alpha: float,
                 n_resamples: int, seed: int) -> None:
        super().__init__(centred, "paired-t", alternative, alpha, n_resamples, seed)
        self.sums = np.bincount(codes, weights=centred)
        self.sizes = np.bincount(codes).astype(np.float64)
        self.mean_size = float(self.sizes.mean())

    def clusters_for(self, n: int) -> int:
        return max(2, int(round(n / self.mean_size)))

    def se(self, n: int) -> float:
        """CR1 standard error of the mean difference of C = clusters_for(n) clusters of the
        pilot's mean size: √(mean_c R_c²) / (√C · m̄), R_c the pilot's centred cluster sums."""
        c = self.clusters_for(n)
        return math.sqrt(float(np.mean(np.square(self.sums)))) / (math.sqrt(c) * self.mean_size)

    def run(self, n: int, effect: float) -> tuple[float, float | None, float | None]:
        """(power, Type S, Type M) of C = clusters_for(n) clusters at true difference ``effect``."""
        c = self.clusters_for(n)
        idx = self.indices(c, self.sums.size)
        sizes = self.sizes[idx]
        estimate, t = cluster_robust_t(self.sums[idx] + effect * sizes, sizes)
        p_greater = np.where(t == 0, 1.0, special.stdtr(c - 1, -t))
        p_less = np.where(t == 0, 1.0, special.stdtr(c - 1, t))
        return self._summarise(estimate, p_greater, p_less, effect)


def cluster_robust_t(sums: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean difference and CR1 t statistic of each row of cluster sums (C columns) and cluster
    sizes: d̄ = ΣS/N, SE² = C/(C − 1)·Σ(S_c − m_c·d̄)²/N² (statsmodels OLS of d on a constant with
    ``cov_type="cluster"``); t = ±inf for a nonzero mean with no spread, 0 for 0/0."""
    c = sums.shape[1]
    total = sizes.sum(axis=1)
    estimate = sums.sum(axis=1) / total
    resid = sums - sizes * estimate[:, None]
    se = np.sqrt(c / (c - 1.0) * np.square(resid).sum(axis=1)) / total
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, estimate / se, np.sign(estimate) * np.inf)
    return estimate, np.where((se > 0) | (estimate != 0), t, 0.0)


_DEFAULT = PlanSettings()


@renamed_keywords(n_simulations="n_resamples", alpha="level")
def plan_from_pilot(
    scores: Scores | Any,
    *,
    treatment: str,
    control: str,
    effect: float | None = None,
    n: int | None = None,
    power: float | None = None,
    test: str | None = _DEFAULT.test,
    n_resamples: int = _DEFAULT.n_resamples,
    seed: int = _DEFAULT.seed,
    level: float = _DEFAULT.level,
    alternative: str = _DEFAULT.alternative,
    dataset: str | None = None,
    metric: str | None = None,
    settings: PlanSettings | None = None,
) -> PilotPlan:
    """Simulate experiments from pilot per-item scores and solve the one unknown among
    ``effect`` (the true mean difference treatment − control, in the metric's units), ``n``
    (items) and ``power``; report Type S and Type M error too (module docstring).

    ``scores`` hold the pilot (one dataset × metric, or name them with ``dataset=``/
    ``metric=``); ``test``: one of :data:`PILOT_TESTS` (None: ``auto``, the paired t).
    ``n_resamples`` simulated experiments (≥ 100) at ``seed``; the tests are at
    α = 1 − ``level``. ``n`` is solved as the smallest n
    whose simulated power reaches ``power``, ``effect`` as the smallest true difference that
    does (in the direction of ``alternative``; positive for two-sided). ``settings``: a
    :class:`~ranger_eval.settings.PlanSettings` instead of ``test``, ``n_resamples``,
    ``seed``, ``level`` and ``alternative`` (no ``margin``: the simulation plans superiority
    tests); the result carries it as ``.settings``.

    Parameters
    ----------
    scores : Scores or pandas.DataFrame
        The pilot's per-item scores.
    treatment, control : str
        The two systems.
    effect, n, power : float or int, optional
        Exactly one of them is None and solved for.
    test : {"auto", "paired-t", "wilcoxon", "sign"}, optional
        The planned test (None: ``auto``, the paired t).
    n_resamples : int, default 2000
        Simulated experiments (≥ 100).
    seed : int, default 0
        Seed of the simulations.
    level : float, default 0.95
        The tests are at α = 1 − level.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        Direction of the planned test.
    dataset, metric : str, optional
        The pilot's dataset and metric, when the scores hold several.
    settings : PlanSettings, optional
        ``test``, ``n_resamples``, ``seed``, ``level`` and ``alternative`` as one object.

    Returns
    -------
    PilotPlan
        ``solved_for``, ``n``, ``effect``, ``power``, ``type_s`` and ``type_m`` (simulated), their
        normal-approximation counterparts, the pilot's ``pilot_mean``/``pilot_sd`` and ``settings``.

    Raises
    ------
    StatsInputError
        Not exactly one unknown, unknown systems, too few pilot items or simulations.

    References
    ----------
    Card, D., Henderson, P., Khandelwal, U., Jia, R., Mahowald, K. & Jurafsky, D. (2020), "With
    Little Power Comes Great Responsibility", EMNLP, §3. Gelman, A. & Carlin, J. (2014), "Beyond
    power calculations: assessing Type S (sign) and Type M (magnitude) errors", Perspectives on
    Psychological Science 9(6):641–651.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> pilot = pd.DataFrame({"dataset": "d", "metric": "acc", "item": list(range(8)) * 2,
    ...                       "system": ["A"] * 8 + ["B"] * 8,
    ...                       "value": [.8, .6, .9, .5, .7, .7, .6, .8, .7, .6, .8, .5, .6, .7, .5, .7]})
    >>> p = rg.plan_from_pilot(pilot, treatment="A", control="B", effect=0.05, power=0.8,
    ...                        n_resamples=200)
    >>> p.solved_for, p.n, p.power, p.type_s
    ('n', 11, 0.83, 0.0)
    """
    settings = resolve_settings(PlanSettings, {
        "test": test, "n_resamples": n_resamples, "seed": seed, "level": level,
        "alternative": alternative}, settings, where="plan_from_pilot")
    if settings.margin is not None:
        raise StatsInputError(f"margin={settings.margin!r}: a plan from a pilot simulates "
                              "superiority tests only; plan() takes a margin (with the "
                              "pilot's SD as sd=)")
    scores = as_scores(scores, what="pilot scores", error=StatsInputError)
    if scores.has_prompts:  # a plan over items alone would ignore the prompt variance
        raise StatsInputError(
            "pilot scores with a 'prompt' column: a plan from a pilot resamples items and "
            "would average the prompts away, ignoring the prompt variance every item shares; "
            "plan the design with variance_components(scores).project(n_items=..., "
            "n_prompts=..., n_samples=...) (the standard error of a system's mean under "
            "another design)")
    test = check_choice("test", settings.test or "auto", PILOT_TESTS)
    test = "paired-t" if test == "auto" else test
    alternative, n_resamples, seed = settings.alternative, settings.n_resamples, settings.seed
    alpha = settings.alpha
    unknown = [solved_for(effect, n, power)]  # exactly one left out
    if dataset is None:
        if len(scores.datasets) != 1:
            hint = Hint("dataset")
            raise StatsInputError(f"the pilot has {len(scores.datasets)} datasets "
                                  f"({', '.join(scores.datasets[:5])}); {hint.text}",
                                  hints=[hint])
        dataset = scores.datasets[0]
    paired = scores.pair(dataset, treatment, control, metric)
    clustered = paired.clusters is not None and len(set(paired.clusters)) < paired.n
    if clustered and test != "paired-t":
        given, hint = Hint("test", test, form="set"), Hint("test", "paired-t")
        raise StatsInputError(
            f"dataset {dataset!r}: the pilot's items come in clusters, resampled whole and "
            f"tested by the cluster-robust paired t; {given.text} has no clustered simulation "
            f"here: {hint.text} (or 'auto')", hints=[given, hint])
    d = paired.treatment - paired.control
    if d.size < 2:
        raise StatsInputError(f"dataset {dataset!r}: a pilot needs at least 2 items; got "
                              f"{d.size}")
    pilot_sd = float(np.std(d, ddof=1))
    if not pilot_sd > 0:
        raise StatsInputError(f"dataset {dataset!r}: the pilot's differences between "
                              f"{treatment!r} and {control!r} are all {float(d[0])!r}; no "
                              "variability to simulate from")
    if clustered:
        assert paired.clusters is not None
        codes = pd.factorize(pd.Series(paired.clusters, dtype=object), sort=True)[0]
        sim: _Simulator = _ClusterSimulator(d - d.mean(), codes, alternative, float(alpha),
                                            int(n_resamples), seed)
    else:
        sim = _Simulator(d - d.mean(), test, alternative, float(alpha), int(n_resamples),
                         seed)
    sign = -1.0 if alternative == "less" else 1.0

    if power is not None and not (isinstance(power, (int, float)) and alpha < power < 1):
        raise StatsInputError(f"power must be above alpha ({alpha:g}) and below 1; got {power!r}")
    if n is not None and (isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2):
        raise StatsInputError(f"n must be an integer ≥ 2 (items); got {n!r}")
    if effect is not None:
        if not (isinstance(effect, (int, float)) and math.isfinite(effect)):
            raise StatsInputError(f"effect must be a finite number; got {effect!r}")
        if power is not None and (effect == 0 or sign * effect < 0):
            raise StatsInputError(f"effect={effect!r} cannot be detected by a {alternative} "
                                  "test: no n gives the power asked for")

    if n is None:
        assert effect is not None and power is not None
        n = _solve_n(sim, float(effect), float(power), pilot_sd, alternative, settings.level)
    elif effect is None:
        assert power is not None
        effect = sign * _solve_effect(sim, int(n), float(power), sign, pilot_sd)
    n = int(n)
    if isinstance(sim, _ClusterSimulator) and unknown[0] == "n":  # whole clusters of mean size
        n = int(math.ceil(sim.clusters_for(n) * sim.mean_size - 1e-9))
    assert effect is not None
    achieved, type_s, type_m = sim.run(n, float(effect))
    se = sim.se(n)
    if effect != 0:
        p_norm, s_norm, m_norm = retrodesign(float(effect), se, level=settings.level)
        ts_norm: float | None = s_norm
        tm_norm: float | None = m_norm
    else:
        p_norm, ts_norm, tm_norm = float(alpha), None, None
    return PilotPlan(
        dataset=dataset, metric=paired.metric, treatment=treatment, control=control, test=test,
        alternative=alternative, level=settings.level, solved_for=unknown[0], n=n,
        effect=float(effect), power=achieved, type_s=type_s, type_m=type_m,
        power_normal=p_norm, type_s_normal=ts_norm, type_m_normal=tm_norm, n_pilot=int(d.size),
        pilot_mean=float(d.mean()), pilot_sd=pilot_sd, n_resamples=int(n_resamples),
        seed=seed,
        n_clusters=sim.clusters_for(n), settings=settings)


def _solve_n(sim: _Simulator, effect: float, power: float, sd: float, alternative: str,
             level: float) -> int:
    """Smallest n (bisection over integers, common random numbers) with simulated power ≥
    target, starting from the normal-theory n of the paired t test with the pilot's SD."""
    guess = plan("paired-t", effect=effect, sd=sd, power=power, level=level,
                 alternative=alternative).n
    hi = max(guess, 4)
    while sim.run(hi, effect)[0] < power:
        hi *= 2
        if sim.n_resamples * hi > _MAX_DRAWS:
            raise StatsInputError(
                f"the simulated power stays below {power:g} up to n = {hi // 2} items; the "
                "effect is too small for the pilot's variability")
    lo = 1                                  # power(lo) < target by convention
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mid >= 2 and sim.run(mid, effect)[0] >= power:
            hi = mid
        else:
            lo = mid
    return hi


def _solve_effect(sim: _Simulator, n: int, power: float, sign: float, sd: float) -> float:
    """Smallest |θ| (bisection to 1e-9 of the pilot's SD) with simulated power ≥ target."""
    hi = sd
    while sim.run(n, sign * hi)[0] < power:
        hi *= 2
        if hi > 1e6 * sd:
            raise StatsInputError(f"no true difference reaches power {power:g} with n = {n} "
                                  "items (the test cannot reject at this n)")
    lo = 0.0
    while hi - lo > 1e-9 * sd:
        mid = 0.5 * (lo + hi)
        if sim.run(n, sign * mid)[0] >= power:
            hi = mid
        else:
            lo = mid
    return hi
