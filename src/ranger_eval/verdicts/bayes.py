"""Bayesian comparison of two systems with a region of practical equivalence (ROPE).

The three tests of ``baycomp`` (Benavoli, Corani, Demšar & Zaffalon, "Time for a change: a
tutorial for comparing multiple classifiers through Bayesian analysis", JMLR 18, 2017), with its
orientation and defaults:

- :func:`bayesian_correlated_ttest` — one dataset, scores of (repeated) cross-validation
  (Corani & Benavoli 2015; ``baycomp.two_on_single`` / ``CorrelatedTTest``);
- :func:`bayesian_signed_rank` — across datasets, one mean score per dataset (Benavoli et al.,
  ICML 2014; ``baycomp.SignedRankTest``);
- :func:`bayesian_sign_test` — across datasets (``baycomp.SignTest``).

**Orientation** (baycomp's). The first argument is the ``treatment`` (baycomp's x, the one whose
superiority is "left"), the second the ``control`` (baycomp's y). Let d = control − treatment
(``higher_is_better=True``; treatment − control otherwise, so that "left" always means the
treatment is better). ``p_left`` = P(d < −rope), the treatment is better by more than the ROPE;
``p_rope`` = P(|d| ≤ rope), practically equivalent; ``p_right`` = P(d > rope), the control is
better by more than the ROPE. With ``rope=0``
``p_rope`` is 0 and ``p_left + p_right = 1``, as baycomp's two-value answer.

**Correlated t-test** (closed form). With n = len(x) scores from ``runs`` repetitions of
k = n / runs-fold cross-validation, the Nadeau & Bengio (2003) correction for the overlap of the
training sets uses ρ = n_test / n_total = 1 / k, so that the posterior of the mean difference is a
Student t with n − 1 degrees of freedom, location d̄ and scale
σ = √(s² · (1/n + ρ/(1 − ρ))) = √(s² · (1/n + 1/(k − 1))), s² the sample variance (ddof 1) of d
(Corani & Benavoli 2015, eq. 8). Then p_left = T(−rope), p_right = 1 − T(rope). A zero variance
(constant differences) gives baycomp's point mass at d̄ (with a warning).

**Bayesian signed-rank test** (Benavoli et al. 2014). A Dirichlet process with prior strength
``prior`` placed at the pseudo-observation 0 gives posterior weights
w ~ Dirichlet(prior, 1, …, 1) over {0, d_1, …, d_n}; each draw gives
θ_left = Σ_{i,j} w_i w_j H(−(d_i + d_j) − 2·rope), θ_right = Σ_{i,j} w_i w_j H(d_i + d_j − 2·rope)
(H the Heaviside step with H(0) = ½; with rope = 0 only θ_right and θ_left = 1 − θ_right),
θ_rope = 1 − θ_left − θ_right. Each probability is the share of the ``n_draws`` draws in which
that θ is the largest (baycomp's ``argmax``, ties to the first). Computed for all draws at once as
the quadratic forms ``einsum("si,ij,sj->s", W, H, W)``, in blocks
(:mod:`ranger_eval.stats.bayes`, shared with the rank test over many systems).

**Bayesian sign test**: θ ~ Dirichlet(n_left + ε, n_rope + ε + prior, n_right + ε) with n_* the
counts of differences below −rope, within, above rope, ε = 0.0001 (baycomp's numerical
stabiliser) and the prior strength on the ROPE (or on ``prior_place``); probabilities as above.
With ``rope=0`` the draws still have three cells and p_left, p_right are renormalised over the
draws not won by the rope cell (baycomp's ``with_rope=False``).

**Random numbers.** The Dirichlet draws are those of ``numpy.random.RandomState(seed)
.dirichlet`` — baycomp's generator for ``random_state=seed`` — so the same seed gives exactly
baycomp's probabilities. For another seed, each probability differs from the exact posterior
probability p by Monte-Carlo error with standard error √(p (1 − p) / n_draws) (≤ 0.0022 at
50,000 samples), reported as ``mc_se``.

**Out of scope: the hierarchical model** across datasets (Corani et al., Machine Learning 2017;
baycomp's ``HierarchicalTest``). baycomp fits it by MCMC in Stan (``pystan``), which compiles a
C++ model with a compiler toolchain and samples for minutes per comparison; that does not run in
CI under the test-time budget, so Ranger does not offer it. Use the signed-rank test on the
per-dataset means, or baycomp's hierarchical test directly.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from ..design import refuse_prompts
from ..errors import SettingsError, VerdictError, renamed_keywords
from ..formatting import format_probability as _p
from ..scores import Scores
from ..settings import PRIOR_PLACES, BayesSettings, resolve_settings, signature_fields
from ..signature import Signature, make_signature
from ..stats.bayes import signed_rank_probabilities, winner_shares

__all__ = ["PRIOR_PLACES", "BayesAnalysis", "BayesGroup", "BayesResult",
           "bayesian_correlated_ttest", "bayesian_sign_test", "bayesian_signed_rank",
           "correlated_ttests", "dataset_tests"]

#: The defaults of every keyword that is a setting (:class:`~ranger_eval.settings.BayesSettings`).
_DEFAULT = BayesSettings()
#: Baycomp's prior strengths when ``prior=None``.
_BAYCOMP_PRIOR = {"signed-rank": 0.5, "sign": 1.0}
#: Keywords renamed for the one vocabulary (docs/architecture.md, Glossary).
_RENAMED = {"n_samples": "n_draws"}
_PAIR = {"x": "treatment", "y": "control"}
_EPS = 0.0001        # baycomp's stabiliser added to every Dirichlet parameter of the sign test


@dataclass(frozen=True)
class BayesResult:
    """The posterior probabilities of one Bayesian comparison (module docstring for formulas).

    ``mean``, ``scale`` and ``df`` are the Student posterior of the correlated t-test (``None``
    for the Dirichlet-process tests); ``n_draws`` the Dirichlet tests' number of posterior
    draws and ``samples`` the draws themselves (columns θ_left, θ_rope, θ_right) for the simplex
    plot; ``settings`` the :class:`~ranger_eval.settings.BayesSettings` of the call.
    ``to_dict`` keeps the JSON key ``n_samples`` of earlier releases for ``n_draws``.
    """

    test: str
    p_left: float
    p_rope: float
    p_right: float
    rope: float
    n: int
    names: tuple[str, str]
    higher_is_better: bool
    mean: float | None = None
    scale: float | None = None
    df: float | None = None
    runs: int | None = None
    prior: float | None = None
    prior_place: str | None = None
    n_draws: int | None = None
    seed: int | None = None
    samples: np.ndarray | None = field(default=None, repr=False, compare=False)
    settings: BayesSettings | None = field(default=None, repr=False, compare=False)

    @property
    def probabilities(self) -> tuple[float, float, float]:
        """``(p_left, p_rope, p_right)``."""
        return (self.p_left, self.p_rope, self.p_right)

    @property
    def mc_se(self) -> tuple[float, float, float] | None:
        """Monte-Carlo standard errors √(p (1 − p) / n_draws) of the three probabilities
        (``None`` for the closed-form correlated t-test)."""
        if self.n_draws is None:
            return None
        return tuple(math.sqrt(p * (1 - p) / self.n_draws)  # type: ignore[return-value]
                     for p in self.probabilities)

    def verdict(self, *, level: float = 0.95) -> str:
        """The result in words: the outcome whose posterior probability reaches ``level``
        (e.g. ``"A is practically equivalent to B (P(rope) = 0.93, ROPE ±0.01)"``), or
        ``"inconclusive"`` with all three probabilities."""
        if not 0.5 < level < 1:
            raise VerdictError(f"level must be in (0.5, 1), got {level!r}")
        a, b = self.names
        rope = f", ROPE ±{self.rope:g}" if self.rope > 0 else ""
        if self.rope > 0 and self.p_rope >= level:
            return f"{a} is practically equivalent to {b} (P(rope) {_p(self.p_rope)}{rope})"
        by = " by more than the ROPE" if self.rope > 0 else ""
        if self.p_left >= level:
            return f"{a} is better than {b}{by} (P({a} better) {_p(self.p_left)}{rope})"
        if self.p_right >= level:
            return f"{b} is better than {a}{by} (P({b} better) {_p(self.p_right)}{rope})"
        parts = [f"P({a} better) {_p(self.p_left)}"]
        if self.rope > 0:
            parts.append(f"P(rope) {_p(self.p_rope)}")
        parts.append(f"P({b} better) {_p(self.p_right)}")
        return (f"{a} vs {b}: inconclusive at {level:g} ({', '.join(parts)}{rope})")

    @property
    def signature(self) -> Signature:
        """``kind:bayes|test:…|rope:…|runs:…|prior:…|n_draws:…|seed:…``."""
        prior = None
        if self.prior is not None:
            prior = f"{self.prior:g}" if self.prior_place in (None, "rope") \
                else f"{self.prior:g}@{self.prior_place}"
        return make_signature("bayes", {
            "test": self.test, "rope": self.rope, "runs": self.runs, "prior": prior,
            "n_draws": self.n_draws, "seed": self.seed})

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly: probabilities, posterior parameters, settings and the signature."""
        return {
            "test": self.test, "names": list(self.names), "p_left": self.p_left,
            "p_rope": self.p_rope, "p_right": self.p_right, "rope": self.rope, "n": self.n,
            "higher_is_better": self.higher_is_better, "mean": self.mean, "scale": self.scale,
            "df": self.df, "runs": self.runs, "prior": self.prior,
            "prior_place": self.prior_place, "n_draws": self.n_draws, "seed": self.seed,
            "mc_se": None if self.mc_se is None else list(self.mc_se),
            "signature": str(self.signature),
        }


