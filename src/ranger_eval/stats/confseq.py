"""Anytime-valid confidence sequences for the mean of bounded observations: array kernels.

A confidence sequence (CS) at level 1 − α is a sequence of intervals [l_t, u_t], one after each
observation t = 1, 2, …, that covers the mean at *every* t simultaneously with probability
≥ 1 − α, so it may be looked at after each observation and the evaluation stopped at any
data-dependent time. All kernels take observations in [0, 1] (callers rescale) and return the
arrays ``lower``, ``upper`` of length n.

``betting`` (Waudby-Smith & Ramdas 2023, JRSS-B 86:1, "Estimating means of bounded random
variables by betting", Theorem 3 and eq. 27; ``confseq.betting.betting_cs`` at its defaults)
    For a candidate mean m, the hedged capital process
    K_t(m) = max(½ K⁺_t(m), ½ K⁻_t(m)),
    K^±_t(m) = Π_{s ≤ t} (1 ± λ^±_s(m) (x_s − μ_s(m))),
    with the predictable plug-in bets (eq. 26, ``lambda_predmix_eb`` at α/2)
    λ_s = √(2 log(2/α) / (σ̂²_{s−1} s log(1 + s))),
    μ̂_s = (½ + Σ_{r ≤ s} x_r)/(s + 1),  σ̂²_s = (¼ + Σ_{r ≤ s} (x_r − μ̂_r)²)/(s + 1),
    truncated at λ⁺_s ≤ ½/μ_s and λ⁻_s ≤ ½/(1 − μ_s). Sampling with replacement μ_s(m) = m;
    without replacement from a population of N (Waudby-Smith & Ramdas 2023, §6)
    μ_s(m) = (N m − S_{s−1})/(N − s + 1) and m is impossible where μ_s ∉ [0, 1].
    The CS is {m : K_t(m) < 1/α}, evaluated as confseq does on the grid m ∈ {0, 1/G, …, 1}
    (G = ``breaks`` = 1000): l_t (u_t) is the smallest (largest) grid point in the set, widened
    by 1/G and clipped to [0, 1]; an empty set gives [0, 1]; without replacement the result is
    intersected with the logical bounds [S_t/N, 1 − (t − S_t)/N]. No running intersection.
    ``exact=True`` finds the two roots K^±_t(m) = 2/α by bisection to 1e-12 instead of the grid
    (not confseq's numbers; never the default).

    Speed: K⁺_t(m) decreases in m and K⁻_t(m) increases in m (each factor does, with the
    truncation), so l_t is the first grid point where K⁺_t ≤ 2/α. The kernel evaluates the
    capital only for the grid points between two *certified* neighbours of the boundary over a
    block of times (doubling blocks; a block whose certificate fails is recomputed with a wider
    window), so the cost is about n·(width of the window), not n·G, with exactly the grid
    answer.

``mixture`` (Waudby-Smith & Ramdas 2023, §5 "diversified Kelly"; ``confseq.betting.
betting_cs`` with ``lambdas_fns_positive = lambdas_fns_negative`` the constant bets)
    As ``betting`` but each side's capital is an equal-weight mixture of K bettors with constant
    bets λ_k (:data:`MIXTURE_BETS`, each truncated as above):
    K^±_t(m) = (1/K) Σ_k Π_{s ≤ t} (1 ± λ^±_{k,s}(m) (x_s − μ_s(m))).
    Each product is a nonnegative martingale under the mean m, so is their average, and
    max(½K⁺, ½K⁻) ≤ ½K⁺ + ½K⁻, a nonnegative martingale starting at 1 under the true mean m*.
    Ville's inequality (Ville 1939, "Étude critique de la notion de collectif": for a
    nonnegative supermartingale M with M_0 = 1, P(∃t: M_t ≥ 1/α) ≤ α; the tool of Waudby-Smith
    & Ramdas 2023 §3–5) gives P(∃t: K_t(m*) ≥ 1/α) ≤ α, so {m : K_t(m) < 1/α} is a (1 − α)
    CS, and the decision read off it has error ≤ α at any stopping time. A mixture grows like the best constant bet in hindsight less log K, so
    it does not pay the 1/√(t log t) decay of the plug-in bets at long horizons: the mean
    number of items to a decision is 0.96–1.26× a fixed-n test's at equal power
    (``benchmarks/monitor_sim.py``). Same grid, window and monotonicity (a sum of decreasing
    functions of m decreases) as ``betting``.

``hoeffding`` (Howard, Ramdas, McAuliffe & Sekhon 2021, Ann. Statist. 49:2, eq. (14): the
two-sided normal mixture; ``confseq.conjmix_bounded.conjmix_hoeffding_twosided_cs``)
    μ̂_t ± B(t/4)/t with B(v) = √((v + ρ)(log(1 + v/ρ) + 2 log(1/α))),
    ρ = v_opt / (2 log(1/α) + log(1 + 2 log(1/α))), v_opt = t_opt/4; clipped to [0, 1].

``empirical_bernstein`` (Howard et al. 2021, Theorem 4 with the gamma-exponential mixture,
eq. (15); ``confseq.conjmix_bounded.conjmix_empbern_twosided_cs``)
    l_t = μ̂_t − b(V_t)/t, V_t = Σ_{s ≤ t} (x_s − μ̂_{s−1})², μ̂_0 = ½, where b(v) solves
    log M(b, v) = log(1/α') for the gamma-exponential mixture with c = 1,
    log M(s, v) = C + log Γ((v + ρ)) + log P((v + ρ), cs + v + ρ) − (v + ρ) log(cs + v + ρ) + cs + v
    (c = 1; P the regularised lower incomplete gamma function;
    C = ρ log ρ − log Γ(ρ) − log P(ρ, ρ); ρ as above with v_opt and α'); u_t from 1 − x.
    As confseq, each side uses α' = α/4 (its two-sided function passes α/2 to a one-sided
    function that halves it again), so the sequence is conservative at level 1 − α/2.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from ._validation import StatsInputError

__all__ = ["BREAKS", "MIXTURE_BETS", "betting_cs", "empirical_bernstein_cs", "hoeffding_cs",
           "mixture_cs", "mixture_cs_tail", "predmix_bets"]

#: confseq's grid: candidate means 0, 1/1000, …, 1.
BREAKS = 1000
_TRUNC = 0.5  # confseq's trunc_scale: λ⁺ ≤ ½/μ, λ⁻ ≤ ½/(1 − μ)
_FIRST_BLOCK = 256  # times handled with the whole grid before windows start
_MAX_BLOCK = 512  # longer blocks widen the window (the boundary moves within a block)
_ANCHOR = 16  # the counted bisection searches every 16th time first, then the others near it
_CHUNK = 4096  # times per chunk of the counted bisection
_FEW_VALUES = 16  # mixture_cs counts the values when there are at most this many distinct ones
_EXACT_MAX = 3000  # exact=True holds n × n matrices
#: The constant bets of :func:`mixture_cs`: λ_k = 2^(−k/2), k = 1, …, 10 (0.707 down to 1/32),
#: equal weights 1/10 (the grid's range covers the Kelly bets Δ/σ² of mean shifts Δ from about
#: 0.005 to 0.2 on [0, 1] observations of variance ≈ 0.075, paired 0/1 differences).
MIXTURE_BETS: tuple[float, ...] = tuple(2.0 ** (-k / 2) for k in range(1, 11))


def predmix_bets(x: np.ndarray, alpha: float) -> np.ndarray:
    """The predictable plug-in bets λ_t of Waudby-Smith & Ramdas (2023, eq. 26), exactly
    ``confseq.betting_strategies.lambda_predmix_eb(x, alpha=alpha)`` (prior mean ½, prior
    variance ¼, one fake observation, no truncation)."""
    n = x.size
    t = np.arange(1, n + 1, dtype=np.float64)
    mu = np.minimum((0.5 + np.cumsum(x)) / (t + 1), 1.0)
    sig = (0.25 + np.cumsum((x - mu) ** 2)) / (t + 1)
    sig_prev = np.empty(n)
    sig_prev[0] = 0.25
    sig_prev[1:] = sig[:-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.sqrt(2 * math.log(1 / alpha) / (t * np.log1p(t) * sig_prev))
    lam[np.isnan(lam)] = 0.0
    return lam


class _Capital:
    """log K⁺ (``sign=+1``) or log K⁻ (``sign=-1``) of the hedged capital for any set of grid
    points over any block of times; the capital before the block is carried as one number per
    grid point."""

    def __init__(self, x: np.ndarray, lam: np.ndarray, grid: np.ndarray, n_population: int | None,
                 sign: int):
        # lam: (n,) one bet per time, or (K, n) for a mixture of K bettors with equal weights
        self.x, self.grid, self.N, self.sign = x, grid, n_population, sign
        self.mix = lam.ndim == 2
        self.lam = lam if self.mix else lam[None, :]
        self.log_w = -math.log(self.lam.shape[0])
        self.s_prev = np.concatenate(([0.0], np.cumsum(x)[:-1]))
        self.t = np.arange(1, x.size + 1, dtype=np.float64)
        self.carry = np.zeros((grid.size, self.lam.shape[0]))
        self.carried_to = np.zeros(grid.size, dtype=np.int64)
        self._last = np.zeros((0, self.lam.shape[0]))

    def factors(self, j: np.ndarray, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """log(1 ± λ^±(x − μ)) for grid points j over times [a, b), and where μ < 0 and μ > 1
        (the candidate is impossible: below, above every possible mean; once impossible, a
        candidate stays so, since 0 ≤ x ≤ 1). For μ ∈ [0, 1] the lower truncations of λ^±
        (−½/(1 − μ), −½/μ) never bind, since λ ≥ 0."""
        m = self.grid[j][:, None, None]
        lam, xs = self.lam[None, :, a:b], self.x[a:b]
        if self.N is None:
            mu: np.ndarray = m
            low = high = np.zeros((j.size, 1, 1), dtype=bool)
        else:
            mu = (self.N * m - self.s_prev[a:b]) / (self.N - self.t[a:b] + 1)
            low, high = mu < 0, mu > 1
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.sign > 0:
                bet = np.minimum(lam, _TRUNC / mu)
                f = np.log1p(bet * (xs - mu))
            else:
                bet = np.minimum(lam, _TRUNC / (1 - mu))
                f = np.log1p(-bet * (xs - mu))
        if self.N is not None:
            f = np.where(low | high, 0.0, f)
        shape = (f.shape[0], f.shape[2])
        return f, np.broadcast_to(low[:, 0], shape), np.broadcast_to(high[:, 0], shape)

    def log_capital(self, j: np.ndarray, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """log K over times [a, b) for grid points j (rows), and the impossible masks."""
        late = j[self.carried_to[j] < a]
        for s0 in np.unique(self.carried_to[late]):
            jj = late[self.carried_to[late] == s0]
            self.carry[jj] += self.factors(jj, int(s0), a)[0].sum(axis=2)
            self.carried_to[jj] = a
        f, low, high = self.factors(j, a, b)
        k = np.cumsum(f, axis=2)
        k += self.carry[j][:, :, None]
        self._last = k[:, :, -1]
        if not self.mix:
            return k[:, 0], low, high
        # log Σ_k w_k K_k (equal weights), the mixture's capital
        top = k.max(axis=1)
        with np.errstate(invalid="ignore"):
            spread = np.exp(k - top[:, None, :]).sum(axis=1)
            out = np.where(np.isneginf(top), -np.inf, top + np.log(spread) + self.log_w)
        return out, low, high

    def keep(self, j: np.ndarray, k: np.ndarray, b: int) -> None:
        self.carry[j] = self._last
        self.carried_to[j] = b


def _boundary(cap: _Capital, thr: float, n: int) -> np.ndarray:
    """Per time, the first (``sign=+1``: the lower end) or last (``-1``: the upper end) grid
    index of the possible candidates whose capital is at most the threshold; −1 where none.

    K⁺ decreases in m, so {K⁺ ≤ thr} among the possible candidates is an interval starting at
    the lower end, and a window [j0, j1] holds it when K⁺(j0) > thr (or j0 impossible from
    below) and the window finds it (or j1 is impossible from above); K⁻ mirrors this. A block
    whose window cannot be certified is recomputed with a window four times wider."""
    g = cap.grid.size
    out = np.empty(n, dtype=np.int64)
    sign = cap.sign
    a, block = 0, _FIRST_BLOCK
    prev: tuple[int, int] | None = None
    while a < n:
        b = min(n, a + block)
        pad = 2 if prev is None else max(2, (prev[1] - prev[0]) // 4 + 2)
        while True:
            j0, j1 = (0, g - 1) if prev is None else (max(0, prev[0] - pad), min(g - 1, prev[1] + pad))
            j = np.arange(j0, j1 + 1)
            k, low, high = cap.log_capital(j, a, b)
            ok_rows = (k <= thr) & ~low & ~high
            found = ok_rows.any(axis=0)
            if sign > 0:
                pos = np.argmax(ok_rows, axis=0)
                near_out = ((k[0] > thr) & ~high[0]) | low[0]
                far_done = found | high[-1]
                certified = (j0 == 0 or bool(near_out.all())) and (j1 == g - 1 or bool(far_done.all()))
            else:
                pos = ok_rows.shape[0] - 1 - np.argmax(ok_rows[::-1], axis=0)
                near_out = ((k[-1] > thr) & ~low[-1]) | high[-1]
                far_done = found | low[0]
                certified = (j1 == g - 1 or bool(near_out.all())) and (j0 == 0 or bool(far_done.all()))
            if certified or (j0 == 0 and j1 == g - 1):
                break
            pad *= 4
        idx = np.where(found, j0 + pos, -1)
        out[a:b] = idx
        cap.keep(j, k, b)
        hit = idx[idx >= 0]
        if hit.size:
            prev = (int(hit.min()), int(hit.max()))
        a, block = b, min(block * 2, _MAX_BLOCK)
    return out


def _grid_cs(x: np.ndarray, alpha: float, n_population: int | None,
             breaks: int, bets: tuple[float, ...] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The grid CS of :func:`betting_cs` (``bets=None``: the predictable plug-in bets) or of
    :func:`mixture_cs` (a mixture of the constant ``bets``), each end found in a window of
    certified grid points (module docstring)."""
    n = x.size
    grid = np.arange(0, 1 + 1 / breaks, step=1 / breaks)
    lam = (predmix_bets(x, alpha / 2) if bets is None
           else np.repeat(np.asarray(bets, dtype=np.float64)[:, None], n, axis=1))
    thr = math.log(2 / alpha)  # max(½K⁺, ½K⁻) ≤ 1/α  ⟺  K± ≤ 2/α
    lo_idx = _boundary(_Capital(x, lam, grid, n_population, +1), thr, n)
    hi_idx = _boundary(_Capital(x, lam, grid, n_population, -1), thr, n)
    empty = (lo_idx < 0) | (hi_idx < 0) | (lo_idx > hi_idx)
    lower = np.where(empty, 0.0, grid[np.maximum(lo_idx, 0)])
    upper = np.where(empty, 1.0, grid[np.maximum(hi_idx, 0)])
    lower = np.maximum(0.0, lower - 1 / breaks)
    upper = np.minimum(1.0, upper + 1 / breaks)
    if n_population is not None:
        s = np.cumsum(x)
        t = np.arange(1, n + 1)
        lower = np.maximum(lower, s / n_population)
        upper = np.minimum(upper, 1 - (t - s) / n_population)
    return lower, upper


