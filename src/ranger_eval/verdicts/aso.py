"""Almost Stochastic Order (ASO) of score distributions: :func:`aso` and :func:`multi_aso`.

Question answered: is system A *stochastically* better than system B across random seeds (or any
other source of run-to-run variation), allowing a small violation? Dror, Shlomov & Reichart (ACL
2019, "Deep Dominance") apply the test of del Barrio, Cuesta-Albertos & Matrán (2018) and
deepsig (Ulmer, Hardmeier & Frellsen 2022) implements it. This module follows deepsig's
``deepsig/aso.py`` (version 1.2.x) step by step; every choice below is deepsig's.

**Quantile functions on a grid.** For scores x₁…x_n with order statistics x₍₁₎ ≤ … ≤ x₍ₙ₎ the
empirical quantile function is F⁻¹(t) = x₍ₖ₎ with k = clip(⌈n t⌉, 1, n). It is evaluated on the
grid t = dt, 2dt, …, < 1 with dt = 0.005 (``numpy.arange(dt, 1, dt)``: 199 points), and integrals
are Riemann sums Σ h(t)·dt over the grid.

**Violation ratio** (del Barrio et al. 2018, eqs. 4–5; Dror et al. 2019, eq. 3): with
d(t) = G⁻¹(t) − F⁻¹(t) (F for A, G for B),
W₂² = Σ_t d(t)²·dt (the squared Wasserstein-2 distance) and
ε_W2(F, G) = Σ_{t > dt, F⁻¹(t) < G⁻¹(t)} d(t)²·dt / W₂²,
the share of the distance where B is above A (the stochastic order "A ≥ B" is violated).
As deepsig, the first grid point t = dt is left out of the numerator (not of W₂²); when
W₂² = 0 (the two quantile functions agree on the grid) the ratio is 0.5.

**Bootstrap of the ratio.** Each of the B rounds resamples n scores of A and m of B with
replacement (deepsig draws u ~ U(0, 1) and takes F⁻¹(u), which is a uniform draw of one of the n
scores) and recomputes the ratio ε*_b. With c = √(n m / (n + m)),
σ̂ = sd_b( c·(ε*_b − ε) ) (population sd, ddof = 0, as ``numpy.std``).

**The bound** (Dror et al. 2019, eq. 7; del Barrio et al. 2018, Theorem 2.4): at confidence
level 1 − α, ε_min = clip( ε − σ̂ · Φ⁻¹(α) / c, 0, 1 ). A almost stochastically dominates B
when ε_min < τ; Dror et al. suggest τ = 0.2 (and deepsig's documentation says ε_min < 0.5 rejects
the null that A is not better). :func:`multi_aso` uses the Bonferroni-corrected confidence level
1 − α/K with K = k(k − 1)/2 comparisons, and the symmetry ε_W2(G, F) = 1 − ε_W2(F, G) with the
same σ̂ for the reverse direction, as deepsig's ``multi_aso``.

**What differs from deepsig** (the numbers do not): the B resamples are drawn as one B × n
matrix of indices from ``numpy.random.default_rng(seed)`` and all rounds are sorted and
integrated at once (a B × 199 computation, no Python loop), where deepsig seeds NumPy's legacy
generator with seed + b for round b. Given deepsig's own draws the results are equal to
rounding (``tests/verdicts/test_aso.py``); with ours they differ by Monte-Carlo error only.

**Agreement to expect between two runs with different draws** (ours and deepsig's, or deepsig
with two seeds). ε_min − ε = z σ̂ / c and σ̂ is a bootstrap sd, whose relative Monte-Carlo sd
is ≈ √((κ − 1)/(4B)) for B rounds and κ the kurtosis of the bootstrap ratios; so two runs of B
rounds differ by sd ≈ (z σ̂ / c) √((κ − 1)/(2B)). κ is large exactly when A nearly dominates
(most resamples violate nothing, a few do), so the error hardly shrinks with more scores: at
B = 1000 ε_min's own Monte-Carlo sd reached 0.021 on pairs of 5–30 scores and 0.018 on pairs of
50–200, and was 0 where ε_min is clipped to 0 or 1. Measured (``tests/oracles/
aso_oracle_large.py``, deepsig 1.2.8, 1000 rounds each): deepsig against itself with two seeds
differed by up to 0.028 on 5–30 scores and 0.010 on 50–200 (18 pairs; replaying its draws for
two seeds on all 52 pairs of 50–200 scores: up to 0.022, 5 pairs above 0.01); :func:`aso` at its
defaults against deepsig was within 0.01 on 47 of 52 pairs of 50–200 scores, at most 0.016,
with no systematic difference (mean signed gap 0.0004). To agree with another run to 0.01, raise
``n_resamples`` on both sides (10,000 rounds: ~0.04 s for 30 scores, ~1.5 s for 1,000).

**Minimum sample size: 5 scores per distribution** (``MIN_SCORES``). The bound rests on the
bootstrap distribution of ε, and n scores have only C(2n − 1, n) distinct resamples: 1, 3, 10
and 35 for n = 1…4, 126 for n = 5. With one score the resampled distribution never changes, so
its side contributes no variance and the "bound" is a statement about the other system alone:
deepsig's issue #16, where one score against five passes as dominance. Five runs is also the
smallest number of seeds Dror et al. (2019) and Ulmer et al. (2022) use in their examples. Fewer
scores raise :class:`~ranger_eval.errors.VerdictError`, as do NaN or infinite scores (never
dropped silently) and an empty distribution.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import norm

from ..errors import VerdictError, renamed_keywords
from ..io.runs import runs_from_scores
from ..scores import Scores
from ..settings import ASOSettings, resolve_settings, signature_fields
from ..signature import Signature, make_signature

__all__ = ["ASOAnalysis", "ASOGroup", "ASOResult", "MIN_SCORES", "aso", "aso_groups", "bound_level", "format_epsilon",
           "multi_aso", "pair_verdict", "threshold_text", "violation_ratio"]

#: Fewest scores per distribution (module docstring: why five).
MIN_SCORES = 5
#: Step of the quantile grid (deepsig's default ``dt``).
DT = 0.005
_BLOCK = 250  # bootstrap rounds sorted at once (memory: block × n floats)
#: The defaults of every keyword that is a setting (:class:`~ranger_eval.settings.ASOSettings`).
_DEFAULT = ASOSettings()
#: Keywords renamed for the one vocabulary (docs/architecture.md, Glossary).
_RENAMED = {"confidence_level": "level", "n_bootstrap": "n_resamples",
            "use_bonferroni": "correction"}


@dataclass(frozen=True)
class ASOResult:
    """The Almost Stochastic Order test of A (the treatment, tested as the better one) over B
    (the control) (module docstring for every formula).

    ``epsilon_min`` is the upper confidence bound of the violation ratio: small values (below
    ``threshold``, e.g. 0.2) mean that A almost stochastically dominates B. ``level`` is the
    bound's confidence level, ``n_resamples`` the bootstrap rounds (``n_degenerate`` of them
    had W₂² = 0), ``settings`` the :class:`~ranger_eval.settings.ASOSettings` of the call.
    ``to_dict`` uses the glossary's words (``level``, ``n_resamples``,
    ``n_resamples_degenerate``; earlier releases wrote ``confidence_level``,
    ``n_bootstrap``, ``n_bootstrap_degenerate``).
    """

    epsilon_min: float
    violation_ratio: float
    sigma_hat: float
    level: float
    n_a: int
    n_b: int
    n_resamples: int
    seed: int | None
    name_a: str = "A"
    name_b: str = "B"
    n_degenerate: int = 0
    settings: ASOSettings | None = field(default=None, compare=False, repr=False)

    def dominates(self, threshold: float = 0.2) -> bool:
        """True when ε_min < ``threshold``: A almost stochastically dominates B."""
        _check_threshold(threshold)
        return bool(self.epsilon_min < threshold)

    def verdict(self, threshold: float = 0.2) -> str:
        """The result in words, e.g. "A almost stochastically dominates B (ε_min = 0.12 < 0.2)"."""
        _check_threshold(threshold)
        eps = f"{self.epsilon_min:.2f}"
        if self.dominates(threshold):
            return (f"{self.name_a} almost stochastically dominates {self.name_b} "
                    f"(ε_min = {eps} < {threshold:g})")
        return (f"{self.name_a} does not almost stochastically dominate {self.name_b} "
                f"(ε_min = {eps} ≥ {threshold:g})")

    @property
    def signature(self) -> Signature:
        return make_signature("aso", {"level": self.level,
                                      "n_resamples": self.n_resamples, "seed": self.seed,
                                      "n_scores": (self.n_a, self.n_b)})

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly: every field and the signature."""
        return {"name_a": self.name_a, "name_b": self.name_b, "epsilon_min": self.epsilon_min,
                "violation_ratio": self.violation_ratio, "sigma_hat": self.sigma_hat,
                "level": self.level, "n_a": self.n_a, "n_b": self.n_b,
                "n_resamples": self.n_resamples, "seed": self.seed,
                "n_resamples_degenerate": self.n_degenerate,
                "signature": str(self.signature)}