# ------------------------------------------------------------------------------------ input

def _differences(x: object, y: object, *, rope: float, higher_is_better: bool,
                 names: Sequence[str] | None, what: str) -> tuple[np.ndarray, tuple[str, str]]:
    """d = y − x (or x − y), checked: equal lengths, finite numbers, a finite rope ≥ 0."""
    nm = ("x", "y") if names is None else tuple(str(n) for n in names)
    if len(nm) != 2 or nm[0] == nm[1]:
        raise VerdictError(f"{what}: names must be two different names, got {names!r}")
    try:
        r = float(rope)
    except (TypeError, ValueError):
        raise VerdictError(f"{what}: rope must be a number ≥ 0, got {rope!r}") from None
    if not math.isfinite(r) or r < 0:
        raise VerdictError(f"{what}: rope must be a finite number ≥ 0 (the half-width of the "
                           f"region of practical equivalence), got {rope!r}")
    arrays = []
    for label, name, v in (("x", nm[0], x), ("y", nm[1], y)):
        try:
            a = np.asarray(v, dtype=np.float64)
        except (TypeError, ValueError):
            raise VerdictError(f"{what}: {label} ({name}) must be numbers, got "
                               f"{str(v)[:80]!r}") from None
        if a.ndim != 1:
            raise VerdictError(f"{what}: {label} ({name}) must be one-dimensional, got shape "
                               f"{a.shape}")
        bad = np.flatnonzero(~np.isfinite(a))
        if bad.size:
            raise VerdictError(f"{what}: {label} ({name}) has {bad.size} non-finite value(s), "
                               f"first at position {bad[0]}: {a[bad[0]]!r}")
        arrays.append(a)
    ax, ay = arrays
    if ax.size != ay.size:
        raise VerdictError(f"{what}: x ({nm[0]}) and y ({nm[1]}) must be paired scores of the "
                           f"same length, got {ax.size} and {ay.size}")
    if ax.size < 2:
        raise VerdictError(f"{what}: needs at least 2 paired scores, got {ax.size}")
    d = ay - ax if higher_is_better else ax - ay
    if r == 0 and not np.any(d):
        raise VerdictError(
            f"{what}: {nm[0]} and {nm[1]} have identical scores (every difference is 0) and "
            f"rope=0: there is no evidence for either direction; give rope > 0 to ask whether "
            f"they are practically equivalent")
    return d, (nm[0], nm[1])


