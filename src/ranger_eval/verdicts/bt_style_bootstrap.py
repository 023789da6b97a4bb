"""The bootstrap of the style-controlled Bradley–Terry fit (:mod:`.bt_covariates`), many rounds
at once.

**Resampling** (FastChat ``compute_bootstrap_style_control``: each round draws N battle rows
uniformly with replacement). A round is the number of copies c_r of every distinct battle row
(identical (model_a, model_b, outcome, weight, covariates) rows merged): when every battle is
its own distinct row (continuous covariates such as lengths) the N battle indices are drawn
uniformly with replacement and counted, the battles numbered in the order of their distinct
rows sorted by model pair; otherwise c_r is drawn as one multinomial (N battles, probabilities
count/N) — both are the multinomial distribution of FastChat's row resampling. Round r draws
from its own stream ``SeedSequence(seed).spawn(n_rounds)[r]``, so a round's draws, and its
refit, do not depend on the other rounds, the batching or the number of threads: the
bootstrap is bit-for-bit the same for a seed.

**Refit** (a chord Newton method): round r maximises Σ_i c_ri w_i [y_i s_i − log(1 + e^{s_i})]
with s_i = θ_a − θ_b + z_iᵀβ, starting at the whole data's estimate x̂ and iterating
x ← x + H⁻¹ g_r(x), H the whole data's information at x̂ (one Cholesky factor for every
round) and g_r the round's gradient. The round's own information differs from H by
O(1/√N) and by O(‖x_r − x̂‖), so each step shrinks the error by that factor (about 0.02 at a
million battles among 100 models: the steps run 5e-2, 4e-4, 1e-5, 2e-7, 5e-9); a round
stops when its largest step is below 1e-8 (its remaining error is then about the next step,
~1e-10 on the log-odds scale, 1e-8 Elo). The first gradient, at x̂, is linear in the counts
(the residuals y − σ(ŝ) are the whole data's); every later one is one pass over the rows.
A round that does not settle in 40 steps is refitted alone by Newton with step halving
(:func:`.bt_covariates._newton`), and one in which a model has no battle, or whose estimate is
not finite (some group never lost, a covariate separates wins from losses), is left out and
counted.

**Layout.** The distinct rows are sorted by model pair, so a gradient pass over a block of
rows × rounds is: the pair's rating difference repeated over its rows plus Zβ (one matrix
product), σ, the residual times the counts, a segment sum per pair (``np.add.reduceat``) and
Zᵀ(residuals) (one matrix product) — the model block of the gradient is then the pair sums
scattered to the two models (a pairs × models incidence matrix). Rows are processed in blocks
of about 2²⁰ floats per batch of rounds; the counts are kept as bytes when they fit.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy import sparse
from scipy.linalg import cho_factor, cho_solve
from scipy.special import expit

__all__ = ["style_bootstrap"]

_ROUNDS = 32              # rounds refitted together
_BLOCK = 1 << 16          # rows × rounds floats per block of a pass (in cache)
_TOL_CHORD = 1e-8         # a round stops when its largest step is below this
_MAX_STEPS = 40



@functools.cache
def _pool() -> ThreadPoolExecutor:
    """Two threads for the row blocks of a gradient pass (NumPy's loops release the GIL),
    started at the first style-controlled bootstrap, not when the module is imported."""
    return ThreadPoolExecutor(max_workers=2, thread_name_prefix="ranger-bt")

Refit = Callable[[np.ndarray], "tuple[np.ndarray, bool]"]


class _Layout:
    """The distinct rows sorted by model pair, and the pairs' incidence."""

    def __init__(self, a: np.ndarray, b: np.ndarray, y: np.ndarray, w: np.ndarray,
                 z: np.ndarray, p: int) -> None:
        pair = a * p + b
        self.order = np.argsort(pair, kind="stable")
        sp = pair[self.order]
        self.starts = np.flatnonzero(np.r_[True, sp[1:] != sp[:-1]])
        self.seg = np.cumsum(np.r_[True, sp[1:] != sp[:-1]]) - 1     # row → its pair segment
        self.pa, self.pb = a[self.order][self.starts], b[self.order][self.starts]
        self.y = y[self.order]
        self.w = w[self.order]
        self.weighted = not np.all(self.w == 1.0)
        self.z = np.ascontiguousarray(z[self.order])
        self.m = a.size
        self.p = p
        n_seg = self.starts.size
        cols = np.r_[np.arange(n_seg), np.arange(n_seg)]
        self.incidence = sparse.csr_matrix(
            (np.r_[np.ones(n_seg), -np.ones(n_seg)], (np.r_[self.pa, self.pb], cols)),
            shape=(p, n_seg))
        self.touch = abs(self.incidence)

    def blocks(self, n_rounds: int) -> list[tuple[int, int, np.ndarray, int, int]]:
        """Row blocks [lo, hi) with their segment starts (relative to lo) and segment range."""
        size = max(1024, _BLOCK // max(n_rounds, 1))
        out = []
        for lo in range(0, self.m, size):
            hi = min(self.m, lo + size)
            s0, s1 = int(self.seg[lo]), int(self.seg[hi - 1])
            local = np.r_[0, self.starts[s0 + 1:s1 + 1] - lo].astype(np.intp)
            out.append((lo, hi, local, s0, s1 + 1))
        return out

    def gradient(self, x: np.ndarray, counts: np.ndarray, resid: np.ndarray | None = None
                 ) -> np.ndarray:
        """Gradients (rounds × (p + k)) of the rounds' log-likelihoods at their parameters x
        (rounds × (p + k)); ``resid`` (the whole data's w(y − σ(ŝ)), sorted) when every round
        is at x̂ (the first step: linear in the counts). Row blocks run on two threads; their
        sums are added in block order (the same result whatever thread ran a block)."""
        r_n = counts.shape[0]
        seg_sum = np.zeros((r_n, self.starts.size))
        g_cov = np.zeros((r_n, self.z.shape[1]))
        blocks = self.blocks(r_n)
        parts = _pool().map(lambda blk: self._block(x, counts, resid, *blk), blocks)
        for (_lo, _hi, _local, s0, s1), (seg_part, cov_part) in zip(blocks, parts, strict=True):
            seg_sum[:, s0:s1] += seg_part
            g_cov += cov_part
        g_model = np.asarray((self.incidence @ seg_sum.T).T)
        return np.concatenate([g_model, g_cov], axis=1)

    def _block(self, x: np.ndarray, counts: np.ndarray, resid: np.ndarray | None, lo: int,
               hi: int, local: np.ndarray, s0: int, s1: int) -> tuple[np.ndarray, np.ndarray]:
        """One row block's segment sums and Zᵀ(residuals) (:meth:`gradient`)."""
        zc = self.z[lo:hi]
        if resid is not None:
            s = counts[:, lo:hi] * resid[lo:hi]
        else:
            p = self.p
            diff = x[:, self.pa[s0:s1]] - x[:, self.pb[s0:s1]]
            s = x[:, p:] @ zc.T
            s += np.repeat(diff, np.diff(np.r_[local, hi - lo]), axis=1)
            np.negative(s, out=s)      # σ(s) = 1 / (1 + e^{−s}) (e^{−s} = inf gives 0)
            with np.errstate(over="ignore"):
                np.exp(s, out=s)
            s += 1.0
            np.reciprocal(s, out=s)
            np.subtract(self.y[lo:hi], s, out=s)
            if self.weighted:
                s *= self.w[lo:hi]
            np.multiply(s, counts[:, lo:hi], out=s)
        return np.add.reduceat(s, local, axis=1), s @ zc

    def seen(self, draw: np.ndarray) -> bool:
        """Whether every model has a battle in a round (its counts, sorted)."""
        per_seg = np.add.reduceat(draw, self.starts)
        return bool(np.all(self.touch @ per_seg > 0))


def style_bootstrap(a: np.ndarray, b: np.ndarray, y: np.ndarray, w: np.ndarray, z: np.ndarray,
                    count: np.ndarray, p: int, ref: int, x: np.ndarray, info: np.ndarray,
                    n_rounds: int, seed: int, refit: Refit) -> tuple[np.ndarray, int]:
    """Bootstrap parameters (good rounds × (p + k)) and the number of rounds left out (module
    docstring). ``info``: the whole data's information without the ``ref`` row and column;
    ``refit(counts)``: Newton with step halving from x̂ for one round's counts (in the
    distinct rows' own order), the fallback."""
    if n_rounds == 0:
        return np.empty((0, x.size)), 0
    lay = _Layout(a, b, y, w, z, p)
    n = int(count.sum())
    every_own = count.size == n            # every battle its own distinct row
    probs = count[lay.order] / n
    streams = np.random.SeedSequence(seed).spawn(n_rounds)
    free = np.flatnonzero(np.arange(x.size) != ref)
    chol = cho_factor(info)
    s_hat = x[a] - x[b] + z @ x[p:]
    resid = (w * (y - expit(s_hat)))[lay.order]
    out = np.full((n_rounds, x.size), np.nan)
    back = np.empty(lay.m, dtype=np.intp)
    back[lay.order] = np.arange(lay.m)      # distinct row → its sorted position
    for start in range(0, n_rounds, _ROUNDS):
        rounds = range(start, min(n_rounds, start + _ROUNDS))
        draws = np.empty((len(rounds), lay.m), dtype=np.int64)
        ok = np.empty(len(rounds), dtype=bool)
        for j, r in enumerate(rounds):
            rng = np.random.default_rng(streams[r])
            if every_own:
                draws[j] = np.bincount(rng.integers(0, n, n), minlength=n)
            else:
                draws[j] = rng.multinomial(n, probs)
            ok[j] = lay.seen(draws[j])
        counts = draws.astype(np.uint8) if draws.max() < 256 else draws.astype(np.float64)
        est = np.repeat(x[None], len(rounds), axis=0)
        active = np.flatnonzero(ok)
        grad = lay.gradient(est[active], counts[active], resid=resid)
        redo = []
        for _ in range(_MAX_STEPS):
            step = cho_solve(chol, grad[:, free].T).T
            est[np.ix_(active, free)] += step
            finite = np.all(np.isfinite(est[active]), axis=1)
            redo.extend(active[~finite])
            active = active[finite & (np.max(np.abs(step), axis=1) >= _TOL_CHORD)]
            if not active.size:
                break
            grad = lay.gradient(est[active], counts[active])
        for j in sorted([*redo, *active]):   # not settled: Newton with step halving, alone
            est[j], ok[j] = refit(draws[j][back].astype(np.float64))
        good = ok & np.all(np.isfinite(est), axis=1)
        out[start:start + len(rounds)][good] = est[good]
    keep = np.all(np.isfinite(out), axis=1)
    return out[keep], int((~keep).sum())