def _check_threshold(threshold: float) -> None:
    if not (isinstance(threshold, (int, float)) and 0.0 < float(threshold) <= 1.0):
        raise VerdictError(f"ASO threshold={threshold!r}: it must be a number in (0, 1] "
                           "(Dror et al. suggest 0.2)")


def _grid_index(n: int, dt: float = DT) -> np.ndarray:
    """0-based order-statistic index of F⁻¹ on the grid: clip(⌈n t⌉ − 1, 0, n − 1)."""
    t = np.arange(dt, 1, dt)
    return np.clip(np.ceil(n * t).astype(np.int64) - 1, 0, n - 1)


def _ratios(f: np.ndarray, g: np.ndarray, dt: float = DT) -> tuple[np.ndarray, np.ndarray]:
    """Violation ratios of rows of quantile values f (A) and g (B) on the grid, and a mask of the
    rows with W₂² = 0 (ratio 0.5 there)."""
    diff = g - f
    w2 = np.sum(diff ** 2 * dt, axis=-1)
    viol = np.where(f >= g, 0.0, diff)
    num = np.sum(viol[..., 1:] ** 2 * dt, axis=-1)
    zero = w2 == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(zero, 0.5, num / np.where(zero, 1.0, w2))
    # num sums a subset of w2's non-negative terms, so ratio ≤ 1; summing the two in different
    # orders can put it one ulp above (1.0000000000000002, found by the property test)
    return np.minimum(ratio, 1.0), zero