def _test_settings(test: str, keywords: dict[str, Any], settings: BayesSettings | None,
                   what: str) -> BayesSettings:
    """The settings of one of the three tests: the keywords (with ``test``) checked once, or
    ``settings``, whose ``test`` must be this one."""
    if settings is None:
        return resolve_settings(BayesSettings, {"test": test, **keywords}, None, where=what)
    s = resolve_settings(BayesSettings, keywords, settings, where=what)
    if s.test != test:
        raise SettingsError(f"{what}: settings.test is {s.test!r}; this function is "
                            f"test={test!r} (dataclasses.replace(settings, test={test!r}))")
    return s


# ------------------------------------------------------------------------------------ tests

@renamed_keywords(**_PAIR)
def bayesian_correlated_ttest(treatment: object, control: object, *,
                              rope: float = _DEFAULT.rope, runs: int | None = _DEFAULT.runs,
                              higher_is_better: bool = _DEFAULT.higher_is_better,
                              names: Sequence[str] | None = None,
                              settings: BayesSettings | None = None) -> BayesResult:
    """Corani & Benavoli's Bayesian correlated t-test on one dataset (module docstring).

    ``treatment``, ``control``: the scores of two systems on the same n = runs × k folds of
    (repeated) k-fold cross-validation, in the same order; ``p_left`` is the probability that
    the treatment is better by more than ``rope``. ``runs=None`` is 1 (one cross-validation).
    Equal to ``baycomp.two_on_single(treatment, control, rope, runs)`` (closed form; module
    docstring for the posterior). ``settings``: a :class:`~ranger_eval.settings.BayesSettings`
    with ``test="correlated-t"`` instead of the keywords; the result carries it
    (``.settings``).

    Parameters
    ----------
    treatment, control : array_like
        Scores of the two systems on the same cross-validation folds, in the same order.
    rope : float, default 0.0
        Half-width of the region of practical equivalence, in the metric's units.
    runs : int, optional
        Number of repetitions of the k-fold cross-validation (None: 1).
    higher_is_better : bool, default True
        False negates the scores first.
    names : sequence of two str, optional
        The systems' names in the verdict (treatment's first).
    settings : BayesSettings, optional
        The keywords above as one object (``test="correlated-t"``).

    Returns
    -------
    BayesResult
        ``p_left`` (treatment better by more than ``rope``), ``p_rope``, ``p_right``, the
        posterior's ``mean``, ``scale`` and ``df``, and ``settings``.

    Raises
    ------
    VerdictError
        Unequal lengths, non-finite scores, a bad ``rope`` or ``runs``.

    References
    ----------
    Corani, G. & Benavoli, A. (2015), "A Bayesian approach for comparing cross-validated
    algorithms on multiple data sets", Machine Learning 100:285–304 (eq. 8). Benavoli, A.,
    Corani, G., Demšar, J. & Zaffalon, M. (2017), "Time for a change: a tutorial for comparing
    multiple classifiers through Bayesian analysis", JMLR 18.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> x = [0.81, 0.72, 0.65, 0.90, 0.77, 0.70, 0.66, 0.88, 0.74, 0.69]
    >>> y = [0.79, 0.70, 0.66, 0.85, 0.74, 0.69, 0.62, 0.86, 0.70, 0.70]
    >>> r = rg.bayesian_correlated_ttest(x, y, rope=0.01, runs=1)
    >>> round(r.p_left, 4), round(r.p_rope, 4), round(r.p_right, 4)
    (0.8663, 0.1293, 0.0044)
    """
    what = "bayesian_correlated_ttest"
    s = _test_settings("correlated-t", {"rope": rope, "runs": runs,
                                        "higher_is_better": higher_is_better}, settings, what)
    rope, higher_is_better = s.rope, s.higher_is_better
    runs = 1 if s.runs is None else s.runs
    d, nm = _differences(treatment, control, rope=rope, higher_is_better=higher_is_better,
                         names=names, what=what)
    n = d.size
    if n % runs:
        raise VerdictError(f"{what}: {n} scores cannot come from {runs} runs of the same "
                           f"k-fold cross-validation ({n} is not a multiple of {runs})")
    folds = n // runs
    if folds < 2:
        raise VerdictError(f"{what}: {n} scores from {runs} runs is {folds} fold per run; the "
                           f"Nadeau–Bengio correction needs at least 2 folds per run")
    r = float(rope)
    mean = float(np.mean(d))
    var = float(np.var(d, ddof=1)) * (1 / n + 1 / (folds - 1))
    df = float(n - 1)
    if var == 0:
        warnings.warn(f"{what}: the {n} differences between {nm[0]} and {nm[1]} are all equal "
                      f"({mean:g}): the posterior is a point mass at that value (baycomp's "
                      f"answer), which claims certainty from {n} scores", stacklevel=2)
        if r == 0:
            pr = float(mean > 0) + 0.5 * float(mean == 0)
            pl, pe = 1 - pr, 0.0
        else:
            pl, pr = float(mean < -r), float(mean > r)
            pe = 1 - pl - pr
    else:
        scale = math.sqrt(var)
        if r == 0:
            pr = float(1 - stats.t.cdf(0, df, mean, scale))
            pl, pe = 1 - pr, 0.0
        else:
            pl = float(stats.t.cdf(-r, df, mean, scale))
            pr = float(1 - stats.t.cdf(r, df, mean, scale))
            pe = 1 - pl - pr
    return BayesResult(test="correlated-t", p_left=pl, p_rope=pe, p_right=pr, rope=r, n=n,
                       names=nm, higher_is_better=higher_is_better, mean=mean,
                       scale=math.sqrt(var), df=df, runs=int(runs), settings=s)


