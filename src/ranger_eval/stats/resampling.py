"""Resampling tests: paired sign-flip permutation, unpaired permutation, paired bootstrap.

Kernels are vectorised and batched: each batch of resamples is a dense matrix of at most
``BATCH_BYTES`` (64 MB), and the statistic of every resample for every system pair is one BLAS
matrix product (resamples x items) @ (items x pairs). One random matrix, defined by
``(n, n_resamples, seed)`` alone, is shared by all pairs of a dataset (:class:`SignFlips`,
:class:`BootstrapIndices`), so 190 pairs cost about one pass. :meth:`SignFlips.count_pairs`
multiplies by the systems instead of the pairs (k instead of k(k - 1)/2 columns, any number of
groups at once) and gives the same counts (rounding-error bound, exact recomputation inside it).

Randomness: the raw 64-bit output stream of numpy's ``PCG64(seed)``, consumed row by row
(one word per 64 signs; one word per bootstrap index or permutation key). A batch starting at
row ``a`` jumps ahead with ``PCG64.advance``, so the matrix -- and every p-value -- is identical
for the same seed on every call and for any batch size.

p-values: Monte-Carlo p = (1 + #{resamples at least as extreme}) / (1 + B), never 0
(Phipson & Smyth 2010); exact enumeration p = #{extreme} / #{all}, which counts the observed
arrangement itself. "At least as extreme" uses a tolerance gamma = max(100, 4 n) * eps * sum|d|
so that theoretically tied sums that differ by rounding (scipy uses 100 * eps * |observed|)
still count. Two-sided tests compare |statistic| (sign-flip and permutation nulls are centred at 0).

Extreme scores: counts and p-values are scale free, so rows of differences (or pooled samples)
whose largest magnitude lies outside [2^-100, 2^100] are resampled times a power of two
(exact, :mod:`ranger_eval.stats._scale`) and their estimates and bounds scaled back (beyond
float64: :class:`StatsInputError`); :meth:`SignFlips.count_pairs` scales its whole systems matrix
when its largest magnitude is beyond 2^±960 (sums would overflow, tolerances underflow).
"""
from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from ..errors import renamed_keywords
from ._scale import (
    exponent,
    row_exponents,
    scaled,
    scaled_rows,
    unscale,
    unscale_array,
)
from ._validation import (
    StatsInputError,
    as_vector,
    check_alternative,
    check_batch,
    check_choice,
    check_level,
    check_n_resamples,
    check_seed,
    paired_scaled,
)
from .results import ManyTestResult, TestResult

__all__ = [
    "BATCH_BYTES",
    "SignFlips",
    "BootstrapIndices",
    "paired_permutation_test",
    "paired_permutation_test_many",
    "permutation_test",
    "paired_bootstrap",
    "paired_bootstrap_many",
    "westfall_young_counts",
]

BATCH_BYTES = 64 * 2**20
_EPS = float(np.finfo(np.float64).eps)


