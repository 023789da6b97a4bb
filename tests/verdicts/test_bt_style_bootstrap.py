"""The batched bootstrap of the style-controlled Bradley–Terry fit: each round equals its own
exact refit, and the rounds do not depend on the batching."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ranger_eval.errors import VerdictError
from ranger_eval.io.battles import encode_battles
from ranger_eval.verdicts import bt_style_bootstrap
from ranger_eval.verdicts.bt_covariates import _distinct, _newton, fit_covariates, standardise


def _battles(n: int = 3000, seed: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    names = np.array(["a", "b", "c", "d", "e"])
    i = rng.integers(0, 5, n)
    j = (i + rng.integers(1, 5, n)) % 5
    la, lb = rng.integers(20, 800, n), rng.integers(20, 800, n)
    s = np.linspace(-0.5, 0.5, 5)[i] - np.linspace(-0.5, 0.5, 5)[j] + (la - lb) / (la + lb)
    u = rng.random(n)
    winner = np.where(u < 0.1, "tie", np.where(u < 0.1 + 0.9 / (1 + np.exp(-s)), "model_a",
                                               "model_b"))
    return pd.DataFrame({"model_a": names[i], "model_b": names[j], "winner": winner,
                         "length_a": la, "length_b": lb})


@pytest.mark.parametrize("continuous", [False, True])
def test_each_round_is_its_own_converged_refit(continuous: bool) -> None:
    frame = _battles()
    if continuous:   # every battle its own distinct row: battle indices drawn uniformly
        frame["length_a"] = frame["length_a"] + np.linspace(0.0, 0.5, len(frame))
    enc = encode_battles(frame, what="t", error=VerdictError, covariates=("length",))
    fit = fit_covariates(enc, 0, 20, 7)
    assert fit.n_failed == 0 and fit.boot.shape == (20, 6)
    # redo round r by hand: its own stream, the multinomial over the distinct rows in their
    # pair-sorted order, refitted by Newton with step halving to 1e-13
    a, b, y, w, z_raw, count = _distinct(enc)
    n = int(count.sum())
    assert (count.size == n) == continuous
    z = standardise(z_raw, count, ("length",))[0]
    order = np.argsort(a * 5 + b, kind="stable")
    streams = np.random.SeedSequence(7).spawn(20)
    for r in (0, 13, 19):
        rng = np.random.default_rng(streams[r])
        drawn = (np.bincount(rng.integers(0, n, n), minlength=n) if count.size == n
                 else rng.multinomial(n, count[order] / n)).astype(float)
        c = np.empty_like(drawn)
        c[order] = drawn
        exact, ok = _newton(a, b, y, z, c * w, 5, 0, fit.x, tol=1e-13, line_search=True)
        assert ok
        np.testing.assert_allclose(fit.boot[r], exact, rtol=0, atol=1e-9)


def test_rounds_do_not_depend_on_the_batching(monkeypatch: pytest.MonkeyPatch) -> None:
    enc = encode_battles(_battles(), what="t", error=VerdictError, covariates=("length",))
    base = fit_covariates(enc, 0, 12, 3).boot
    monkeypatch.setattr(bt_style_bootstrap, "_ROUNDS", 5)
    monkeypatch.setattr(bt_style_bootstrap, "_BLOCK", 4096)
    again = fit_covariates(enc, 0, 12, 3).boot
    np.testing.assert_allclose(again, base, rtol=0, atol=1e-12)
    # the first rounds of a longer bootstrap are the shorter one's rounds
    longer = fit_covariates(enc, 0, 30, 3).boot
    np.testing.assert_allclose(longer[:12], base, rtol=0, atol=1e-12)


def test_discrete_covariates_draw_the_multinomial_over_distinct_rows() -> None:
    frame = _battles()
    frame["length_a"] = frame["length_a"] // 400
    frame["length_b"] = frame["length_b"] // 400
    enc = encode_battles(frame, what="t", error=VerdictError, covariates=("length",))
    fit = fit_covariates(enc, 0, 15, 1)
    assert fit.n_distinct * 8 <= len(frame) and fit.boot.shape == (15, 6)
    spread = fit.boot.std(axis=0)[1:]
    assert np.all(spread > 0.01) and np.all(np.isfinite(fit.boot))