@renamed_keywords(**_RENAMED, **_PAIR)
def bayesian_signed_rank(treatment: object, control: object, *, rope: float = _DEFAULT.rope,
                         prior: float | None = _DEFAULT.prior, n_draws: int = _DEFAULT.n_draws,
                         seed: int = _DEFAULT.seed,
                         higher_is_better: bool = _DEFAULT.higher_is_better,
                         names: Sequence[str] | None = None,
                         settings: BayesSettings | None = None) -> BayesResult:
    """Benavoli et al.'s Bayesian signed-rank test across datasets (module docstring).

    ``treatment``, ``control``: one (mean) score per dataset for each system, paired by
    dataset; ``p_left`` is the probability that the treatment is better by more than
    ``rope``. ``prior=None`` is baycomp's 0.5. Exactly ``baycomp.SignedRankTest.probs(
    treatment, control, rope, prior=prior, nsamples=n_draws, random_state=seed)``; Monte-Carlo
    standard errors in ``.mc_se``. ``settings``: a :class:`~ranger_eval.settings.BayesSettings`
    with ``test="signed-rank"`` instead of the keywords; the result carries it (``.settings``).

    Parameters
    ----------
    treatment, control : array_like
        One (mean) score per dataset for each system, paired by dataset.
    rope : float, default 0.0
        Half-width of the region of practical equivalence, in the metric's units.
    prior : float, optional
        Strength of the Dirichlet process prior at the pseudo-observation 0 (None: 0.5).
    n_draws : int, default 50000
        Posterior draws.
    seed : int, default 0
        Seed of ``numpy.random.RandomState`` (as baycomp's ``random_state``).
    higher_is_better : bool, default True
        False negates the scores first.
    names : sequence of two str, optional
        The systems' names in the verdict (treatment's first).
    settings : BayesSettings, optional
        The keywords above as one object (``test="signed-rank"``).

    Returns
    -------
    BayesResult
        ``p_left``, ``p_rope``, ``p_right`` (shares of the draws in which each θ is the largest),
        ``mc_se`` and ``settings``.

    Raises
    ------
    VerdictError
        Unequal lengths, non-finite scores, a bad ``rope``, ``prior`` or ``n_draws``.

    References
    ----------
    Benavoli, A., Corani, G., Mangili, F., Zaffalon, M. & Ruggeri, F. (2014), "A Bayesian
    Wilcoxon signed-rank test based on the Dirichlet process", ICML. Benavoli, Corani, Demšar &
    Zaffalon (2017), JMLR 18.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> x = [0.81, 0.72, 0.65, 0.90, 0.77, 0.70, 0.66, 0.88, 0.74, 0.69]
    >>> y = [0.79, 0.70, 0.66, 0.85, 0.74, 0.69, 0.62, 0.86, 0.70, 0.70]
    >>> r = rg.bayesian_signed_rank(x, y, rope=0.01, n_draws=2000)
    >>> r.p_left, r.p_rope, r.p_right
    (0.99, 0.008, 0.002)
    """
    what = "bayesian_signed_rank"
    s = _test_settings("signed-rank", {"rope": rope, "prior": prior, "n_draws": n_draws,
                                       "seed": seed, "higher_is_better": higher_is_better},
                       settings, what)
    d, nm = _differences(treatment, control, rope=s.rope, higher_is_better=s.higher_is_better,
                         names=names, what=what)
    p = _BAYCOMP_PRIOR["signed-rank"] if s.prior is None else s.prior
    r = s.rope
    (pl, pe, pr), theta = signed_rank_probabilities(d, r, p, s.n_draws, s.seed)
    return BayesResult(test="signed-rank", p_left=pl, p_rope=pe, p_right=pr, rope=r, n=d.size,
                       names=nm, higher_is_better=s.higher_is_better, prior=p,
                       n_draws=s.n_draws, seed=s.seed, samples=theta, settings=s)