def _first_true(ok: Any, rows: np.ndarray, guess: np.ndarray, known: np.ndarray) -> np.ndarray:
    """Per row, the first index j ≥ 0 where the monotone predicate ``ok(rows, j)`` (false
    then true) holds, knowing it holds at ``known``: galloping from ``guess`` (probes at
    distances 1, 2, 4, … on the side the last probe points to, at most half the bracket, so it
    ends as a bisection). Returns ``known`` when every smaller index fails; −1 never occurs
    (``known`` holds)."""
    lo = np.full(rows.size, -1, dtype=np.int64)  # predicate false at lo (−1: virtually)
    hi = known.astype(np.int64).copy()  # predicate true at hi
    probe = np.clip(guess, 0, hi)
    step = np.ones(rows.size, dtype=np.int64)
    live = np.flatnonzero(hi - lo > 1)
    probe_live = probe[live]
    while live.size:
        res = ok(rows[live], probe_live)
        hi[live] = np.where(res, probe_live, hi[live])
        lo[live] = np.where(res, lo[live], probe_live)
        keep = hi[live] - lo[live] > 1
        live, res = live[keep], res[keep]
        if not live.size:
            break
        half = (hi[live] - lo[live]) // 2
        d = np.minimum(step[live], np.maximum(half, 1))
        probe_live = np.where(res, hi[live] - d, lo[live] + d)
        step[live] *= 2
    return hi


