"""The confidence-sequence kernels against confseq (tests/oracles/confseq_oracle.py) and their
invariants."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.special import logsumexp

from ranger_eval.errors import StatsInputError
from ranger_eval.stats import confseq as C

ORACLE = json.loads((Path(__file__).parents[1] / "oracles" / "confseq_oracle.json").read_text())
FIXTURES = ORACLE["fixtures"]


def _close(ours: np.ndarray, theirs: list[float]) -> None:
    np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("fx", FIXTURES, ids=[f["name"] for f in FIXTURES])
def test_betting_equals_confseq(fx: dict) -> None:
    x = np.asarray(fx["x"])
    lo, hi = C.betting_cs(x, alpha=fx["alpha"], n_population=fx["N"])
    _close(lo, fx["betting"]["lower"])
    _close(hi, fx["betting"]["upper"])


def _mixture_param(fx: dict) -> object:
    """Long streams of many distinct values take the windowed path (~0.5 s): slow tier."""
    slow = len(fx["x"]) >= 1000 and len(set(fx["x"])) > 16
    return pytest.param(fx, id=fx["name"], marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("fx", [_mixture_param(f) for f in FIXTURES])
def test_mixture_equals_confseq(fx: dict) -> None:
    """The mixture of constant bets equals confseq's betting_cs with those bets as its
    lambdas_fns (diversified_betting_mart, equal weights), with and without replacement."""
    assert tuple(fx["mixture"]["bets"]) == pytest.approx(C.MIXTURE_BETS, rel=1e-15)
    lo, hi = C.mixture_cs(np.asarray(fx["x"]), alpha=fx["alpha"], n_population=fx["N"])
    _close(lo, fx["mixture"]["lower"])
    _close(hi, fx["mixture"]["upper"])


@pytest.mark.slow  # the whole grid × ten bettors: about 1 s
def test_mixture_windowed_grid_equals_the_whole_grid() -> None:
    """The certified windows give the whole-grid answer for the mixture too."""
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.random(300) < 0.3, rng.beta(2, 2, 300)])  # many values: windows
    lo, hi = C.mixture_cs(x)
    grid = np.arange(0, 1 + 1 / C.BREAKS, 1 / C.BREAKS)[:, None, None]
    lam = np.asarray(C.MIXTURE_BETS)[None, :, None]
    with np.errstate(divide="ignore"):
        kp = np.cumsum(np.log1p(np.minimum(lam, 0.5 / grid) * (x - grid)), axis=2)
        kn = np.cumsum(np.log1p(-np.minimum(lam, 0.5 / (1 - grid)) * (x - grid)), axis=2)
    kp = logsumexp(kp, axis=1) - np.log(lam.size)
    kn = logsumexp(kn, axis=1) - np.log(lam.size)
    inside = (kp <= np.log(40)) & (kn <= np.log(40))
    g = grid[:, 0, 0]
    first = g[np.argmax(inside, axis=0)]
    last = g[inside.shape[0] - 1 - np.argmax(inside[::-1], axis=0)]
    np.testing.assert_allclose(lo, np.maximum(first - 0.001, 0))
    np.testing.assert_allclose(hi, np.minimum(last + 0.001, 1))


@pytest.mark.parametrize("fx", [f for f in FIXTURES if "hoeffding" in f],
                         ids=[f["name"] for f in FIXTURES if "hoeffding" in f])
def test_hoeffding_equals_confseq(fx: dict) -> None:
    lo, hi = C.hoeffding_cs(np.asarray(fx["x"]), alpha=fx["alpha"], t_opt=fx["hoeffding"]["t_opt"])
    _close(lo, fx["hoeffding"]["lower"])
    _close(hi, fx["hoeffding"]["upper"])


@pytest.mark.parametrize("fx", [f for f in FIXTURES if "empirical_bernstein" in f],
                         ids=[f["name"] for f in FIXTURES if "empirical_bernstein" in f])
def test_empirical_bernstein_equals_confseq(fx: dict) -> None:
    eb = fx["empirical_bernstein"]
    lo, hi = C.empirical_bernstein_cs(np.asarray(fx["x"]), alpha=fx["alpha"], v_opt=eb["v_opt"])
    _close(lo, eb["lower"])
    _close(hi, eb["upper"])


def test_windowed_grid_equals_the_whole_grid() -> None:
    """The certified windows give exactly the whole-grid answer (a long stream, past the first
    blocks, with a mean that drifts so windows must move)."""
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.random(700) < 0.3, rng.random(700) < 0.8]).astype(float)
    lo, hi = C.betting_cs(x)
    grid = np.arange(0, 1 + 1 / C.BREAKS, 1 / C.BREAKS)
    lam = C.predmix_bets(x, 0.025)
    kp = np.cumsum(np.log1p(np.minimum(lam, 0.5 / np.maximum(grid[:, None], 1e-300))
                            * (x - grid[:, None])), axis=1)
    kn = np.cumsum(np.log1p(-np.minimum(lam, 0.5 / np.maximum(1 - grid[:, None], 1e-300))
                            * (x - grid[:, None])), axis=1)
    inside = (kp <= np.log(40)) & (kn <= np.log(40))
    first = grid[np.argmax(inside, axis=0)]
    last = grid[inside.shape[0] - 1 - np.argmax(inside[::-1], axis=0)]
    np.testing.assert_allclose(lo, np.maximum(first - 0.001, 0))
    np.testing.assert_allclose(hi, np.minimum(last + 0.001, 1))


def test_exact_variant_lies_within_one_grid_step() -> None:
    x = (np.random.default_rng(5).random(150) < 0.4).astype(float)
    lo, hi = C.betting_cs(x)
    elo, ehi = C.betting_cs(x, exact=True)
    assert np.all(elo >= lo - 1e-12) and np.all(ehi <= hi + 1e-12)
    assert np.all(elo - lo <= 2e-3) and np.all(hi - ehi <= 2e-3)


def test_exact_refuses_long_streams() -> None:
    with pytest.raises(StatsInputError, match="exact=True"):
        C.betting_cs(np.zeros(5000), exact=True)


def test_without_replacement_shrinks_to_the_mean_when_every_item_is_seen() -> None:
    x = (np.random.default_rng(7).random(200) < 0.5).astype(float)
    lo, hi = C.betting_cs(x, n_population=200)
    assert lo[-1] == pytest.approx(x.mean()) and hi[-1] == pytest.approx(x.mean())


def test_mirror_symmetry() -> None:
    """The sequence of 1 − x is the mirror image of the sequence of x."""
    x = np.random.default_rng(9).beta(2, 3, 800)
    lo, hi = C.betting_cs(x)
    mlo, mhi = C.betting_cs(1 - x)
    np.testing.assert_allclose(mlo, 1 - hi, atol=1.5e-3)
    np.testing.assert_allclose(mhi, 1 - lo, atol=1.5e-3)


@pytest.mark.slow  # the windowed reference: about 0.5 s (the 0/1 oracle fixtures cover the path)
def test_mixture_counts_path_equals_the_windows_and_its_tail() -> None:
    """Few distinct values: the counted bisection gives the windows' grid answer; the tail of a
    growing stream equals the whole sequence's tail."""
    rng = np.random.default_rng(12)
    x = np.concatenate([rng.integers(0, 3, 500) / 2, (rng.random(500) < 0.8) * 1.0])
    lo, hi = C.mixture_cs(x)
    glo, ghi = C._grid_cs(x, 0.05, None, C.BREAKS, bets=C.MIXTURE_BETS)
    np.testing.assert_array_equal(lo, glo)
    np.testing.assert_array_equal(hi, ghi)
    tlo, thi = C.mixture_cs_tail(x, 700)
    np.testing.assert_array_equal(tlo, lo[700:])
    np.testing.assert_array_equal(thi, hi[700:])