@renamed_keywords(**_RENAMED, **_PAIR)
def bayesian_sign_test(treatment: object, control: object, *, rope: float = _DEFAULT.rope,
                       prior: float | None = _DEFAULT.prior,
                       prior_place: str = _DEFAULT.prior_place, n_draws: int = _DEFAULT.n_draws,
                       seed: int = _DEFAULT.seed,
                       higher_is_better: bool = _DEFAULT.higher_is_better,
                       names: Sequence[str] | None = None,
                       settings: BayesSettings | None = None) -> BayesResult:
    """The Bayesian sign test across datasets (module docstring); ``prior=None`` is baycomp's
    prior strength 1, on the ROPE (``prior_place``). ``treatment``, ``control``: one (mean)
    score per dataset, paired by dataset; ``p_left`` is the probability that the treatment is
    better by more than ``rope``. Exactly ``baycomp.SignTest.probs(treatment, control, rope,
    prior=prior, nsamples=n_draws, random_state=seed)`` (``prior=(SignTest.LEFT, s)`` is
    ``prior_place="left"``). ``settings``: a :class:`~ranger_eval.settings.BayesSettings` with
    ``test="sign"`` instead of the keywords; the result carries it (``.settings``).

    Parameters
    ----------
    treatment, control : array_like
        One (mean) score per dataset for each system, paired by dataset.
    rope : float, default 0.0
        Half-width of the region of practical equivalence, in the metric's units.
    prior : float, optional
        Prior strength (None: 1).
    prior_place : {"rope", "left", "right"}, default "rope"
        The Dirichlet cell that receives the prior.
    n_draws : int, default 50000
        Posterior draws.
    seed : int, default 0
        Seed of ``numpy.random.RandomState`` (as baycomp's ``random_state``).
    higher_is_better : bool, default True
        False negates the scores first.
    names : sequence of two str, optional
        The systems' names in the verdict (treatment's first).
    settings : BayesSettings, optional
        The keywords above as one object (``test="sign"``).

    Returns
    -------
    BayesResult
        ``p_left``, ``p_rope``, ``p_right`` and ``settings``.

    Raises
    ------
    VerdictError
        Unequal lengths, non-finite scores, a bad ``rope``, ``prior`` or ``n_draws``.

    References
    ----------
    Benavoli, A., Corani, G., Demšar, J. & Zaffalon, M. (2017), "Time for a change: a tutorial for
    comparing multiple classifiers through Bayesian analysis", JMLR 18 (θ ~ Dirichlet(n_left + ε,
    n_rope + ε + prior, n_right + ε)); baycomp's ``SignTest``.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> x = [0.81, 0.72, 0.65, 0.90, 0.77, 0.70, 0.66, 0.88, 0.74, 0.69]
    >>> y = [0.79, 0.70, 0.66, 0.85, 0.74, 0.69, 0.62, 0.86, 0.70, 0.70]
    >>> r = rg.bayesian_sign_test(x, y, rope=0.01, n_draws=2000)
    >>> r.p_left, r.p_rope, r.p_right
    (0.981, 0.003, 0.016)
    """
    what = "bayesian_sign_test"
    s = _test_settings("sign", {"rope": rope, "prior": prior, "prior_place": prior_place,
                                "n_draws": n_draws, "seed": seed,
                                "higher_is_better": higher_is_better}, settings, what)
    d, nm = _differences(treatment, control, rope=s.rope, higher_is_better=s.higher_is_better,
                         names=names, what=what)
    p = _BAYCOMP_PRIOR["sign"] if s.prior is None else s.prior
    prior_place, n_draws, seed = s.prior_place, s.n_draws, s.seed
    r = s.rope
    n_left = int(np.count_nonzero(d < -r))
    n_right = int(np.count_nonzero(d > r))
    alpha = np.array([n_left, d.size - n_left - n_right, n_right], dtype=np.float64) + _EPS
    alpha[PRIOR_PLACES.index(prior_place)] += p
    theta = np.random.RandomState(seed).dirichlet(alpha, n_draws)
    pl, pe, pr = winner_shares(theta, r > 0)
    if r == 0 and not math.isfinite(pl):
        raise VerdictError(f"{what}: every posterior draw favours the ROPE cell with rope=0 "
                           f"({nm[0]} and {nm[1]} tie on {d.size - n_left - n_right} of "
                           f"{d.size} datasets); give rope > 0")
    return BayesResult(test="sign", p_left=pl, p_rope=pe, p_right=pr, rope=r, n=d.size,
                       names=nm, higher_is_better=s.higher_is_better, prior=p,
                       prior_place=prior_place, n_draws=n_draws, seed=seed,
                       samples=theta, settings=s)


# ------------------------------------------------------------------ every pair of every group
@dataclass(frozen=True)
class BayesGroup:
    """The correlated t-tests of every pair of systems on one dataset × metric."""

    dataset: str
    metric: str
    results: tuple[BayesResult, ...]


@dataclass(frozen=True)
class BayesAnalysis:
    """Bayesian correlated t-tests of every pair of systems on every dataset × metric of
    cross-validation scores (:func:`correlated_ttests`), with the settings that made them;
    ``runs`` is the setting (None: each system's seeds); ``test`` is ``correlated-t`` or, across
    datasets (:func:`dataset_tests`), ``signed-rank`` or ``sign`` with the Dirichlet process's
    ``prior`` (the one used), ``n_draws`` and ``seed``; ``settings`` the
    :class:`~ranger_eval.settings.BayesSettings` of the call. ``to_dict`` keeps the JSON key
    ``n_samples`` of earlier releases for ``n_draws``."""

    groups: tuple[BayesGroup, ...]
    rope: float
    runs: int | None
    level: float
    higher_is_better: bool
    from_seeds: bool = False
    test: str = "correlated-t"
    prior: float | None = None
    n_draws: int | None = None
    seed: int | None = None
    prior_place: str = "rope"
    settings: BayesSettings | None = field(default=None, compare=False, repr=False)

    @property
    def runs_given(self) -> bool:
        return self.runs is not None

    @property
    def signature(self) -> Signature:
        """``kind:bayes|test:correlated-t|rope:…|runs:…|level:…`` (runs ``seeds``: the seed
        column's seeds are the runs), or ``kind:bayes|test:signed-rank|rope:…|level:…|prior:…|
        n_draws:…|seed:…`` (prior ``S@left`` / ``S@right`` when the sign test puts it there)."""
        if self.test == "correlated-t":
            runs = "seeds" if self.from_seeds else 1 if self.runs is None else self.runs
            formatted: dict[str, Any] = {"runs": runs, "prior": None, "n_draws": None,
                                         "seed": None}
        else:
            place = "" if self.prior_place == "rope" else f"@{self.prior_place}"
            formatted = {"runs": None, "prior": f"{self.prior:g}{place}"}
        return make_signature("bayes", signature_fields(BayesSettings, self, formatted))

    def to_frame(self) -> Any:
        """One row per pair: dataset, metric, a, b, n (folds, or datasets), runs, mean, scale,
        df (the correlated t-test's posterior; empty across datasets), p_left (a better), p_rope,
        p_right (b better), mc_se (the largest Monte-Carlo standard error of the three; empty
        for the closed-form t-test), verdict."""
        import pandas as pd

        rows = [(g.dataset, g.metric, r.names[0], r.names[1], r.n, r.runs, r.mean, r.scale,
                 r.df, r.p_left, r.p_rope, r.p_right,
                 None if r.mc_se is None else max(r.mc_se), r.verdict(level=self.level))
                for g in self.groups for r in g.results]
        return pd.DataFrame(rows, columns=["dataset", "metric", "a", "b", "n", "runs", "mean",
                                           "scale", "df", "p_left", "p_rope", "p_right", "mc_se",
                                           "verdict"])

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly: settings, every pair's posterior and verdict, the signature."""
        return {
            "test": self.test, "rope": self.rope, "runs": self.runs, "level": self.level,
            "higher_is_better": self.higher_is_better, "from_seeds": self.from_seeds,
            "prior": self.prior, "n_draws": self.n_draws, "seed": self.seed,
            "groups": [{"dataset": g.dataset, "metric": g.metric, "pairs": [
                {"a": r.names[0], "b": r.names[1], "n": r.n, "runs": r.runs, "mean": r.mean,
                 "scale": r.scale, "df": r.df, "p_left": r.p_left, "p_rope": r.p_rope,
                 "p_right": r.p_right,
                 "mc_se": None if r.mc_se is None else list(r.mc_se),
                 "verdict": r.verdict(level=self.level),
                 "signature": str(r.signature)} for r in g.results]} for g in self.groups],
            "signature": str(self.signature),
        }