def _rows_excluded(counts: np.ndarray, rows: np.ndarray, j: np.ndarray,
                   planes: list[np.ndarray], log_w: float, thr: float) -> np.ndarray:
    """Whether the mixture's capital exceeds the threshold at grid points j for the times
    ``rows`` of a chunk (the bisection's times still undecided)."""
    c = counts[rows]
    k = c[:, 0, None] * planes[0][j]
    for v in range(1, len(planes)):
        k += c[:, v, None] * planes[v][j]
    top = k.max(axis=1)
    k -= top[:, None]
    np.exp(k, out=k)
    return top + np.log(k.sum(axis=1)) + log_w > thr


def _counts_cs(x: np.ndarray, alpha: float, bets: tuple[float, ...], breaks: int,
               start: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The grid CS of :func:`mixture_cs` (with replacement) for times start + 1, …, n when the
    observations take few distinct values v: each bettor's log capital at (m, t) is
    Σ_v c_v(t) log(1 ± λ_k(m)(v − m)) with c_v(t) the counts so far, the log factors tabulated
    once per grid point, and each end found by bisection over the grid indices (the capital is
    monotone in m, module docstring), all times at once. Same answer as the windows (the grid
    point where the capital crosses 2/α); O((n − start) · K · log G) after O(n) counting, so
    an update of a growing stream costs the new times only."""
    values, codes = np.unique(x, return_inverse=True)
    counts_all = np.zeros((x.size, values.size))
    counts_all[np.arange(x.size), codes] = 1.0
    counts_all = np.cumsum(counts_all, axis=0)[start:]
    n_new = counts_all.shape[0]
    g = breaks + 1
    grid = np.arange(0, 1 + 1 / breaks, step=1 / breaks)
    lam = np.asarray(bets, dtype=np.float64)
    thr = math.log(2 / alpha)
    log_w = -math.log(lam.size)
    # the running mean: every bettor's capital is ≤ 1 < 2/α at m = mean (log(1 + u) ≤ u and
    # Σ (x − mean) = 0) and beyond it, so the grid points next to it bracket each end
    mean = (counts_all @ values) / np.arange(start + 1, x.size + 1)
    above = np.minimum(np.searchsorted(grid, mean, side="left"), g - 1)
    below = np.maximum(np.searchsorted(grid, mean, side="right") - 1, 0)
    out = []
    for sign in (+1, -1):
        with np.errstate(divide="ignore"):
            cap = np.minimum(lam[None, :], _TRUNC / (grid if sign > 0 else 1 - grid)[:, None])
        # table[j, k, v] = log(1 ± λ_k(m_j)(v − m_j)), one contiguous plane per value
        table = np.log1p(sign * cap[:, :, None] * (values[None, None, :] - grid[:, None, None]))
        planes = [np.ascontiguousarray(table[:, :, v]) for v in range(values.size)]
        idx = np.empty(n_new, dtype=np.int64)
        for c0 in range(0, n_new, _CHUNK):  # chunks of times that stay in cache
            counts = counts_all[c0:c0 + _CHUNK]

            def excluded(j: np.ndarray, counts: np.ndarray = counts,
                         planes: list[np.ndarray] = planes) -> np.ndarray:
                k = counts[:, 0, None] * planes[0][j]
                for v in range(1, len(planes)):
                    k += counts[:, v, None] * planes[v][j]
                top = k.max(axis=1)
                k -= top[:, None]
                np.exp(k, out=k)
                return top + np.log(k.sum(axis=1)) + log_w > thr

            m = counts.shape[0]
            # in the index j' = j (sign +1) or G − 1 − j (sign −1) "not excluded" is false
            # then true; find the first true j' by galloping from a guess, then bisection
            flip = (lambda j: j) if sign > 0 else (lambda j: g - 1 - j)
            known = above[c0:c0 + m] if sign > 0 else g - 1 - below[c0:c0 + m]

            def ok(rows: np.ndarray, jj: np.ndarray, excluded: Any = excluded, flip: Any = flip,
                   counts: np.ndarray = counts, planes: list[np.ndarray] = planes,
                   m: int = m) -> np.ndarray:
                j = flip(jj)
                ex = (excluded(j) if rows.size == m
                      else _rows_excluded(counts, rows, j, planes, log_w, thr))
                return ~ex

            first = np.full(m, -1, dtype=np.int64)
            anchors = np.arange(0, m, _ANCHOR)
            first[anchors] = _first_true(ok, anchors, known[anchors], known[anchors])
            rest = np.setdiff1d(np.arange(m), anchors, assume_unique=True)
            guess = np.minimum(first[anchors][rest // _ANCHOR], known[rest])
            first[rest] = _first_true(ok, rest, guess, known[rest])
            res = flip(first)
            idx[c0:c0 + m] = np.where(first >= 0, res, -1) if sign < 0 else np.where(
                res < g, res, -1)
        out.append(idx)
    lo_idx, hi_idx = out
    empty = (lo_idx < 0) | (hi_idx < 0) | (lo_idx > hi_idx)
    lower = np.where(empty, 0.0, grid[np.maximum(lo_idx, 0)])
    upper = np.where(empty, 1.0, grid[np.maximum(hi_idx, 0)])
    return np.maximum(0.0, lower - 1 / breaks), np.minimum(1.0, upper + 1 / breaks)


def _exact_cs(x: np.ndarray, alpha: float, n_population: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The betting CS without a grid: the roots of K⁺_t(m) = 2/α and K⁻_t(m) = 2/α in m, by
    vectorised bisection (60 halvings: width 2⁻⁶⁰) on every t at once; O(60 n²) work, so for
    streams up to :data:`_EXACT_MAX` observations."""
    n = x.size
    if n > _EXACT_MAX:
        raise StatsInputError(f"exact=True evaluates every time at every step (n² work and "
                              f"memory): use it for up to {_EXACT_MAX:,} observations, got {n:,}")
    lam = predmix_bets(x, alpha / 2)
    thr = math.log(2 / alpha)
    s_prev = np.concatenate(([0.0], np.cumsum(x)[:-1]))
    t = np.arange(1, n + 1, dtype=np.float64)
    tri = np.tri(n, dtype=bool)  # tri[i, s]: s ≤ i

    def side(m: np.ndarray, sign: int) -> np.ndarray:
        """True where m lies below (sign +1: K⁺ excludes it) or above (−1: K⁻ excludes it)
        the CS at each time (row i: time i + 1, the candidate m[i])."""
        mm = m[:, None]
        mu = mm if n_population is None else (n_population * mm - s_prev) / (n_population - t + 1)
        mu = np.broadcast_to(mu, (n, n))
        with np.errstate(divide="ignore", invalid="ignore"):
            if sign > 0:
                lb = np.maximum(np.minimum(lam, _TRUNC / mu), -_TRUNC / (1 - mu))
                f = np.log1p(lb * (x - mu))
            else:
                lb = np.maximum(np.minimum(lam, _TRUNC / (1 - mu)), -_TRUNC / mu)
                f = np.log1p(-lb * (x - mu))
        f = np.nan_to_num(f, nan=0.0, neginf=-1e300)
        ok = (mu >= 0) & (mu <= 1)
        k = np.where(tri & ok, f, 0.0).sum(axis=1)
        # impossibility persists, so the diagonal (μ at the current time) decides it
        low, high = np.diagonal(mu) < 0, np.diagonal(mu) > 1
        if sign > 0:
            return ((k > thr) & ~high) | low
        return ((k > thr) & ~low) | high

    lo_a, lo_b = np.zeros(n), np.ones(n)
    hi_a, hi_b = np.zeros(n), np.ones(n)
    for _ in range(60):
        mid = (lo_a + lo_b) / 2
        out = side(mid, +1)  # mid lies below the CS
        lo_a = np.where(out, mid, lo_a)
        lo_b = np.where(out, lo_b, mid)
        mid = (hi_a + hi_b) / 2
        out = side(mid, -1)  # mid lies above the CS
        hi_b = np.where(out, mid, hi_b)
        hi_a = np.where(out, hi_a, mid)
    lower, upper = lo_b, hi_a
    if n_population is not None:
        s = np.cumsum(x)
        lower = np.maximum(lower, s / n_population)
        upper = np.minimum(upper, 1 - (t - s) / n_population)
    empty = lower > upper
    return np.where(empty, 0.0, lower), np.where(empty, 1.0, upper)


def betting_cs(x: np.ndarray, *, alpha: float = 0.05, n_population: int | None = None,
               breaks: int = BREAKS, exact: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The predictable plug-in betting confidence sequence of observations ``x`` in [0, 1]
    (module docstring), equal to ``confseq.betting.betting_cs(x, alpha=alpha, N=n_population)``.

    Parameters
    ----------
    x : numpy.ndarray
        Observations in [0, 1], in the order observed.
    alpha : float
        1 − level.
    n_population : int, optional
        Population size when sampling without replacement (N ≥ len(x)).
    breaks : int
        Grid resolution (confseq's ``breaks``).
    exact : bool
        Bisection on m instead of the grid (not confseq's numbers).

    Returns
    -------
    tuple of numpy.ndarray
        ``(lower, upper)`` after each observation.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.confseq import betting_cs
    >>> lo, hi = betting_cs(np.tile([0.0, 1.0, 1.0, 1.0], 50))
    >>> float(lo[-1]), float(hi[-1])
    (0.642, 0.84)
    """
    x = np.asarray(x, dtype=np.float64)
    if exact:
        return _exact_cs(x, alpha, n_population)
    return _grid_cs(x, alpha, n_population, breaks)


def mixture_cs(x: np.ndarray, *, alpha: float = 0.05, n_population: int | None = None,
               bets: tuple[float, ...] = MIXTURE_BETS,
               breaks: int = BREAKS) -> tuple[np.ndarray, np.ndarray]:
    """The betting CS with a mixture of constant bets (module docstring, ``mixture``): equal to
    ``confseq.betting.betting_cs(x, alpha=alpha, N=n_population, lambdas_fns_positive=[…])``
    with one constant function per bet (confseq's ``diversified_betting_mart``, equal weights).

    Parameters
    ----------
    x : numpy.ndarray
        Observations in [0, 1], in the order observed.
    alpha : float
        1 − level.
    n_population : int, optional
        Population size when sampling without replacement (N ≥ len(x)).
    bets : tuple of float
        The constant bets λ_k > 0 (equal weights).
    breaks : int
        Grid resolution.

    Returns
    -------
    tuple of numpy.ndarray
        ``(lower, upper)`` after each observation.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.confseq import mixture_cs
    >>> lo, hi = mixture_cs(np.tile([0.0, 1.0, 1.0, 1.0], 50))
    >>> float(lo[-1]), float(hi[-1])
    (0.644, 0.839)
    """
    x = np.asarray(x, dtype=np.float64)
    if n_population is None and x.size and np.unique(x).size <= _FEW_VALUES:
        return _counts_cs(x, alpha, tuple(bets), breaks)
    return _grid_cs(x, alpha, n_population, breaks, bets=tuple(bets))


def mixture_cs_tail(x: np.ndarray, start: int, *, alpha: float = 0.05,
                    bets: tuple[float, ...] = MIXTURE_BETS,
                    breaks: int = BREAKS) -> tuple[np.ndarray, np.ndarray]:
    """:func:`mixture_cs` (with replacement) at times start + 1, …, len(x) only: the update of
    a growing stream whose first ``start`` intervals are known (they do not change: the bets are
    constant and there is no running intersection). Equal to ``mixture_cs(x)[·][start:]``.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.confseq import mixture_cs, mixture_cs_tail
    >>> x = np.tile([0.0, 1.0, 1.0, 1.0], 50)
    >>> bool((mixture_cs_tail(x, 150)[0] == mixture_cs(x)[0][150:]).all())
    True
    """
    x = np.asarray(x, dtype=np.float64)
    if np.unique(x).size <= _FEW_VALUES:
        return _counts_cs(x, alpha, tuple(bets), breaks, start)
    lower, upper = _grid_cs(x, alpha, None, breaks, bets=tuple(bets))
    return lower[start:], upper[start:]


def _best_rho(v_opt: float, alpha: float) -> float:
    """ρ of the two-sided normal mixture tightest at intrinsic time v_opt (Howard et al. 2021,
    eq. (C.8); confseq ``TwoSidedNormalMixture::best_rho``)."""
    la = math.log(1 / alpha)
    return v_opt / (2 * la + math.log(1 + 2 * la))


def hoeffding_cs(x: np.ndarray, *, alpha: float = 0.05,
                 t_opt: float = 500.0) -> tuple[np.ndarray, np.ndarray]:
    """The conjugate-mixture Hoeffding CS (module docstring), equal to
    ``confseq.conjmix_bounded.conjmix_hoeffding_twosided_cs(x, t_opt, alpha)``.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.confseq import hoeffding_cs
    >>> lo, hi = hoeffding_cs(np.tile([0.0, 1.0], 200), t_opt=400)
    >>> round(float(lo[-1]), 4), round(float(hi[-1]), 4)
    (0.4241, 0.5759)
    """
    x = np.asarray(x, dtype=np.float64)
    t = np.arange(1, x.size + 1, dtype=np.float64)
    mu = np.cumsum(x) / t
    rho = _best_rho(t_opt / 4, alpha)
    v = t / 4
    bdry = np.sqrt((v + rho) * (np.log1p(v / rho) + 2 * math.log(1 / alpha))) / t
    return np.maximum(mu - bdry, 0.0), np.minimum(mu + bdry, 1.0)


def _gamma_exp_log_mixture(s: np.ndarray, v: np.ndarray, rho: float) -> np.ndarray:
    """log of the gamma-exponential mixture supermartingale with c = 1 (confseq
    ``GammaExponentialMixture::log_superMG``)."""
    lead = rho * math.log(rho) - special.gammaln(rho) - math.log(special.gammainc(rho, rho))
    a = v + rho
    z = s + v + rho
    with np.errstate(divide="ignore"):
        return lead + special.gammaln(a) + np.log(special.gammainc(a, z)) - a * np.log(z) + s + v


def _gamma_exp_bound(v: np.ndarray, alpha: float, v_opt: float) -> np.ndarray:
    """The root b(v) of log M(b, v) = log(1/α) (confseq ``find_mixture_bound``: the first
    doubling of v above the threshold, then bisection), here to machine precision."""
    rho = _best_rho(v_opt, 2 * alpha)  # OneSidedNormalMixture::best_rho(v, α) = two-sided at 2α
    target = math.log(1 / alpha)

    def f(s: np.ndarray) -> np.ndarray:
        return _gamma_exp_log_mixture(s, v, rho) - target

    hi = v.copy()
    for _ in range(50):
        need = ~(f(hi) > 0)
        if not need.any():
            break
        hi = np.where(need, hi * 2, hi)
    lo = np.zeros_like(v)
    for _ in range(100):
        mid = (lo + hi) / 2
        above = f(mid) > 0
        hi = np.where(above, mid, hi)
        lo = np.where(above, lo, mid)
    return (lo + hi) / 2


def _empbern_lower(x: np.ndarray, alpha: float, v_opt: float) -> np.ndarray:
    t = np.arange(1, x.size + 1, dtype=np.float64)
    mu = np.cumsum(x) / t
    mu_prev = np.concatenate(([0.5], mu[:-1]))
    v = np.cumsum((x - mu_prev) ** 2)
    bdry = _gamma_exp_bound(v, alpha / 2, v_opt) / t
    return np.maximum(mu - bdry, 0.0)


def empirical_bernstein_cs(x: np.ndarray, *, alpha: float = 0.05,
                           v_opt: float = 125.0) -> tuple[np.ndarray, np.ndarray]:
    """The conjugate-mixture empirical-Bernstein CS (module docstring), equal to
    ``confseq.conjmix_bounded.conjmix_empbern_twosided_cs(x, v_opt, alpha)``.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.confseq import empirical_bernstein_cs
    >>> lo, hi = empirical_bernstein_cs(np.tile([0.0, 1.0], 200), v_opt=100)
    >>> round(float(lo[-1]), 4), round(float(hi[-1]), 4)
    (0.408, 0.592)
    """
    x = np.asarray(x, dtype=np.float64)
    return _empbern_lower(x, alpha / 2, v_opt), 1 - _empbern_lower(1 - x, alpha / 2, v_opt)
