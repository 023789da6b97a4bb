"""Property tests of the grouped verdicts behind ``ranger-eval aso`` and ``bayes``: at most one
direction of a pair dominates, a printed ε_min is on the side of τ it is on, the Bayesian
probabilities are a distribution and swap with the systems' order."""
from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.verdicts.aso import aso_groups, format_epsilon, threshold_text
from ranger_eval.verdicts.bayes import correlated_ttests


@settings(max_examples=40, deadline=None)
@given(k=st.integers(2, 4), n=st.integers(5, 9), spread=st.floats(0.0, 0.05),
       seed=st.integers(0, 2**16), threshold=st.floats(0.01, 0.5))
def test_at_most_one_direction_of_a_pair_dominates(k: int, n: int, spread: float, seed: int,
                                                   threshold: float) -> None:
    rng = np.random.default_rng(seed)
    rows = [("d", f"s{i}", str(r), 0.5 + spread * i + rng.normal(0, 0.02))
            for i in range(k) for r in range(n)]
    runs = pd.DataFrame(rows, columns=["dataset", "system", "seed", "value"]).assign(metric="m")
    res = aso_groups(runs, n_resamples=40, seed=seed % 1000, threshold=threshold)
    eps = res.groups[0].matrix.to_numpy()
    off = ~np.eye(k, dtype=bool)
    assert np.all((eps >= 0) & (eps <= 1)) and not np.isnan(eps).any()
    assert np.all((eps + eps.T)[off] >= 1 - 1e-12)   # ε_min(A, B) + ε_min(B, A) ≥ 1
    verdicts = res.groups[0].verdicts(threshold)
    assert len(verdicts) == k * (k - 1) // 2
    assert sum("dominates" in v for v in verdicts) == int(np.sum((eps < threshold) & off))


@given(eps=st.floats(0, 1), tau=st.floats(0.001, 0.5))
def test_printed_epsilon_is_on_its_side_of_tau(eps: float, tau: float) -> None:
    shown = float(format_epsilon(eps, tau))
    assert (shown < tau) == (eps < tau)
    assert (shown < float(threshold_text(tau))) == (eps < tau)   # and of τ as printed


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 6), runs=st.integers(1, 3), rope=st.floats(0, 0.05),
       seed=st.integers(0, 2**16))
def test_bayes_probabilities_are_a_distribution_and_swap(n: int, runs: int, rope: float,
                                                          seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows = [("d", s, f"f{f}", str(r), 0.8 + 0.01 * (s == "b") + rng.normal(0, 0.01))
            for s in ("a", "b") for r in range(runs) for f in range(n)]
    scores = rg.Scores(pd.DataFrame(rows, columns=["dataset", "system", "item", "seed",
                                                   "value"]))
    ab = correlated_ttests(scores, rope=rope).groups[0].results[0]
    ba = correlated_ttests(scores, rope=rope, systems=["b", "a"]).groups[0].results[0]
    assert abs(sum(ab.probabilities) - 1) < 1e-12
    assert ab.names == ("a", "b") and ba.names == ("b", "a")
    # the same posterior mirrored (1 − cdf on one side, cdf on the other: rounding only)
    np.testing.assert_allclose([ab.p_left, ab.p_rope, ab.p_right],
                               [ba.p_right, ba.p_rope, ba.p_left], rtol=1e-9, atol=1e-15)