def correlated_ttests(scores: Any, *, rope: float = _DEFAULT.rope,
                      runs: int | None = _DEFAULT.runs, level: float = _DEFAULT.level,
                      higher_is_better: bool = _DEFAULT.higher_is_better,
                      datasets: Sequence[str] | None = _DEFAULT.datasets,
                      metrics: Sequence[str] | None = _DEFAULT.metrics,
                      systems: Sequence[str] | None = _DEFAULT.systems,
                      settings: BayesSettings | None = None) -> BayesAnalysis:
    """:func:`bayesian_correlated_ttest` of every pair of systems on every dataset × metric
    (``ranger-eval bayes``).

    ``scores``: :class:`~ranger_eval.Scores` of cross-validation: an item is a fold, matched by
    id between systems; with a ``seed`` column a seed is one repetition (run) of the
    cross-validation, matched by seed. The keywords are fields of
    :class:`~ranger_eval.settings.BayesSettings` (or pass ``settings=`` with
    ``test="correlated-t"``): ``rope``, ``runs``, ``level`` (of the verdicts),
    ``higher_is_better`` and the ``datasets``, ``metrics``, ``systems`` compared. ``runs``
    defaults to the number of seeds (1 without a seed column); given with a seed column it must
    equal it. Items one system lacks, a seed one system lacks, or a run without every fold are
    errors naming the dataset, metric and systems (never dropped). The result carries the
    settings object (``.settings``).

    Parameters
    ----------
    scores : Scores
        Per-fold scores (item = fold), optionally with a ``seed`` column (seed = run).
    rope : float, default 0.0
        Half-width of the region of practical equivalence, in score units.
    runs : int, optional
        Repetitions of the cross-validation when there is no seed column (default 1).
    level : float, default 0.95
        Posterior probability a verdict needs.
    higher_is_better : bool, default True
        Direction of the scores.
    datasets, metrics, systems : sequence of str, optional
        The subsets compared (default: all).
    settings : BayesSettings, optional
        All of the above in one object (``test="correlated-t"``).

    Returns
    -------
    BayesAnalysis
        One :class:`BayesGroup` per dataset × metric with a :class:`BayesResult` per pair
        (``p_left``, ``p_rope``, ``p_right``, ``verdict``); ``to_frame()`` gives one row each.

    Raises
    ------
    VerdictError
        Not Scores, another ``test``, an unknown dataset/metric/system, fewer than two systems,
        unmatched folds or seeds, or ``runs`` given with a seed column.

    References
    ----------
    Corani & Benavoli (2015), "A Bayesian approach for comparing cross-validated algorithms on
    multiple data sets", Machine Learning 100:285–304. Nadeau & Bengio (2003), "Inference for
    the generalization error", Machine Learning 52:239–281. Benavoli, Corani, Demšar & Zaffalon
    (2017), "Time for a change: a tutorial for comparing multiple classifiers through Bayesian
    analysis", JMLR 18.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval.verdicts.bayes import correlated_ttests
    >>> folds = rg.Scores(pd.DataFrame({
    ...     "dataset": "d", "metric": "acc", "system": ["A"] * 10 + ["B"] * 10,
    ...     "item": list(range(10)) * 2,
    ...     "value": [0.81, 0.83, 0.80, 0.84, 0.82, 0.85, 0.79, 0.83, 0.81, 0.80,
    ...               0.78, 0.80, 0.79, 0.80, 0.77, 0.83, 0.78, 0.80, 0.79, 0.78]}))
    >>> row = correlated_ttests(folds, rope=0.01).to_frame().iloc[0]
    >>> [round(float(row[p]), 4) for p in ("p_left", "p_rope", "p_right")]
    [0.9888, 0.0111, 0.0001]
    >>> row["verdict"]
    'A is better than B by more than the ROPE (P(A better) = 0.99, ROPE ±0.01)'
    """
    s = resolve_settings(BayesSettings, {
        "rope": rope, "runs": runs, "level": level, "higher_is_better": higher_is_better,
        "datasets": datasets, "metrics": metrics, "systems": systems}, settings,
        where="correlated_ttests")
    if s.test != "correlated-t":
        raise VerdictError(f"correlated_ttests: test={s.test!r} compares one score per dataset; "
                           "use dataset_tests")
    if not isinstance(scores, Scores):
        raise VerdictError(f"correlated_ttests: scores must be ranger_eval.Scores, got "
                           f"{type(scores).__name__}")
    refuse_prompts(scores, where="correlated_ttests", error=VerdictError,
                   why="the correlated t test reads one value per fold (its mean over the "
                       "prompts) and the folds share the prompts")
    frame = scores.table
    for col, chosen, noun in (("dataset", s.datasets, "dataset"), ("metric", s.metrics, "metric"),
                              ("system", s.systems, "system")):
        if chosen is not None:
            present = list(dict.fromkeys(frame[col].astype(str)))
            unknown = [c for c in chosen if c not in present]
            if unknown:
                raise VerdictError(f"{noun} {unknown[0]!r} is not in the scores (they hold "
                                   f"{', '.join(present[:8])}{' …' if len(present) > 8 else ''})")
    if scores.has_seeds and s.runs is not None:
        raise VerdictError(f"runs={s.runs}: the scores have a seed column, whose seeds are the "
                           "runs (repetitions of the cross-validation); leave runs out")
    order = list(s.systems) if s.systems is not None else \
        list(dict.fromkeys(frame["system"].astype(str)))
    groups = []
    index = ["seed", "item"] if scores.has_seeds else ["item"]
    for (dataset, metric), sub in frame.groupby(["dataset", "metric"], sort=False,
                                                observed=True):
        dataset, metric = str(dataset), str(metric)
        if (s.datasets is not None and dataset not in s.datasets) or \
                (s.metrics is not None and metric not in s.metrics):
            continue
        runs_of = {str(name): part.set_index(index)["value"]
                   for name, part in sub.groupby("system", sort=False, observed=True)}
        here = [n for n in order if n in runs_of]
        where = f"dataset {dataset!r}, metric {metric!r}"
        if len(here) < 2:
            raise VerdictError(f"{where}: {len(here)} system ({', '.join(here)}); the "
                               "correlated t-test compares two systems on the same folds")
        results = []
        for i, a in enumerate(here):
            for b in here[i + 1:]:
                results.append(_pair_ttest(runs_of[a], runs_of[b], f"{where}, systems {a!r} "
                                           f"and {b!r}", a, b, s))
        groups.append(BayesGroup(dataset, metric, tuple(results)))
    if not groups:
        raise VerdictError("no dataset × metric to compare")
    return BayesAnalysis(tuple(groups), s.rope, s.runs, s.level, s.higher_is_better,
                         from_seeds=scores.has_seeds, settings=s)