@renamed_keywords(a="treatment", b="control")
def violation_ratio(treatment: object, control: object) -> float:
    """ε_W2 of the treatment (A) over the control (B): the share of the squared Wasserstein-2
    distance between the quantile functions where B is above A (module docstring; 0.5 for equal
    quantile functions).

    Parameters
    ----------
    treatment, control : array_like
        One score per run of A and of B (1-D; the lengths may differ).

    Returns
    -------
    float
        The violation ratio in [0, 1]: 0 when A's quantile function is never below B's.

    Raises
    ------
    VerdictError
        Scores that are not numbers, not 1-D, empty or non-finite.

    References
    ----------
    del Barrio, Cuesta-Albertos & Matrán (2018), "An optimal transportation approach for
    assessing almost stochastic order", in *The Mathematics of the Uncertain*, Springer.

    Examples
    --------
    >>> from ranger_eval.verdicts.aso import violation_ratio
    >>> violation_ratio([0.81, 0.83, 0.80, 0.84, 0.79], [0.78, 0.81, 0.77, 0.80, 0.76])
    0.0
    >>> violation_ratio([1, 2, 3, 4, 5], [1, 2, 3, 4, 5])
    0.5
    """
    xa, xb = _scores(treatment, "treatment"), _scores(control, "control")
    sa, sb = np.sort(xa), np.sort(xb)
    ratio, _ = _ratios(sa[_grid_index(len(sa))], sb[_grid_index(len(sb))])
    return float(ratio)


def _scores(x: object, name: str) -> np.ndarray:
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise VerdictError(f"ASO scores of {name}: not numbers ({exc})") from None
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise VerdictError(f"ASO scores of {name}: expected one score per run (a 1-D array), "
                           f"got shape {arr.shape}")
    if arr.size == 0:
        raise VerdictError(f"ASO scores of {name}: the distribution is empty; give at least "
                           f"{MIN_SCORES} scores (one per run)")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise VerdictError(f"ASO scores of {name}: {bad.size} of {arr.size} scores are not "
                           f"finite (first at position {int(bad[0])}: {arr[bad[0]]!r}); "
                           "remove the failed runs explicitly")
    if arr.size < MIN_SCORES:
        raise VerdictError(
            f"ASO scores of {name}: {arr.size} score{'s' if arr.size != 1 else ''}; at least "
            f"{MIN_SCORES} scores (runs) per distribution are needed: with n scores the bootstrap "
            f"of the violation ratio has only C(2n-1, n) distinct resamples "
            f"({math.comb(2 * arr.size - 1, arr.size)} here), too few for its σ̂ "
            "(deepsig issue #16: one score against five is not evidence)")
    return arr


def _boot_ratios(sa: np.ndarray, sb: np.ndarray, idx_a: np.ndarray,
                 idx_b: np.ndarray) -> tuple[np.ndarray, int]:
    """Bootstrap ratios for index matrices (B × n into sorted A, B × m into sorted B)."""
    ga, gb = _grid_index(len(sa)), _grid_index(len(sb))
    out = np.empty(idx_a.shape[0])
    degenerate = 0
    for start in range(0, idx_a.shape[0], _BLOCK):
        stop = start + _BLOCK
        # indices into the sorted scores, sorted, give the sorted resample
        fa = sa[np.sort(idx_a[start:stop], axis=1)[:, ga]]
        fb = sb[np.sort(idx_b[start:stop], axis=1)[:, gb]]
        ratio, zero = _ratios(fa, fb)
        out[start:stop] = ratio
        degenerate += int(zero.sum())
    return out, degenerate


def _eps(ratio: float, sigma: float, const: float, level: float) -> float:
    return float(np.clip(ratio - (1 / const) * sigma * norm.ppf(1 - level), 0, 1))


def _aso_core(xa: np.ndarray, xb: np.ndarray, level: float, idx_a: np.ndarray,
              idx_b: np.ndarray) -> tuple[float, float, float, int]:
    """(ε, σ̂, ε_min, degenerate rounds) for the scores and bootstrap indices into their sorted
    order; the hook through which tests feed deepsig's own draws."""
    sa, sb = np.sort(xa), np.sort(xb)
    ratio, zero = _ratios(sa[_grid_index(len(sa))], sb[_grid_index(len(sb))])
    if bool(zero):
        warnings.warn("ASO: the two score distributions have the same quantile function; the "
                      "violation ratio is 0.5 (neither dominates)", RuntimeWarning, stacklevel=3)
    boot, degenerate = _boot_ratios(sa, sb, idx_a, idx_b)
    n, m = len(xa), len(xb)
    const = math.sqrt(n * m / (n + m))
    sigma = float(np.std(const * (boot - float(ratio))))
    return float(ratio), sigma, _eps(float(ratio), sigma, const, level), degenerate


def _draw(n: int, m: int, n_resamples: int, seed: int | None) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.integers(0, n, size=(n_resamples, n)), rng.integers(0, m, size=(n_resamples, m)))