def _rows_per_batch(batch: int | None, bytes_per_row: int, total: int) -> int:
    if batch is None:
        batch = max(1, BATCH_BYTES // max(bytes_per_row, 1))
    return max(1, min(batch, total))


def _raw_words(seed: int, start_word: int, count: int) -> np.ndarray:
    """Words ``start_word .. start_word + count - 1`` of PCG64(seed)'s raw 64-bit stream."""
    bg = np.random.PCG64(seed)
    if start_word:
        bg.advance(start_word)
    return bg.random_raw(count)


def _tolerance(abs_sum: np.ndarray, n: int) -> np.ndarray:
    return max(100.0, 4.0 * n) * _EPS * abs_sum


def _as_matrix(diffs: object, name: str = "diffs") -> np.ndarray:
    try:
        d = np.array(diffs, dtype=np.float64, ndmin=2)
    except (TypeError, ValueError) as exc:
        raise StatsInputError(f"{name} must be a numeric matrix (pairs x items): {exc}") from None
    if d.ndim != 2:
        raise StatsInputError(f"{name} must be two-dimensional (pairs x items); got {d.shape}")
    bad = ~np.isfinite(d)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise StatsInputError(
            f"{name} contains {int(bad.sum())} non-finite value(s), first at pair {r}, item {c}"
        )
    if d.shape[1] < 2:
        raise StatsInputError(f"{name} needs at least 2 items per pair; got {d.shape[1]}")
    return d


def _tame(v: np.ndarray) -> np.ndarray:
    """``v · 2^-e`` (exact; counts are scale free) when max|v| is beyond 2^±960, where sums of
    resampled values could overflow or their tolerances underflow; else ``v`` itself."""
    top = float(np.max(np.abs(v))) if v.size else 0.0
    if top == 0.0 or math.ldexp(1.0, -960) <= top <= math.ldexp(1.0, 960):
        return v
    return np.ldexp(v, -int(np.frexp(top)[1]))


def _index(idx: object, rows: int, name: str) -> np.ndarray:
    a = np.asarray(idx)
    if a.ndim != 1 or (a.size and a.dtype.kind not in "iu"):
        raise StatsInputError(f"{name} must be a 1-D array of row indices; got {a!r}")
    a = a.astype(np.intp, copy=False)
    if a.size and (a.min() < 0 or a.max() >= rows):
        raise StatsInputError(f"{name} has a row index outside 0..{rows - 1}")
    return a


def _pair_sums(v: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sum(d_j) and sum|d_j| of d_j = v[ia_j] - v[ib_j], a few cache-sized rows at a time
    (numpy's pairwise row sums, as ``d.sum(axis=1)`` of the stacked differences)."""
    m, n = ia.size, v.shape[1]
    total, abs_d = np.empty(m), np.empty(m)
    step = max(1, min(m, (1 << 18) // (8 * n)))
    d, o = np.empty((step, n)), np.empty((step, n))
    for a in range(0, m, step):
        b = min(a + step, m)
        dc, oc = d[: b - a], o[: b - a]
        np.take(v, ia[a:b], axis=0, out=dc)
        np.take(v, ib[a:b], axis=0, out=oc)
        np.subtract(dc, oc, out=dc)
        total[a:b] = np.add.reduce(dc, axis=1)
        np.abs(dc, out=dc)
        abs_d[a:b] = np.add.reduce(dc, axis=1)
    return total, abs_d


def _binary_scale(v: np.ndarray) -> np.ndarray:
    """Per row, the smallest k >= 0 such that every value is an integer multiple of 2^-k
    (the row's finest binary digit; up to 1074 for subnormals)."""
    out = np.zeros(v.shape[0])
    for r in range(v.shape[0]):
        mant, expo = np.frexp(v[r])
        digits = np.ldexp(mant, 53).astype(np.int64)  # v = digits * 2^(expo - 53)
        nz = digits != 0
        if nz.any():
            low = digits[nz] & -digits[nz]  # lowest set bit of each value's digits
            tz = np.frexp(low.astype(np.float64))[1] - 1
            out[r] = max(0, int(np.max(53 - expo[nz] - tz)))
    return out

def _count_to_p(count: np.ndarray, total: int, exact: bool) -> np.ndarray:
    if exact:
        return count / float(total)
    return (1.0 + count) / (1.0 + total)


@dataclass(frozen=True)
class SignFlips:
    """The random sign matrix of a paired permutation test, for n items and B resamples.

    Rows are sign vectors in {-1, +1}^n. When 2^n <= n_resamples all 2^n vectors are enumerated
    (row k has sign -1 at item j iff bit j of k is set; row 0 is the observed arrangement);
    otherwise row r holds the bits of raw PCG64(seed) words r*w .. r*w + w - 1, w = ceil(n/64),
    little-endian (bit = 1 -> sign -1). Nothing is stored: batches are regenerated on demand.
    """

    n: int
    n_resamples: int = 10_000
    seed: int | None = 0
    exact: bool = field(init=False)

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, (int, np.integer)) or self.n < 1:
            raise StatsInputError(f"n must be a positive integer; got {self.n!r}")
        object.__setattr__(self, "n", int(self.n))
        object.__setattr__(self, "n_resamples", check_n_resamples(self.n_resamples))
        object.__setattr__(self, "seed", check_seed(self.seed))
        object.__setattr__(self, "exact", self.n < 63 and 2**self.n <= self.n_resamples)

    @property
    def size(self) -> int:
        """Number of rows: 2^n when exact, else n_resamples."""
        return 2**self.n if self.exact else self.n_resamples

    def bits(self, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` as uint8 0/1 flags (1 = flip the sign)."""
        n = self.n
        if self.exact:
            k = np.arange(start, stop, dtype=np.uint64)[:, None]
            return ((k >> np.arange(n, dtype=np.uint64)) & np.uint64(1)).astype(np.uint8)
        w = (n + 63) // 64
        raw = _raw_words(int(self.seed), start * w, (stop - start) * w)  # type: ignore[arg-type]
        b = raw.astype("<u8", copy=False).view(np.uint8).reshape(stop - start, 8 * w)
        return np.unpackbits(b, axis=1, count=n, bitorder="little")

    def signs(self, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` as a float64 matrix of +1/-1."""
        out = self.bits(start, stop).astype(np.float64)
        out *= -2.0
        out += 1.0
        return out

    def batches(self, batch: int | None = None) -> Iterator[tuple[int, int]]:
        """(start, stop) row ranges of at most ``batch`` rows (default: ~64 MB per batch)."""
        rows = _rows_per_batch(check_batch(batch), 9 * self.n, self.size)
        for a in range(0, self.size, rows):
            yield a, min(a + rows, self.size)

    def sums(self, diffs: object, batch: int | None = None) -> Iterator[np.ndarray]:
        """Resampled sums sum_i s_i d_i, one (rows x pairs) block per batch.

        Computed as sum(d) - 2 (F @ d) with the 0/1 flip matrix F in a reused float64 buffer
        (a single BLAS product; row 0 of an exact enumeration reproduces sum(d) exactly).
        """
        d = _as_matrix(diffs)
        if d.shape[1] != self.n:
            raise StatsInputError(f"diffs has {d.shape[1]} items per pair; SignFlips has n={self.n}")
        total = d.sum(axis=1)
        dt = np.ascontiguousarray(d.T)
        buf: np.ndarray | None = None
        for a, b in self.batches(batch):
            if buf is None:
                buf = np.empty((b - a, self.n))
            f = buf[: b - a]
            np.copyto(f, self.bits(a, b))
            s = f @ dt
            s *= -2.0
            s += total
            yield s

    def count_extreme(
        self,
        diffs: object,
        alternative: str = "two-sided",
        batch: int | None = None,
        advance: Callable[[int], object] | None = None,
    ) -> np.ndarray:
        """Per pair (row of ``diffs``), how many sign vectors give a sum at least as extreme.

        ``advance(rows)`` is called after each batch (e.g. a progress bar's advance).
        """
        return self._counts(diffs, alternative, batch, advance, maxt=False)[0]

    def _counts(
        self,
        diffs: object,
        alternative: str,
        batch: int | None,
        advance: Callable[[int], object] | None,
        maxt: bool,
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Raw extreme counts and, with ``maxt``, Westfall–Young step-down max-T counts."""
        check_alternative(alternative)
        d = _as_matrix(diffs)
        d = scaled_rows(row_exponents(d), d)[0]  # exact; the counts are scale free
        obs = d.sum(axis=1)
        tol = _tolerance(np.abs(d).sum(axis=1), self.n)
        count = np.zeros(d.shape[0], dtype=np.int64)
        mt = _MaxT(d, obs, tol, alternative) if maxt else None
        for s in self.sums(d, batch):
            if alternative == "two-sided":
                hit = np.abs(s) >= np.abs(obs) - tol
            elif alternative == "greater":
                hit = s >= obs - tol
            else:
                hit = s <= obs + tol
            count += hit.sum(axis=0)
            if mt is not None:
                mt.add(s)
            if advance is not None:
                advance(s.shape[0])
        return count, (mt.counts() if mt is not None else None)

    def pvalues(self, count: np.ndarray) -> np.ndarray:
        """p-values from extreme counts: count/2^n (exact) or (1 + count)/(1 + B)."""
        return _count_to_p(np.asarray(count), self.size, self.exact)

    def count_pairs(
        self,
        values: object,
        ia: object,
        ib: object,
        alternative: str = "two-sided",
        batch: int | None = None,
        advance: Callable[[int], object] | None = None,
    ) -> np.ndarray:
        """:meth:`count_extreme` of the differences d_j = values[ia_j] - values[ib_j] of many
        system pairs at once, with the same counts, from one product per batch with the
        *systems* (items x systems) instead of the pairs.

        ``values`` is a systems x items matrix (the rows of several groups may be stacked: any
        rows can be paired). Per batch of sign vectors F (0/1, 1 = flip) the sums
        F v_r of every system row r come from one BLAS product (k systems instead of
        k(k - 1)/2 pairs: 9.5x fewer operations for 20 systems), and the resampled statistic of
        pair j is s_j = sum(d_j) - 2 (F v_a - F v_b). This differs from the float64 statistic
        of :meth:`count_extreme`, sum(d_j) - 2 F d_j, only by rounding, and both are within
        ``bound_j`` = 2 (n + 4) eps (sum|v_a| + sum|v_b| + sum|d_j| + |sum d_j|) of the exact
        value (Higham 2002, eq. 3.5: |fl(x.y) - x.y| <= gamma_n |x|.|y|, with margin 2). A
        resample whose margin to the threshold exceeds the bound is counted as it is; a pair
        with any resample inside the band has its batch recomputed exactly as
        :meth:`count_extreme` computes it (the 0/1 matrix times its differences). When every
        value is an integer multiple of 2^-k with all sums below 2^53 (0/1 accuracies, graded
        judgements), every sum is exact and the bound is 0. Continuous scores put about 1e-9 of
        the resamples inside the band; float32 products were measured and rejected: their
        provable bound (n eps32 sum|v|, about 1e-3 relative) puts a few per cent of the
        resamples inside it.
        """
        check_alternative(alternative)
        v = _tame(_as_matrix(values, "values"))
        if v.shape[1] != self.n:
            raise StatsInputError(f"values has {v.shape[1]} items per row; SignFlips has n={self.n}")
        rows_v = v.shape[0]
        ia_ = _index(ia, rows_v, "ia")
        ib_ = _index(ib, rows_v, "ib")
        if ia_.size != ib_.size:
            raise StatsInputError(f"ia and ib need the same length; got {ia_.size} and {ib_.size}")
        m = ia_.size
        count = np.zeros(m, dtype=np.int64)
        if m == 0:
            return count
        n = self.n
        total, abs_d = _pair_sums(v, ia_, ib_)
        tol = _tolerance(abs_d, n)
        if alternative == "two-sided":
            thr = np.abs(total) - tol
        elif alternative == "greater":
            thr = total - tol
        else:
            thr = total + tol
        abs_v = np.abs(v).sum(axis=1)
        bound = 2.0 * (n + 4) * _EPS * (abs_v[ia_] + abs_v[ib_] + abs_d + np.abs(total))
        # values on a common binary grid 2^-k with 8 (sum|v_a| + sum|v_b|) 2^k < 2^53: every sum
        # (of values, differences, resampled sums) is an integer multiple of 2^-k below 2^53 in
        # magnitude, so exact in float64 in any order
        k = _binary_scale(v)
        with np.errstate(divide="ignore"):
            grid = np.maximum(k[ia_], k[ib_]) + np.log2(8.0 * (abs_v[ia_] + abs_v[ib_])) < 52.5
        bound[grid] = 0.0
        vt = np.ascontiguousarray(v.T)
        rows = _rows_per_batch(check_batch(batch), 9 * n, self.size)
        step = max(1, min(m, (1 << 21) // (8 * rows)))  # pairs per block: ~2 MB per temporary
        f = np.empty((rows, n))
        prod = np.empty((rows, rows_v))
        s = np.empty((rows, step))
        other = np.empty((rows, step))
        for a, b in self.batches(rows):
            fb = f[: b - a]
            np.copyto(fb, self.bits(a, b))
            pb = prod[: b - a]
            np.matmul(fb, vt, out=pb)
            for c0 in range(0, m, step):
                c1 = min(c0 + step, m)
                sc, oc = s[: b - a, : c1 - c0], other[: b - a, : c1 - c0]
                np.take(pb, ia_[c0:c1], axis=1, out=sc)
                np.take(pb, ib_[c0:c1], axis=1, out=oc)
                np.subtract(sc, oc, out=sc)
                sc *= -2.0
                sc += total[c0:c1]  # the resampled sums s_j
                if alternative == "two-sided":
                    np.abs(sc, out=sc)
                    sc -= thr[c0:c1]
                elif alternative == "greater":
                    sc -= thr[c0:c1]
                else:
                    np.subtract(thr[c0:c1], sc, out=sc)
                # sc: margin to the threshold (a hit when >= 0)
                e = bound[c0:c1]
                sure = (sc > e).sum(axis=0)
                unsure = np.flatnonzero((sc >= -e).sum(axis=0) != sure)
                count[c0:c1] += sure
                if unsure.size:
                    j = c0 + unsure
                    count[j] += self._exact_hits(fb, v, ia_[j], ib_[j], total[j], tol[j],
                                                 alternative) - sure[unsure]
            if advance is not None:
                advance(b - a)
        return count

    @staticmethod
    def _exact_hits(
        f: np.ndarray, v: np.ndarray, ia: np.ndarray, ib: np.ndarray, total: np.ndarray,
        tol: np.ndarray, alternative: str,
    ) -> np.ndarray:
        """Hits of the pairs (ia, ib) on the sign rows ``f`` computed as :meth:`_counts` does."""
        d = v[ia] - v[ib]
        pad = d.shape[0] == 1  # keep a matrix product (numpy turns one column into gemv)
        dt = np.ascontiguousarray(np.vstack([d, d]).T if pad else d.T)
        s = f @ dt
        s *= -2.0
        s += np.r_[total, total] if pad else total
        tt = np.r_[tol, tol] if pad else tol
        obs = np.r_[total, total] if pad else total
        if alternative == "two-sided":
            hit = np.abs(s) >= np.abs(obs) - tt
        elif alternative == "greater":
            hit = s >= obs - tt
        else:
            hit = s <= obs + tt
        out = hit.sum(axis=0)
        return out[:1] if pad else out

    @renamed_keywords(adjust="correction")
    def test(
        self,
        diffs: object,
        alternative: str = "two-sided",
        batch: int | None = None,
        *,
        correction: str | None = None,
        advance: Callable[[int], object] | None = None,
    ) -> ManyTestResult:
        """Sign-flip test of mean(d) = 0 for every row of ``diffs`` (pairs x n).

        ``correction="westfall-young"`` also returns ``pvalue_adjusted``: Westfall & Young's
        step-down max-T adjusted p-values over the rows, from the same sign vectors
        (:func:`westfall_young_counts`). ``advance(rows)`` is called after each batch.
        """
        d = _as_matrix(diffs)
        if correction is not None:
            check_choice("correction", correction, ("westfall-young",))
        e = row_exponents(d)
        d = scaled_rows(e, d)[0]  # rows of extreme differences · 2^-e (exact)
        count, mt = self._counts(d, alternative, batch, advance, maxt=correction is not None)
        mean = unscale_array(d.mean(axis=1), e, "mean difference")
        adjusted = None
        if mt is not None:
            adjusted = _count_to_p(mt, self.size, self.exact)
            adjusted = np.maximum(adjusted, _count_to_p(count, self.size, self.exact))
        return ManyTestResult(
            test="paired permutation test", statistic=mean, pvalue=_count_to_p(
                count, self.size, self.exact), alternative=alternative, n=self.n,
            method="exact" if self.exact else "monte-carlo", n_resamples=self.size,
            seed=None if self.exact else self.seed, estimate=mean.copy(),
            estimate_name="mean difference", pvalue_adjusted=adjusted,
        )


class _MaxT:
    """Accumulates Westfall & Young's (1993, Algorithm 2.8) step-down max-T counts.

    Each pair's sum S is standardised by its exact sign-flip null SD, z = S / sqrt(sum d^2)
    (for a common n the paired t statistic is the same increasing function of z for every
    pair, so max-T on z equals max-T on t, as ``multtest::mt.maxT(test="pairt")``).
    Two-sided tests use |z|, "less" uses -z. Pairs are ordered by observed statistic, largest
    first (r_1, ..., r_m); for each resample u_j = max_(k >= j) z*_(r_k) (successive maxima
    from the least significant pair up) and count_j += [u_j >= c_(r_j)], where
    c = (|S| - gamma)/sqrt(sum d^2) is the observed statistic less the tie tolerance gamma of the
    raw test (so each adjusted count is at least the raw count). Pairs with sum d^2 = 0 have
    z* = 0 and c = 0. :meth:`counts` applies the step-down monotonicity (running maximum in
    that order) and returns the counts in the original row order.
    """

    def __init__(self, d: np.ndarray, obs: np.ndarray, tol: np.ndarray, alternative: str) -> None:
        q = np.sqrt((d * d).sum(axis=1))
        self.scale = np.where(q > 0, 1.0 / np.where(q > 0, q, 1.0), 0.0)
        self.alternative = alternative
        if alternative == "two-sided":
            stat, thr = np.abs(obs), np.abs(obs) - tol
        elif alternative == "greater":
            stat, thr = obs, obs - tol
        else:
            stat, thr = -obs, -obs - tol
        z_obs = stat * self.scale
        self.order = np.argsort(-z_obs, kind="stable")
        self.threshold = np.where(q > 0, thr * self.scale, 0.0)[self.order]
        self.count = np.zeros(d.shape[0], dtype=np.int64)

    def add(self, s: np.ndarray) -> None:
        z = s[:, self.order] * self.scale[self.order]
        if self.alternative == "two-sided":
            np.abs(z, out=z)
        elif self.alternative == "less":
            np.negative(z, out=z)
        u = np.maximum.accumulate(z[:, ::-1], axis=1)[:, ::-1]
        self.count += (u >= self.threshold).sum(axis=0)

    def counts(self) -> np.ndarray:
        stepped = np.maximum.accumulate(self.count)
        out = np.empty_like(stepped)
        out[self.order] = stepped
        return out


def westfall_young_counts(
    diffs: object,
    flips: SignFlips,
    alternative: str = "two-sided",
    batch: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Raw and step-down max-T exceedance counts of each row of ``diffs`` on the signs of ``flips``.

    p = count / 2^n when the flips are exhaustive, else (1 + count)/(1 + B), as for the raw test;
    see :class:`_MaxT` for the algorithm (step-down minP/maxT with successive maxima).

    Parameters
    ----------
    diffs : array_like
        Paired differences, pairs × n.
    flips : SignFlips
        The sign matrix (its n, resample count and seed).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The side of every test.
    batch : int, optional
        Sign vectors per batch.

    Returns
    -------
    (ndarray, ndarray)
        The raw counts and the Westfall–Young adjusted counts, one per row.

    References
    ----------
    Westfall, P. H. & Young, S. S. (1993), Resampling-Based Multiple Testing, Wiley, Algorithm 2.8.

    Examples
    --------
    >>> import numpy as np
    >>> diffs = np.array([[0.11, 0.02, 0.08, 0.05, 0.07, -0.01],
    ...                   [0.01, -0.02, 0.03, 0.00, -0.01, 0.02]])
    >>> from ranger_eval.stats.resampling import SignFlips, westfall_young_counts
    >>> raw, adjusted = westfall_young_counts(diffs, SignFlips(6, 10_000, 0))
    >>> raw.tolist(), adjusted.tolist()
    ([4, 44], [8, 44])
    """
    count, mt = flips._counts(diffs, alternative, batch, None, maxt=True)
    assert mt is not None
    return count, mt


def paired_permutation_test(
    x: object,
    y: object | None = None,
    *,
    alternative: str = "two-sided",
    n_resamples: int = 10_000,
    seed: int | None = 0,
    batch: int | None = None,
) -> TestResult:
    """Paired (sign-flip) permutation test of mean(x - y) = 0.

    Statistic: the mean difference. Under H0 each difference is symmetric about 0, so its sign is
    flipped at random (scipy ``permutation_test(permutation_type="samples")``). Exact enumeration
    of all 2^n sign vectors when 2^n <= n_resamples, else Monte-Carlo with
    p = (1 + #extreme)/(1 + B). See :class:`SignFlips` for the random stream.

    Parameters
    ----------
    x, y : array_like
        Paired scores aligned by item, or ``x`` alone as the differences.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` scores higher.
    n_resamples : int, default 10000
        Resamples drawn (all arrangements are enumerated when there are no more than this).
    seed : int or None, default 0
        Seed of the PCG64 stream (the same seed gives the same p-value for any ``batch``).
    batch : int, optional
        Resamples per batch (default: what fits in ``BATCH_BYTES``).

    Returns
    -------
    TestResult
        ``statistic`` and ``estimate`` the mean difference, ``pvalue``, ``method`` ("exact" or
        "monte-carlo"), ``n_resamples`` (the arrangements counted), ``seed``.

    References
    ----------
    Fisher, R. A. (1935), The Design of Experiments, Oliver & Boyd (the randomisation test);
    Phipson, B. & Smyth, G. K. (2010), "Permutation p-values should never be zero", Statistical
    Applications in Genetics and Molecular Biology 9(1):39 (p = (1 + count)/(1 + B)).

    Examples
    --------
    >>> from ranger_eval.stats import paired_permutation_test
    >>> x = [0.81, 0.62, 0.90, 0.55, 0.73, 0.68]
    >>> y = [0.70, 0.60, 0.82, 0.50, 0.66, 0.69]
    >>> r = paired_permutation_test(x, y)
    >>> r.method, r.n_resamples, round(r.pvalue, 4)
    ('exact', 64, 0.0625)
    """
    check_alternative(alternative)
    d, e = paired_scaled(x, y)  # x - y = d · 2^e
    flips = SignFlips(d.size, n_resamples, seed)
    r = flips.test(d[None, :], alternative, batch)[0]
    if e == 0:
        return r
    mean = unscale(r.statistic, e, "mean difference")
    return dataclasses.replace(r, statistic=mean, estimate=mean)


@renamed_keywords(adjust="correction")
def paired_permutation_test_many(
    diffs: object,
    *,
    alternative: str = "two-sided",
    n_resamples: int = 10_000,
    seed: int | None = 0,
    batch: int | None = None,
    flips: SignFlips | None = None,
    correction: str | None = None,
    advance: Callable[[int], object] | None = None,
) -> ManyTestResult:
    """:func:`paired_permutation_test` for every row of ``diffs`` (pairs × n) on one sign matrix.

    Parameters
    ----------
    diffs : array_like
        Paired differences, one row per pair of systems.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The side of every test.
    n_resamples : int, default 10000
        Resamples drawn (all arrangements are enumerated when there are no more than this).
    seed : int or None, default 0
        Seed of the PCG64 stream (the same seed gives the same p-value for any ``batch``).
    batch : int, optional
        Resamples per batch (default: what fits in ``BATCH_BYTES``).
    flips : SignFlips, optional
        A sign matrix to reuse (then ``n_resamples`` and ``seed`` are its own).
    correction : {None, "westfall-young"}, default None
        "westfall-young" adds step-down max-T adjusted p-values (``pvalue_adjusted``).
        ``adjust`` was the old keyword.
    advance : callable, optional
        Called with the number of sign vectors after each batch (progress bars).

    Returns
    -------
    ManyTestResult
        Arrays of ``statistic``, ``pvalue`` (and ``pvalue_adjusted``), one entry per row.

    References
    ----------
    Westfall, P. H. & Young, S. S. (1993), Resampling-Based Multiple Testing, Wiley, Algorithm 2.8;
    Phipson, B. & Smyth, G. K. (2010), "Permutation p-values should never be zero", Statistical
    Applications in Genetics and Molecular Biology 9(1):39 (p = (1 + count)/(1 + B)).

    Examples
    --------
    >>> import numpy as np
    >>> diffs = np.array([[0.11, 0.02, 0.08, 0.05, 0.07, -0.01],
    ...                   [0.01, -0.02, 0.03, 0.00, -0.01, 0.02]])
    >>> from ranger_eval.stats import paired_permutation_test_many
    >>> r = paired_permutation_test_many(diffs, correction="westfall-young")
    >>> r.pvalue.round(4).tolist(), r.pvalue_adjusted.round(4).tolist()
    ([0.0625, 0.6875], [0.125, 0.6875])
    """
    check_alternative(alternative)
    d = _as_matrix(diffs)
    if flips is None:
        flips = SignFlips(d.shape[1], n_resamples, seed)
    return flips.test(d, alternative, batch, correction=correction, advance=advance)


# --------------------------------------------------------------------------- unpaired


def _combination_rows(n_total: int, n_x: int, start: int, stop: int) -> np.ndarray:
    combos = itertools.islice(itertools.combinations(range(n_total), n_x), start, stop)
    idx = np.array(list(combos), dtype=np.int64).reshape(stop - start, n_x)
    z = np.zeros((stop - start, n_total))
    np.put_along_axis(z, idx, 1.0, axis=1)
    return z


def _random_subset_rows(n_total: int, n_x: int, seed: int, start: int, stop: int) -> np.ndarray:
    raw = _raw_words(seed, start * n_total, (stop - start) * n_total)
    keys = raw.reshape(stop - start, n_total)
    idx = np.argpartition(keys, n_x - 1, axis=1)[:, :n_x] if n_x < n_total else None
    z = np.zeros((stop - start, n_total))
    if idx is None:
        z[:] = 1.0
    else:
        np.put_along_axis(z, idx, 1.0, axis=1)
    return z


def permutation_test(
    x: object,
    y: object,
    *,
    alternative: str = "two-sided",
    n_resamples: int = 10_000,
    seed: int | None = 0,
    batch: int | None = None,
) -> TestResult:
    """Unpaired permutation test of mean(x) - mean(y) = 0 (labels exchangeable under H0).

    Each resample assigns n_x of the pooled N values to ``x`` uniformly at random: the n_x smallest
    of N raw PCG64 words (one per value) of that row. Exact enumeration of all C(N, n_x)
    assignments (itertools order) when that number is <= n_resamples. Two-sided: |mean
    difference| at least as large as observed.

    Parameters
    ----------
    x, y : array_like
        The two samples (at least 3 values in total).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` scores higher.
    n_resamples : int, default 10000
        Resamples drawn (all arrangements are enumerated when there are no more than this).
    seed : int or None, default 0
        Seed of the PCG64 stream (the same seed gives the same p-value for any ``batch``).
    batch : int, optional
        Resamples per batch (default: what fits in ``BATCH_BYTES``).

    Returns
    -------
    TestResult
        ``statistic`` and ``estimate`` the difference in means, ``pvalue``, ``method``,
        ``n_resamples``, ``seed`` (None when exact).

    Raises
    ------
    StatsInputError
        Fewer than 3 values, non-finite values, or a bad ``n_resamples``/``seed``/``batch``.

    References
    ----------
    Pitman, E. J. G. (1937), "Significance tests which may be applied to samples from any
    populations", Supplement to JRSS 4:119–130; Phipson, B. & Smyth, G. K. (2010), "Permutation
    p-values should never be zero", Statistical Applications in Genetics and Molecular
    Biology 9(1):39 (p = (1 + count)/(1 + B)).

    Examples
    --------
    >>> from ranger_eval.stats import permutation_test
    >>> x = [0.81, 0.62, 0.90, 0.55, 0.73, 0.68]
    >>> y = [0.70, 0.60, 0.82, 0.50, 0.66, 0.69]
    >>> r = permutation_test(x, y)
    >>> r.method, r.n_resamples, round(r.pvalue, 3)
    ('exact', 924, 0.461)
    """
    check_alternative(alternative)
    xa = as_vector(x, "x", 1)
    ya = as_vector(y, "y", 1)
    if xa.size + ya.size < 3:
        raise StatsInputError(
            f"permutation test needs at least 3 values in total; got {xa.size} + {ya.size}"
        )
    e = exponent(xa, ya)
    xa, ya = scaled(e, xa, ya)  # exact power of two: the same counts
    n_resamples = check_n_resamples(n_resamples)
    seed_i = check_seed(seed)
    batch = check_batch(batch)
    pooled = np.concatenate([xa, ya])
    n_x, n_total = xa.size, pooled.size
    v = pooled - pooled.mean()  # S1 = sum of v over the x-group; statistic = S1 (1/n_x + 1/n_y)
    n_comb = math.comb(n_total, n_x)
    exact = n_comb <= n_resamples
    total = n_comb if exact else n_resamples
    obs = float(v[:n_x].sum())
    tol = float(_tolerance(np.abs(v).sum(), n_total))
    rows = _rows_per_batch(batch, 24 * n_total, total)
    count = 0
    for a in range(0, total, rows):
        b = min(a + rows, total)
        z = (_combination_rows(n_total, n_x, a, b) if exact
             else _random_subset_rows(n_total, n_x, seed_i, a, b))
        s = z @ v
        if alternative == "two-sided":
            count += int((np.abs(s) >= abs(obs) - tol).sum())
        elif alternative == "greater":
            count += int((s >= obs - tol).sum())
        else:
            count += int((s <= obs + tol).sum())
    p = float(_count_to_p(np.asarray(count), total, exact))
    est = unscale(float(xa.mean() - ya.mean()), e, "difference in means")
    return TestResult(
        test="permutation test", statistic=est, pvalue=p, alternative=alternative, n=n_x,
        n_y=ya.size, estimate=est, method="exact" if exact else "monte-carlo",
        n_resamples=total, seed=None if exact else seed_i, estimate_name="difference in means",
    )


# --------------------------------------------------------------------------- bootstrap


@dataclass(frozen=True)
class BootstrapIndices:
    """The resampling matrix of a (paired) bootstrap: B rows of n indices drawn with replacement.

    Index (r, j) = floor(u * n) with u = (word >> 11) * 2^-53 from raw PCG64(seed) word
    r*n + j (bias <= n * 2^-53). Batches are regenerated on demand and applied to many pairs
    through the multiplicity matrix: bootstrap means = counts @ d / n.
    """

    n: int
    n_resamples: int = 10_000
    seed: int | None = 0

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, (int, np.integer)) or self.n < 1:
            raise StatsInputError(f"n must be a positive integer; got {self.n!r}")
        object.__setattr__(self, "n", int(self.n))
        object.__setattr__(self, "n_resamples", check_n_resamples(self.n_resamples))
        object.__setattr__(self, "seed", check_seed(self.seed))

    def _uniforms(self, start: int, stop: int, out: np.ndarray) -> np.ndarray:
        """u = (word >> 11) * 2^-53 for raw words start*n .. stop*n - 1 (Generator.random)."""
        bg = np.random.PCG64(self.seed)
        if start:
            bg.advance(start * self.n)
        u = out.reshape(-1)[: (stop - start) * self.n]
        np.random.Generator(bg).random(out=u)
        return u

    def indices(self, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` as an int64 index matrix."""
        n, rows = self.n, stop - start
        u = self._uniforms(start, stop, np.empty(rows * n))
        u *= n
        idx = u.astype(np.int64)  # truncation = floor (u >= 0)
        np.minimum(idx, n - 1, out=idx)
        return idx.reshape(rows, n)

    def counts(self, start: int, stop: int, out: np.ndarray | None = None) -> np.ndarray:
        """Rows ``start:stop`` as float64 multiplicities (how often each item is drawn).

        ``out`` (at least rows x n float64) is used as work space and holds the result.
        """
        n, rows = self.n, stop - start
        res = np.empty((rows, n)) if out is None else out[:rows]
        u = self._uniforms(start, stop, res)
        u *= n
        # flat bin of (row, index): row * n + floor(u * n), index clipped to n - 1
        np.floor(u, out=u)
        np.minimum(u, n - 1, out=u)
        u.reshape(rows, n)[...] += (np.arange(rows, dtype=np.float64) * n)[:, None]
        c = np.bincount(u.astype(np.int64), minlength=rows * n)
        np.copyto(res.reshape(-1), c)
        return res

    def batches(self, batch: int | None = None) -> Iterator[tuple[int, int]]:
        """(start, stop) row ranges of at most ``batch`` rows (default: ~64 MB per batch)."""
        rows = _rows_per_batch(check_batch(batch), 32 * self.n, self.n_resamples)
        for a in range(0, self.n_resamples, rows):
            yield a, min(a + rows, self.n_resamples)

    def means(
        self,
        diffs: object,
        batch: int | None = None,
        advance: Callable[[int], object] | None = None,
    ) -> np.ndarray:
        """Bootstrap means, shape (n_resamples, pairs), for every row of ``diffs``
        (``advance(rows)`` is called after each batch)."""
        d = _as_matrix(diffs)
        if d.shape[1] != self.n:
            raise StatsInputError(
                f"diffs has {d.shape[1]} items per pair; BootstrapIndices has n={self.n}"
            )
        dt = np.ascontiguousarray(d.T)
        out = np.empty((self.n_resamples, d.shape[0]))
        buf: np.ndarray | None = None
        for a, b in self.batches(batch):
            if buf is None:
                buf = np.empty((b - a, self.n))
            np.matmul(self.counts(a, b, out=buf), dt, out=out[a:b])
            if advance is not None:
                advance(b - a)
        out /= self.n
        return out


_CI_METHODS = ("bca", "percentile")


def _bca_levels(
    d: np.ndarray, theta_hat: np.ndarray, theta_b: np.ndarray, alpha: float,
    jack: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """BCa quantile levels (Efron & Tibshirani 1993, eq. 14.10; as scipy.stats.bootstrap).

    z0 = Phi^-1((#{theta* < theta} + #{theta* <= theta}) / 2B); acceleration from the jackknife
    of the mean, theta_(i) = (sum d - d_i)/(n - 1) (or the given ``jack`` values, e.g. leaving
    out one cluster): a = sum U^3 / (6 (sum U^2)^1.5), U_i = mean(theta_(.)) - theta_(i).
    """
    from scipy.special import ndtr, ndtri  # lazy: scipy.special is slow to import

    big_b = theta_b.shape[0]
    frac = ((theta_b < theta_hat).sum(axis=0) + (theta_b <= theta_hat).sum(axis=0)) / (2.0 * big_b)
    z0 = ndtri(frac)
    if jack is None:
        n = d.shape[1]
        jack = (d.sum(axis=1, keepdims=True) - d) / (n - 1)
    u = jack.mean(axis=1, keepdims=True) - jack
    num = (u**3).sum(axis=1)
    den = (u**2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        a_hat = np.where(den > 0, num / (6.0 * np.where(den > 0, den, 1.0) ** 1.5), 0.0)
        z_lo, z_hi = float(ndtri(alpha)), -float(ndtri(alpha))
        lvl_lo = ndtr(z0 + (z0 + z_lo) / (1.0 - a_hat * (z0 + z_lo)))
        lvl_hi = ndtr(z0 + (z0 + z_hi) / (1.0 - a_hat * (z0 + z_hi)))
    return lvl_lo, lvl_hi


def _bootstrap_core(
    d: np.ndarray,
    theta_b: np.ndarray,
    alternative: str,
    level: float,
    ci_method: str,
    clusters: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """p-values and interval bounds for every pair given the bootstrap means (B x pairs).

    ``clusters`` (the cluster bootstrap, :mod:`ranger_eval.stats.clustered`): (theta,
    tolerance, leave-one-cluster-out jackknife values, rows whose cluster means are all equal)
    replace those computed from the items of ``d``."""
    n = d.shape[1]
    big_b = theta_b.shape[0]
    if clusters is None:
        theta = d.mean(axis=1)
        tol = _tolerance(np.abs(d).mean(axis=1), n)
        jack, constant = None, np.ptp(d, axis=1) == 0
    else:
        theta, tol, jack, constant = clusters
    shifted = theta_b - theta  # bootstrap null distribution of the mean, centred at 0
    if alternative == "two-sided":
        count = (np.abs(shifted) >= np.abs(theta) - tol).sum(axis=0)
    elif alternative == "greater":
        count = (shifted >= theta - tol).sum(axis=0)
    else:
        count = (shifted <= theta + tol).sum(axis=0)
    pvalue = (1.0 + count) / (1.0 + big_b)

    alpha = (1.0 - level) / 2.0 if alternative == "two-sided" else 1.0 - level
    lvl_lo = np.full(theta.shape, alpha)
    lvl_hi = np.full(theta.shape, 1.0 - alpha)
    if ci_method == "bca":
        b_lo, b_hi = _bca_levels(d, theta, theta_b, alpha, jack)
        ok = np.isfinite(b_lo) & np.isfinite(b_hi)  # z0 = +-inf: fall back to percentile
        lvl_lo = np.where(ok, b_lo, lvl_lo)
        lvl_hi = np.where(ok, b_hi, lvl_hi)
    lo = np.empty_like(theta)
    hi = np.empty_like(theta)
    for j in range(theta.size):  # quantile levels differ per pair under BCa
        lo[j], hi[j] = np.quantile(theta_b[:, j], [lvl_lo[j], lvl_hi[j]])
    lo = np.where(constant, theta, lo)
    hi = np.where(constant, theta, hi)
    if alternative == "greater":
        hi = np.full_like(hi, np.inf)
    elif alternative == "less":
        lo = np.full_like(lo, -np.inf)
    return pvalue, lo, hi, theta


def paired_bootstrap_many(
    diffs: object,
    *,
    alternative: str = "two-sided",
    n_resamples: int = 10_000,
    seed: int | None = 0,
    level: float = 0.95,
    ci_method: str = "bca",
    batch: int | None = None,
    indices: BootstrapIndices | None = None,
    advance: Callable[[int], object] | None = None,
) -> ManyTestResult:
    """:func:`paired_bootstrap` for every row of ``diffs`` (pairs × n) with one index matrix.

    Parameters
    ----------
    diffs : array_like
        Paired differences, one row per pair of systems.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The side of every test and interval.
    n_resamples : int, default 10000
        Resamples drawn (all arrangements are enumerated when there are no more than this).
    seed : int or None, default 0
        Seed of the PCG64 stream (the same seed gives the same p-value for any ``batch``).
    batch : int, optional
        Resamples per batch (default: what fits in ``BATCH_BYTES``).
    level : float, default 0.95
        Confidence level of the intervals.
    ci_method : {"bca", "percentile"}, default "bca"
        The bootstrap interval.
    indices : BootstrapIndices, optional
        An index matrix to reuse (then ``n_resamples`` and ``seed`` are its own).
    advance : callable, optional
        Called with the number of resamples after each batch (progress bars).

    Returns
    -------
    ManyTestResult
        Arrays of ``estimate`` (mean difference), ``pvalue``, ``ci_low``, ``ci_high``.

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993), An Introduction to the Bootstrap, Chapman & Hall,
    ch. 13–14 (percentile and BCa intervals) and sec. 16.4 (the shifted-null p-value);
    Berg-Kirkpatrick, T., Burkett, D. & Klein, D. (2012), "An empirical investigation of statistical
    significance in NLP", EMNLP.

    Examples
    --------
    >>> import numpy as np
    >>> diffs = np.array([[0.11, 0.02, 0.08, 0.05, 0.07, -0.01],
    ...                   [0.01, -0.02, 0.03, 0.00, -0.01, 0.02]])
    >>> from ranger_eval.stats import paired_bootstrap_many
    >>> r = paired_bootstrap_many(diffs, n_resamples=2000)
    >>> r.pvalue.round(4).tolist()
    [0.002, 0.5647]
    >>> r.ci_low.round(4).tolist(), r.ci_high.round(4).tolist()
    ([0.02, -0.0083], [0.0833, 0.0183])
    """
    check_alternative(alternative)
    check_choice("ci_method", ci_method, _CI_METHODS)
    level = check_level(level)
    d = _as_matrix(diffs)
    e = row_exponents(d)
    d = scaled_rows(e, d)[0]  # rows of extreme differences · 2^-e (exact)
    if indices is None:
        indices = BootstrapIndices(d.shape[1], n_resamples, seed)
    theta_b = indices.means(d, batch, advance)
    pvalue, lo, hi, theta = _bootstrap_core(d, theta_b, alternative, level, ci_method)
    if e.any():
        theta = unscale_array(theta, e, "mean difference")
        lo = unscale_array(lo, e, "lower confidence bound")
        hi = unscale_array(hi, e, "upper confidence bound")
    return ManyTestResult(
        test="paired bootstrap", statistic=theta, pvalue=pvalue, alternative=alternative,
        n=d.shape[1], method=ci_method, n_resamples=indices.n_resamples, seed=indices.seed,
        estimate=theta.copy(), ci_low=lo, ci_high=hi, level=level,
        estimate_name="mean difference",
    )


def paired_bootstrap(
    x: object,
    y: object | None = None,
    *,
    alternative: str = "two-sided",
    n_resamples: int = 10_000,
    seed: int | None = 0,
    level: float = 0.95,
    ci_method: str = "bca",
    batch: int | None = None,
) -> TestResult:
    """Paired bootstrap of the mean difference: interval and a p-value.

    Items are resampled with replacement (the pairs stay together). Interval: percentile or BCa,
    computed like ``scipy.stats.bootstrap`` (linear quantiles; one-sided intervals use
    alpha = 1 - level). p-value by the shift method: the centred bootstrap means theta* - theta
    approximate the null distribution, two-sided p = (1 + #{|theta* - theta| >= |theta|})/(1 + B).
    Constant differences: the interval is the point itself. If the BCa bias correction is infinite
    (every bootstrap mean on one side of the estimate, possible only for tiny n) the percentile
    interval is returned for that pair.

    Parameters
    ----------
    x, y : array_like
        Paired scores aligned by item, or ``x`` alone as the differences.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` scores higher.
    n_resamples : int, default 10000
        Resamples drawn (all arrangements are enumerated when there are no more than this).
    seed : int or None, default 0
        Seed of the PCG64 stream (the same seed gives the same p-value for any ``batch``).
    batch : int, optional
        Resamples per batch (default: what fits in ``BATCH_BYTES``).
    level : float, default 0.95
        Confidence level of the interval.
    ci_method : {"bca", "percentile"}, default "bca"
        The bootstrap interval.

    Returns
    -------
    TestResult
        ``estimate`` mean difference, ``pvalue``, ``ci_low``, ``ci_high``, ``method`` (the
        interval), ``n_resamples``, ``seed``.

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993), An Introduction to the Bootstrap, Chapman & Hall,
    ch. 13–14 (percentile and BCa intervals) and sec. 16.4 (the shifted-null p-value);
    Berg-Kirkpatrick, T., Burkett, D. & Klein, D. (2012), "An empirical investigation of statistical
    significance in NLP", EMNLP.

    Examples
    --------
    >>> from ranger_eval.stats import paired_bootstrap
    >>> x = [0.81, 0.62, 0.90, 0.55, 0.73, 0.68]
    >>> y = [0.70, 0.60, 0.82, 0.50, 0.66, 0.69]
    >>> r = paired_bootstrap(x, y, n_resamples=2000)
    >>> round(r.pvalue, 4), round(r.ci_low, 4), round(r.ci_high, 4)
    (0.002, 0.02, 0.0833)
    """
    d, e = paired_scaled(x, y)  # x - y = d · 2^e
    r = paired_bootstrap_many(
        d[None, :], alternative=alternative, n_resamples=n_resamples, seed=seed, level=level,
        ci_method=ci_method, batch=batch,
    )[0]
    if e == 0:
        return r
    est, lo, hi = (unscale(float(v), e, w) for v, w in (
        (r.statistic, "mean difference"), (r.ci_low if r.ci_low is not None else math.nan,
                                           "lower confidence bound"),
        (r.ci_high if r.ci_high is not None else math.nan, "upper confidence bound")))
    return dataclasses.replace(r, statistic=est, estimate=est, ci_low=lo, ci_high=hi)