def _pair_ttest(xa: Any, xb: Any, where: str, a: str, b: str,
                s: BayesSettings) -> BayesResult:
    """One pair's correlated t-test: ``xa``, ``xb`` are the two systems' values indexed by item
    (fold) or by (seed, item); folds matched by id and runs by seed, every run with every fold
    (a hole is an error naming the system, fold and seed, never dropped)."""
    seeded = xa.index.nlevels == 2
    if seeded:
        sa = sorted(set(xa.index.get_level_values(0)), key=str)
        sb = sorted(set(xb.index.get_level_values(0)), key=str)
        if sa != sb:
            only = sorted(set(sa) ^ set(sb))
            raise VerdictError(f"{where}: the runs (seeds) differ ({a}: {', '.join(sa)}; {b}: "
                               f"{', '.join(sb)}; not in both: {', '.join(only[:5])}); the "
                               "folds of each run are paired, so both need the same seeds")
        folds = xa.index.get_level_values(1).unique().union(
            xb.index.get_level_values(1).unique()).sort_values()
        import pandas as pd

        grid = pd.MultiIndex.from_product([sa, folds])
    else:
        sa = [""]
        grid = xa.index.union(xb.index).sort_values()
    values = []
    for name, x in ((a, xa), (b, xb)):
        v = x.reindex(grid).to_numpy(np.float64)
        holes = np.flatnonzero(np.isnan(v))
        if holes.size:
            key = grid[holes[0]]
            run = f" in run (seed) {key[0]!r}" if seeded else ""
            fold = key[1] if seeded else key
            raise VerdictError(f"{where}: system {name!r} has no score for fold {fold!r}{run} "
                               f"({holes.size} missing); every run needs every fold")
        values.append(v)
    n_runs = s.runs if s.runs is not None else len(sa)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = bayesian_correlated_ttest(values[0], values[1], rope=s.rope, runs=n_runs,
                                               higher_is_better=s.higher_is_better,
                                               names=(a, b))
        except VerdictError as exc:
            raise VerdictError(f"{where}: {exc}") from None
    for w in caught:  # the same warning, saying where
        warnings.warn(f"{where}: {w.message}", w.category, stacklevel=3)
    return result