def deepsig_draws(n: int, m: int, n_resamples: int,
                  seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The resamples ``deepsig.aso(..., seed=seed, num_jobs=1)`` draws, as indices into the
    sorted scores (for checking against deepsig; :func:`aso` draws its own): round b = 1…B seeds
    NumPy's legacy generator with seed + b, draws u ~ U(0, 1) for A then for B, and takes
    F⁻¹(u), the order statistic clip(⌈n u⌉ − 1, 0, n − 1)."""
    ia = np.empty((n_resamples, n), np.int64)
    ib = np.empty((n_resamples, m), np.int64)
    state = np.random.RandomState()
    for b in range(n_resamples):
        state.seed(seed + b + 1)
        ua, ub = state.uniform(0, 1, n), state.uniform(0, 1, m)
        ia[b] = np.clip(np.ceil(n * ua).astype(np.int64) - 1, 0, n - 1)
        ib[b] = np.clip(np.ceil(m * ub).astype(np.int64) - 1, 0, m - 1)
    return ia, ib


@renamed_keywords(**_RENAMED, a="treatment", b="control")
def aso(treatment: object, control: object, *, level: float = _DEFAULT.level,
        n_resamples: int = _DEFAULT.n_resamples, seed: int | None = _DEFAULT.seed,
        names: tuple[str, str] = ("A", "B"), settings: ASOSettings | None = None) -> ASOResult:
    """Almost Stochastic Order of ``treatment`` over ``control`` (Dror et al. 2019; deepsig's
    ``aso(scores_a, scores_b)``).

    Parameters
    ----------
    treatment, control
        Score distributions (one score per run, e.g. per seed; higher is better; lengths may
        differ; at least :data:`MIN_SCORES` each). ``treatment`` is the one tested as the
        better: ε_min(treatment, control) small means it almost stochastically dominates
        ``control`` (positional use ``aso(a, b)`` asks whether A dominates B, as deepsig).
    level
        Confidence level of the one-sided bound, in [0.5, 1) (deepsig's ``confidence_level``).
    n_resamples
        Bootstrap rounds of the violation ratio, drawn from ``numpy.random.default_rng(seed)``
        (``seed=None``: fresh entropy).
    names
        The two systems' names in the verdict (treatment's first).
    settings
        An :class:`~ranger_eval.settings.ASOSettings` instead of the keywords (its ``level``,
        ``n_resamples`` and ``seed``; a keyword differing from its default next to it is an
        error).

    Returns
    -------
    ASOResult
        ε_min = clip(ε − σ̂ Φ⁻¹(1 − level) / √(nm/(n+m)), 0, 1), the (1 − ``level``) upper bound
        of the violation ratio ε_W2(treatment, control) (module docstring); the treatment
        almost stochastically dominates when ε_min < τ (τ = 0.2 in :meth:`ASOResult.verdict`).
        ``.settings`` is the settings object of the call.

    References
    ----------
    Dror, Shlomov & Reichart (2019), "Deep Dominance", ACL; del Barrio, Cuesta-Albertos &
    Matrán (2018); Ulmer, Hardmeier & Frellsen (2022), deepsig.

    Raises
    ------
    VerdictError
        Fewer than :data:`MIN_SCORES` scores, NaN or infinite scores, a level outside
        [0.5, 1), or two equal names.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> a = [0.82, 0.80, 0.85, 0.79, 0.83, 0.81, 0.84, 0.80]
    >>> b = [0.78, 0.77, 0.80, 0.76, 0.79, 0.78, 0.81, 0.75]
    >>> r = rg.aso(a, b, n_resamples=200)
    >>> round(r.epsilon_min, 4)
    0.0032
    >>> r.verdict()
    'A almost stochastically dominates B (ε_min = 0.00 < 0.2)'
    """
    s = resolve_settings(ASOSettings, {"level": level, "n_resamples": n_resamples, "seed": seed},
                         settings, where="aso")
    xa, xb = _scores(treatment, "treatment"), _scores(control, "control")
    idx_a, idx_b = _draw(len(xa), len(xb), s.n_resamples, s.seed)
    ratio, sigma, eps, degenerate = _aso_core(xa, xb, s.level, idx_a, idx_b)
    return ASOResult(eps, ratio, sigma, s.level, len(xa), len(xb), s.n_resamples, s.seed,
                     name_a=str(names[0]), name_b=str(names[1]), n_degenerate=degenerate,
                     settings=s)


def _distributions(scores_by_system: object, *, dataset: str | None, metric: str | None,
                   higher_is_better: bool) -> dict[str, np.ndarray]:
    """System → score distribution from a mapping, or from ``Scores`` with a ``seed`` column
    (each seed's mean over the items of the chosen dataset and metric: one score per run)."""
    if isinstance(scores_by_system, Scores):
        sc = scores_by_system
        if not sc.has_seeds:
            raise VerdictError("multi_aso on Scores needs a seed column: ASO compares "
                               "distributions of run scores (one per seed)")
        df = sc.table
        for col, chosen in (("dataset", dataset), ("metric", metric)):
            present = sorted(df[col].astype(str).unique())
            if chosen is None:
                if len(present) != 1:
                    raise VerdictError(f"multi_aso: the scores hold {len(present)} {col}s "
                                       f"({', '.join(present[:5])}); choose one with {col}=")
                continue
            if chosen not in present:
                raise VerdictError(f"multi_aso: {col}={chosen!r} is not in the scores (they "
                                   f"hold {', '.join(present[:5])})")
            df = df[df[col].astype(str) == chosen]
        runs = df.groupby(["system", "seed"], sort=True, observed=True)["value"].mean()
        out = {str(s): runs.loc[s].to_numpy(dtype=np.float64)
               for s in runs.index.get_level_values(0).unique()}
    elif isinstance(scores_by_system, Mapping):
        out = {str(k): v for k, v in scores_by_system.items()}  # checked by _scores below
    elif isinstance(scores_by_system, pd.DataFrame):
        out = {str(c): scores_by_system[c].to_numpy() for c in scores_by_system.columns}
    else:
        raise VerdictError("multi_aso: scores_by_system must be a mapping of system name to "
                           "scores, a DataFrame with one column per system, or Scores with a "
                           f"seed column; got {type(scores_by_system).__name__}")
    if len(out) < 2:
        raise VerdictError(f"multi_aso: {len(out)} system(s) ({', '.join(out)}); at least two "
                           "are needed")
    sign = 1.0 if higher_is_better else -1.0
    return {name: sign * _scores(v, repr(name)) for name, v in out.items()}


@renamed_keywords(**_RENAMED)
def multi_aso(scores_by_system: object, *, level: float = _DEFAULT.level,
              n_resamples: int = _DEFAULT.n_resamples, seed: int | None = _DEFAULT.seed,
              correction: str = _DEFAULT.correction,
              higher_is_better: bool = _DEFAULT.higher_is_better, dataset: str | None = None,
              metric: str | None = None, settings: ASOSettings | None = None) -> pd.DataFrame:
    """ε_min of every ordered pair of systems (deepsig's ``multi_aso``), as a DataFrame.

    Cell [row A, column B] is ε_min of A over B (small: A almost stochastically dominates B);
    the diagonal is 1 as in deepsig. Each of the K = k(k − 1)/2 bounds is at the confidence
    level :func:`bound_level` gives for ``correction``: ``"bonferroni"`` (the default,
    1 − (1 − level)/K), ``"deepsig"`` (deepsig's ``use_bonferroni=True`` rule
    level + (1 − level)/K, kept to reproduce its matrices; it is not Bonferroni's and is less
    conservative for K > 1; for two systems, K = 1, the level is left as it is, as deepsig's
    ``aso(num_comparisons=1)``: deepsig's ``multi_aso`` raises it to 1 there, which makes every
    bound 1, or NaN when σ̂ = 0) or ``"none"`` (deepsig's ``use_bonferroni=False``). Each pair
    uses the bootstrap draws :func:`aso` would use with the same ``seed``, and the reverse
    direction is 1 − ε with the same σ̂ (deepsig's symmetry).

    ``scores_by_system``: a mapping system → scores, a DataFrame with a column per system, or
    :class:`~ranger_eval.Scores` with a ``seed`` column (each run's score is its mean over items
    of one ``dataset`` and ``metric``). ``higher_is_better=False`` negates the scores first.
    ``settings``: an :class:`~ranger_eval.settings.ASOSettings` instead of the keywords (its
    ``level``, ``n_resamples``, ``seed``, ``correction``, ``higher_is_better``). ``attrs``
    holds the signature, the corrected confidence level (``level``), the number of
    scores per system and the settings object of the call (``attrs["settings"]``).

    Parameters
    ----------
    scores_by_system : mapping, pandas.DataFrame or Scores
        The runs' scores of every system (see above).
    level : float, default 0.95
        Family confidence level, in [0.5, 1).
    n_resamples : int, default 1000
        Bootstrap rounds of each violation ratio.
    seed : int or None, default 0
        Seed of the bootstrap (``numpy.random.default_rng``).
    correction : {"bonferroni", "deepsig", "none"}, default "bonferroni"
        The level of each bound (see above).
    higher_is_better : bool, default True
        False negates the scores first.
    dataset, metric : str, optional
        With :class:`~ranger_eval.Scores`: the dataset and metric whose runs are compared.
    settings : ASOSettings, optional
        The keywords above as one object.

    Returns
    -------
    pandas.DataFrame
        ε_min of row over column for every ordered pair; ``attrs`` holds ``signature``,
        ``confidence_level``, ``n_scores`` and ``settings``.

    Raises
    ------
    VerdictError
        Too few or non-finite scores, a bad level or correction.

    References
    ----------
    Dror, Shlomov & Reichart (2019), "Deep Dominance", ACL; Ulmer, Hardmeier & Frellsen (2022),
    deepsig (``multi_aso``).

    Examples
    --------
    >>> import ranger_eval as rg
    >>> a = [0.82, 0.80, 0.85, 0.79, 0.83, 0.81, 0.84, 0.80]
    >>> b = [0.78, 0.77, 0.80, 0.76, 0.79, 0.78, 0.81, 0.75]
    >>> m = rg.multi_aso({"A": a, "B": b, "C": [x - 0.02 for x in b]}, n_resamples=200)
    >>> m.round(3)
    over      A      B      C
    system
    A       1.0  0.004  0.000
    B       1.0  1.000  0.145
    C       1.0  1.000  1.000
    >>> round(m.attrs["level"], 4)
    0.9833
    """
    s = resolve_settings(ASOSettings, {
        "level": level, "n_resamples": n_resamples, "seed": seed, "correction": correction,
        "higher_is_better": higher_is_better}, settings, where="multi_aso")
    dists = _distributions(scores_by_system, dataset=dataset, metric=metric,
                           higher_is_better=s.higher_is_better)
    names = list(dists)
    k = len(names)
    bound = bound_level(s.level, k, s.correction)
    eps = np.eye(k)
    for i in range(k):
        for j in range(i + 1, k):
            xa, xb = dists[names[i]], dists[names[j]]
            idx_a, idx_b = _draw(len(xa), len(xb), s.n_resamples, s.seed)
            ratio, sigma, eps[i, j], _ = _aso_core(xa, xb, bound, idx_a, idx_b)
            const = math.sqrt(len(xa) * len(xb) / (len(xa) + len(xb)))
            eps[j, i] = _eps(1 - ratio, sigma, const, bound)
    frame = pd.DataFrame(eps, index=pd.Index(names, name="system"),
                         columns=pd.Index(names, name="over"))
    frame.attrs["level"] = bound
    frame.attrs["n_scores"] = {n: int(len(d)) for n, d in dists.items()}
    frame.attrs["signature"] = str(make_signature("aso", {
        "level": s.level, "corr": s.correction, "n_resamples": s.n_resamples, "seed": s.seed}))
    frame.attrs["settings"] = s
    return frame


# ------------------------------------------------------------------ verdicts in words, groups
def format_epsilon(eps: float, threshold: float, decimals: int = 2) -> str:
    """ε_min with ``decimals`` decimals, or more when those would put it on the wrong side of
    ``threshold`` (0.1996 is "0.1996", not "0.20", against τ = 0.2).

    Parameters
    ----------
    eps : float
        ε_min.
    threshold : float
        τ, the side of which the text must keep.
    decimals : int, default 2
        Fewest decimals shown.

    Returns
    -------
    str
        ``eps`` rounded to the fewest decimals (at least ``decimals``) that keep its side of τ.

    Examples
    --------
    >>> from ranger_eval.verdicts.aso import format_epsilon
    >>> format_epsilon(0.123, 0.2), format_epsilon(0.1996, 0.2)
    ('0.12', '0.1996')
    """
    below = eps < threshold
    tau = float(threshold_text(threshold))
    for places in range(decimals, max(decimals, 6) + 1):
        text = f"{eps:.{places}f}"
        if (float(text) < threshold) == below and (float(text) < tau) == below:
            return text
    return repr(float(eps))  # the shortest text that reads back as eps itself


def threshold_text(threshold: float) -> str:
    """τ as written in a verdict: ``0.2`` (``:g``), or its full ``repr`` when six digits would
    change it.

    Parameters
    ----------
    threshold : float
        τ.

    Returns
    -------
    str
        The shortest text that reads back as ``threshold``.

    Examples
    --------
    >>> from ranger_eval.verdicts.aso import threshold_text
    >>> threshold_text(0.2), threshold_text(0.1234567)
    ('0.2', '0.1234567')
    """
    text = f"{threshold:g}"
    return text if float(text) == threshold else repr(float(threshold))


def pair_verdict(name_a: str, name_b: str, eps_ab: float, eps_ba: float,
                 threshold: float = 0.2) -> str:
    """The verdict of one pair in words, from ε_min of A over B (``eps_ab``) and of B over A:
    "A almost stochastically dominates B (ε_min = 0.12 < 0.2)", or, when neither is below τ,
    "no almost stochastic order between A and B (ε_min = 0.48 and 0.52)" (A over B first).
    With τ ≤ 0.5 at most one direction passes (ε_min(A, B) + ε_min(B, A) ≥ 1).

    Parameters
    ----------
    name_a, name_b : str
        The two systems' names.
    eps_ab, eps_ba : float
        ε_min of A over B and of B over A.
    threshold : float, default 0.2
        τ, in (0, 0.5].

    Returns
    -------
    str
        The verdict sentence.

    Raises
    ------
    VerdictError
        ``threshold`` outside (0, 1].

    Examples
    --------
    >>> from ranger_eval.verdicts.aso import pair_verdict
    >>> pair_verdict("A", "B", 0.12, 0.95)
    'A almost stochastically dominates B (ε_min = 0.12 < 0.2)'
    >>> pair_verdict("A", "B", 0.48, 0.52)
    'no almost stochastic order between A and B (ε_min = 0.48 and 0.52)'
    """
    _check_threshold(threshold)
    for x, y, e in ((name_a, name_b, eps_ab), (name_b, name_a, eps_ba)):
        if e < threshold:
            return (f"{x} almost stochastically dominates {y} "
                    f"(ε_min = {format_epsilon(e, threshold)} < {threshold_text(threshold)})")
    return (f"no almost stochastic order between {name_a} and {name_b} (ε_min = "
            f"{format_epsilon(eps_ab, threshold)} and {format_epsilon(eps_ba, threshold)})")


@dataclass(frozen=True)
class ASOGroup:
    """The ε_min matrix of one dataset × metric (:func:`multi_aso`): cell [A, B] is ε_min of A
    over B at confidence ``level`` (each bound's, after the correction, :func:`bound_level`);
    ``n_scores``: runs per system."""

    dataset: str
    metric: str
    matrix: pd.DataFrame = field(compare=False)
    n_scores: Mapping[str, int]
    level: float

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(str(s) for s in self.matrix.index)

    def verdicts(self, threshold: float = 0.2) -> list[str]:
        """:func:`pair_verdict` of every pair, in the systems' order."""
        names = self.systems
        eps = self.matrix.to_numpy(dtype=np.float64)
        return [pair_verdict(names[i], names[j], float(eps[i, j]), float(eps[j, i]), threshold)
                for i in range(len(names)) for j in range(i + 1, len(names))]


@dataclass(frozen=True)
class ASOAnalysis:
    """Almost Stochastic Order of every dataset × metric of run scores (:func:`aso_groups`):
    one :class:`ASOGroup` each, the settings, and the groups left out (``skipped``: a text
    naming each and why)."""

    groups: tuple[ASOGroup, ...]
    level: float
    n_resamples: int
    seed: int | None
    threshold: float
    correction: str
    higher_is_better: bool
    skipped: tuple[str, ...] = ()
    #: the :class:`~ranger_eval.settings.ASOSettings` of the call
    settings: ASOSettings | None = field(default=None, compare=False, repr=False)

    @property
    def signature(self) -> Signature:
        """``kind:aso|level:…|n_resamples:…|seed:…|threshold:…|corr:…``."""
        return make_signature("aso", signature_fields(ASOSettings, self, {}))

    def to_frame(self) -> pd.DataFrame:
        """One row per ordered pair of systems of every group: dataset, metric, system, over,
        epsilon_min, dominates (ε_min < threshold), n_system, n_over, level (of the bound)."""
        rows = []
        for g in self.groups:
            names = g.systems
            eps = g.matrix.to_numpy(dtype=np.float64)
            for i, a in enumerate(names):
                for j, b in enumerate(names):
                    if i != j:
                        rows.append((g.dataset, g.metric, a, b, float(eps[i, j]),
                                     bool(eps[i, j] < self.threshold), int(g.n_scores[a]),
                                     int(g.n_scores[b]), g.level))
        return pd.DataFrame(rows, columns=["dataset", "metric", "system", "over", "epsilon_min",
                                           "dominates", "n_system", "n_over", "level"])

    def verdicts(self) -> list[tuple[ASOGroup, list[str]]]:
        """Every group with the verdicts of its pairs at ``threshold``."""
        return [(g, g.verdicts(self.threshold)) for g in self.groups]

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly: settings, every matrix, verdict and skipped group, the signature
        (``n_resamples``; earlier releases wrote ``n_bootstrap``)."""
        return {
            "level": self.level, "n_resamples": self.n_resamples,
            "seed": self.seed, "threshold": self.threshold, "correction": self.correction,
            "higher_is_better": self.higher_is_better, "skipped": list(self.skipped),
            "groups": [{"dataset": g.dataset, "metric": g.metric,
                        "systems": list(g.systems),
                        "epsilon_min": g.matrix.to_numpy(dtype=np.float64).tolist(),
                        "n_scores": {k: int(v) for k, v in g.n_scores.items()},
                        "level": g.level,
                        "verdicts": g.verdicts(self.threshold)} for g in self.groups],
            "signature": str(self.signature),
        }


def bound_level(level: float, k: int, correction: str) -> float:
    """The confidence level of each of the K = k(k − 1)/2 bounds of a matrix of k systems:
    Bonferroni's 1 − (1 − level)/K; deepsig's ``multi_aso`` rule level + (1 − level)/K (what
    ``multi_aso(correction="deepsig")`` does, deepsig 1.2.8's ``use_bonferroni=True``: it is not Bonferroni's and is less
    conservative for K > 1; for K = 1, two systems, ``level`` itself, where deepsig's
    ``multi_aso`` would use 1 and give bounds of 1 or NaN); or ``level`` itself (``none``).

    Parameters
    ----------
    level : float
        The family's confidence level.
    k : int
        The number of systems of the matrix.
    correction : {"bonferroni", "deepsig", "none"}
        The multiplicity rule.

    Returns
    -------
    float
        The confidence level of each bound.

    References
    ----------
    Ulmer, Hardmeier & Frellsen (2022), "deep-significance: Easy and meaningful statistical
    significance testing in the age of neural networks", arXiv:2204.06815 (``multi_aso``).

    Examples
    --------
    >>> from ranger_eval.verdicts.aso import bound_level
    >>> [round(bound_level(0.95, 3, c), 6) for c in ("bonferroni", "deepsig", "none")]
    [0.983333, 0.966667, 0.95]
    """
    pairs = k * (k - 1) / 2
    if correction == "bonferroni":
        return 1 - (1 - level) / pairs
    if correction == "deepsig":
        return level + (1 - level) / pairs if pairs > 1 else level
    return level


@renamed_keywords(**_RENAMED)
def aso_groups(runs: pd.DataFrame | Scores, *, level: float = _DEFAULT.level,
               n_resamples: int = _DEFAULT.n_resamples, seed: int | None = _DEFAULT.seed,
               threshold: float = _DEFAULT.threshold, correction: str = _DEFAULT.correction,
               higher_is_better: bool = _DEFAULT.higher_is_better,
               datasets: Sequence[str] | None = _DEFAULT.datasets,
               metrics: Sequence[str] | None = _DEFAULT.metrics,
               systems: Sequence[str] | None = _DEFAULT.systems,
               settings: ASOSettings | None = None) -> ASOAnalysis:
    """:func:`multi_aso` of every dataset × metric of run scores (``ranger-eval aso``).

    ``runs``: a frame with columns dataset, metric, system, seed, value (one score per run;
    :func:`ranger_eval.io.runs.read_runs`) or :class:`~ranger_eval.Scores` with a ``seed``
    column (each run's mean over its items). The keywords are the fields of
    :class:`~ranger_eval.settings.ASOSettings` (or pass ``settings=``): ``level``,
    ``n_resamples``, ``seed``, ``threshold``, ``correction``, ``higher_is_better`` and the
    ``datasets``, ``metrics``, ``systems`` compared (default: all). A dataset × metric with
    fewer than two of the chosen systems is left out and named in ``skipped`` and a warning; a
    system with fewer than :data:`MIN_SCORES` runs is a
    :class:`~ranger_eval.errors.VerdictError` naming the dataset, metric and system. The result
    carries the settings object (``.settings``).

    Parameters
    ----------
    runs : DataFrame or Scores
        One score per run (dataset, metric, system, seed, value), or Scores with a ``seed``
        column.
    level : float, default 0.95
        Confidence level of each ε_min bound (before the correction).
    n_resamples : int, default 1000
        Bootstrap rounds of the violation ratio.
    seed : int or None, default 0
        Seed of the bootstrap (None: fresh entropy, not reproducible).
    threshold : float, default 0.2
        ε_min below it reads as "almost stochastically dominates".
    correction : {"bonferroni", "deepsig", "none"}, default "bonferroni"
        Multiplicity correction of the bounds within a dataset × metric (:func:`bound_level`).
    higher_is_better : bool, default True
        Direction of the scores.
    datasets, metrics, systems : sequence of str, optional
        The subsets compared, in this order (default: all, in order of appearance).
    settings : ASOSettings, optional
        All of the above in one object (the keywords must then be left at their defaults).

    Returns
    -------
    ASOAnalysis
        ``groups`` (one :class:`ASOGroup` per dataset × metric: the ε_min ``matrix``, its
        ``verdicts()``), the settings used, and ``skipped``.

    Raises
    ------
    VerdictError
        An unknown dataset, metric or system, or a system with fewer than :data:`MIN_SCORES`
        runs.

    References
    ----------
    Dror, Shlomov & Reichart (2019), "Deep Dominance — How to Properly Compare Deep Neural
    Models", ACL 2019. del Barrio, Cuesta-Albertos & Matrán (2018), "An optimal transportation
    approach for assessing almost stochastic order", in *The Mathematics of the Uncertain*,
    Springer. Ulmer, Hardmeier & Frellsen (2022), "deep-significance: Easy and meaningful
    statistical significance testing in the age of neural networks", arXiv:2204.06815.

    Examples
    --------
    >>> import pandas as pd
    >>> from ranger_eval.verdicts.aso import aso_groups
    >>> runs = pd.DataFrame({"dataset": "d", "metric": "acc", "system": ["A"] * 5 + ["B"] * 5,
    ...                      "seed": list(range(5)) * 2,
    ...                      "value": [0.81, 0.83, 0.80, 0.84, 0.79, 0.78, 0.81, 0.77, 0.80, 0.76]})
    >>> result = aso_groups(runs, n_resamples=200, seed=0)
    >>> group = result.groups[0]
    >>> round(float(group.matrix.loc["A", "B"]), 3), round(float(group.matrix.loc["B", "A"]), 3)
    (0.084, 1.0)
    >>> group.verdicts()
    ['A almost stochastically dominates B (ε_min = 0.08 < 0.2)']
    """
    s = resolve_settings(ASOSettings, {
        "level": level, "n_resamples": n_resamples, "seed": seed, "threshold": threshold,
        "correction": correction, "higher_is_better": higher_is_better, "datasets": datasets,
        "metrics": metrics, "systems": systems}, settings, where="aso_groups")
    if isinstance(runs, Scores):
        runs = runs_from_scores(runs)
    frame = runs
    for col, chosen, noun in (("dataset", s.datasets, "dataset"), ("metric", s.metrics, "metric"),
                              ("system", s.systems, "system")):
        if chosen is None:
            continue
        present = list(dict.fromkeys(frame[col].astype(str)))
        unknown = [c for c in chosen if c not in present]
        if unknown:
            raise VerdictError(f"{noun} {unknown[0]!r} is not in the run scores (they hold "
                               f"{', '.join(present[:8])}{' …' if len(present) > 8 else ''})")
        frame = frame[frame[col].astype(str).isin(chosen)]
    order = list(s.systems) if s.systems is not None else \
        list(dict.fromkeys(frame["system"].astype(str)))
    groups, skipped = [], []
    for (dataset, metric), sub in frame.groupby(["dataset", "metric"], sort=False,
                                                observed=True):
        here = [n for n in order if n in set(sub["system"].astype(str))]
        where = f"dataset {dataset!r}, metric {metric!r}"
        if len(here) < 2:
            skipped.append(f"{where}: only {len(here)} system ({', '.join(here)})")
            continue
        dists = {}
        for name in here:
            values = sub.loc[sub["system"].astype(str) == name, "value"].to_numpy(np.float64)
            if values.size < MIN_SCORES:
                raise VerdictError(
                    f"{where}, system {name!r}: {values.size} run score"
                    f"{'s' if values.size != 1 else ''} (seeds); at least {MIN_SCORES} runs per "
                    "system are needed: with n scores the bootstrap of the violation ratio has "
                    f"only C(2n-1, n) distinct resamples ({math.comb(2 * values.size - 1, values.size)}"
                    " here), too few for its σ̂ (deepsig issue #16)")
            dists[name] = values
        matrix = multi_aso(dists, settings=s)
        groups.append(ASOGroup(str(dataset), str(metric), matrix,
                               dict(matrix.attrs["n_scores"]),
                               float(matrix.attrs["level"])))
    if skipped:
        warnings.warn(f"ASO: left out {len(skipped)} dataset × metric group(s) with fewer than "
                      f"two systems: {'; '.join(skipped[:5])}"
                      + (" …" if len(skipped) > 5 else ""), UserWarning, stacklevel=2)
    if not groups:
        raise VerdictError("ASO: no dataset × metric has two systems to compare"
                           + (f" ({'; '.join(skipped[:5])})" if skipped else ""))
    return ASOAnalysis(tuple(groups), s.level, s.n_resamples, s.seed, s.threshold,
                       s.correction, s.higher_is_better, tuple(skipped), settings=s)