@renamed_keywords(**_RENAMED)
def dataset_tests(table: Any, *, test: str = _DEFAULT.test, rope: float = _DEFAULT.rope,
                  prior: float | None = _DEFAULT.prior, prior_place: str = _DEFAULT.prior_place,
                  n_draws: int = _DEFAULT.n_draws, seed: int = _DEFAULT.seed,
                  level: float = _DEFAULT.level,
                  higher_is_better: bool = _DEFAULT.higher_is_better,
                  datasets: Sequence[str] | None = _DEFAULT.datasets,
                  metrics: Sequence[str] | None = _DEFAULT.metrics,
                  systems: Sequence[str] | None = _DEFAULT.systems,
                  settings: BayesSettings | None = None) -> BayesAnalysis:
    """:func:`bayesian_signed_rank` or :func:`bayesian_sign_test` (``test``, which must be
    given: its default is the settings' ``correlated-t``) of every pair of systems across
    datasets (baycomp's ``two_on_multiple``; ``ranger-eval bayes --test signed-rank|sign``):
    one score per dataset and system.

    ``table``: a DataFrame with one row per dataset and one column per system (the index: the
    dataset names; empty cells are missing results), or :class:`~ranger_eval.Scores` (each
    dataset's mean per system and metric, seeds averaged; one analysis per metric). The
    keywords are the fields of :class:`~ranger_eval.settings.BayesSettings` (or pass
    ``settings=``): ``test``, ``rope``, ``prior`` (default: baycomp's, 0.5 for signed-rank, 1
    for sign), ``prior_place`` (the sign test's), ``n_draws``, ``seed``, ``level``,
    ``higher_is_better``, ``datasets``, ``metrics``, ``systems``. A pair is compared on the
    datasets where both have a result; the datasets left out are named in a warning; fewer
    than two shared datasets is a :class:`VerdictError` naming the pair. The result carries the
    settings object (``.settings``).

    Parameters
    ----------
    table : DataFrame or Scores
        Datasets × systems scores, or Scores (one analysis per metric).
    test : {"signed-rank", "sign"}
        The test; must be given (the settings' default ``"correlated-t"`` is refused).
    rope : float, default 0.0
        Half-width of the region of practical equivalence, in score units.
    prior : float, optional
        Strength of the Dirichlet process prior (default: baycomp's, 0.5 signed-rank, 1 sign).
    prior_place : {"rope", "left", "right"}, default "rope"
        Where the sign test puts its prior pseudo-observation.
    n_draws : int, default 50000
        Posterior draws (Monte Carlo).
    seed : int, default 0
        Seed of the draws.
    level : float, default 0.95
        Posterior probability a verdict needs.
    higher_is_better : bool, default True
        Direction of the scores.
    datasets, metrics, systems : sequence of str, optional
        The subsets compared (default: all).
    settings : BayesSettings, optional
        All of the above in one object.

    Returns
    -------
    BayesAnalysis
        One :class:`BayesGroup` per metric with a :class:`BayesResult` per pair of systems;
        ``to_frame()`` gives one row each, with the Monte Carlo error ``mc_se``.

    Raises
    ------
    VerdictError
        ``test="correlated-t"``, a table of another type, an unknown dataset/metric/system, or a
        pair with fewer than two shared datasets.

    References
    ----------
    Benavoli, Corani, Mangili, Zaffalon & Ruggeri (2014), "A Bayesian Wilcoxon signed-rank test
    based on the Dirichlet process", ICML 2014. Benavoli, Corani, Demšar & Zaffalon (2017),
    "Time for a change: a tutorial for comparing multiple classifiers through Bayesian
    analysis", JMLR 18.

    Examples
    --------
    >>> import pandas as pd
    >>> from ranger_eval.verdicts.bayes import dataset_tests
    >>> wide = pd.DataFrame({"A": [0.81, 0.72, 0.90, 0.65, 0.77, 0.88],
    ...                      "B": [0.78, 0.70, 0.86, 0.66, 0.74, 0.85]},
    ...                     index=[f"d{i}" for i in range(6)])
    >>> row = dataset_tests(wide, test="signed-rank", rope=0.01, n_draws=2000,
    ...                     seed=0).to_frame().iloc[0]
    >>> [float(row[p]) for p in ("p_left", "p_rope", "p_right")]
    [0.994, 0.0025, 0.0035]
    >>> row["verdict"]
    'A is better than B by more than the ROPE (P(A better) = 0.99, ROPE ±0.01)'
    """
    import pandas as pd


    s = resolve_settings(BayesSettings, {
        "test": test, "rope": rope, "prior": prior, "prior_place": prior_place,
        "n_draws": n_draws, "seed": seed, "level": level, "higher_is_better": higher_is_better,
        "datasets": datasets, "metrics": metrics, "systems": systems}, settings,
        where="dataset_tests")
    if s.test == "correlated-t":
        raise VerdictError("dataset_tests: test='correlated-t' compares the folds of one "
                           "dataset; use correlated_ttests, or test='signed-rank' or 'sign'")
    if isinstance(table, Scores):
        means = table.table.groupby(["metric", "dataset", "system"], sort=False,
                                    observed=True)["value"].mean()
        tables = {str(m): means.loc[m].unstack("system") for m in
                  dict.fromkeys(means.index.get_level_values(0))}
    elif isinstance(table, pd.DataFrame):
        tables = {"score": table}
    else:
        raise VerdictError(f"dataset_tests: table must be a DataFrame (datasets × systems) or "
                           f"Scores, got {type(table).__name__}")
    prior = _BAYCOMP_PRIOR[s.test] if s.prior is None else s.prior
    groups = []
    for metric, wide in tables.items():
        if s.metrics is not None and metric not in s.metrics:
            continue
        wide = wide.copy()
        wide.index = wide.index.astype(str)
        wide.columns = wide.columns.astype(str)
        for noun, chosen, present in (("dataset", s.datasets, list(wide.index)),
                                      ("system", s.systems, list(wide.columns))):
            if chosen is not None:
                unknown = [c for c in chosen if c not in present]
                if unknown:
                    raise VerdictError(f"{noun} {unknown[0]!r} is not in the table (it holds "
                                       f"{', '.join(present[:8])}"
                                       f"{' …' if len(present) > 8 else ''})")
        if s.datasets is not None:
            wide = wide.loc[list(s.datasets)]
        names = list(s.systems) if s.systems is not None else list(wide.columns)
        if len(names) < 2:
            raise VerdictError(f"metric {metric!r}: {len(names)} system; a comparison needs two")
        results = []
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                x = pd.to_numeric(wide[a], errors="coerce").to_numpy(np.float64)
                y = pd.to_numeric(wide[b], errors="coerce").to_numpy(np.float64)
                both = np.isfinite(x) & np.isfinite(y)
                where = f"metric {metric!r}, systems {a!r} and {b!r}"
                if both.sum() < 2:
                    raise VerdictError(f"{where}: {int(both.sum())} dataset(s) with results of "
                                       "both; at least 2 are needed")
                if not both.all():
                    left = [str(d) for d in wide.index[~both]]
                    warnings.warn(f"{where}: compared on the {int(both.sum())} datasets with "
                                  f"results of both; left out {len(left)}: "
                                  f"{', '.join(left[:5])}{' …' if len(left) > 5 else ''}",
                                  UserWarning, stacklevel=2)
                try:
                    if s.test == "signed-rank":
                        results.append(bayesian_signed_rank(
                            x[both], y[both], rope=s.rope, prior=prior, n_draws=s.n_draws,
                            seed=s.seed, higher_is_better=s.higher_is_better, names=(a, b)))
                    else:
                        results.append(bayesian_sign_test(
                            x[both], y[both], rope=s.rope, prior=prior,
                            prior_place=s.prior_place, n_draws=s.n_draws, seed=s.seed,
                            higher_is_better=s.higher_is_better, names=(a, b)))
                except VerdictError as exc:
                    raise VerdictError(f"{where}: {exc}") from None
        groups.append(BayesGroup(f"{len(wide)} datasets", metric, tuple(results)))
    if not groups:
        raise VerdictError("no metric to compare")
    return BayesAnalysis(tuple(groups), s.rope, None, s.level, s.higher_is_better,
                         test=s.test, prior=prior, n_draws=s.n_draws, seed=s.seed,
                         prior_place=s.prior_place, settings=s)
