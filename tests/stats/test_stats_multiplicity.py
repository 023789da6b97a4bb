"""adjust_pvalues against statsmodels.stats.multitest.multipletests."""
from __future__ import annotations

import numpy as np
import pytest

from ranger_eval.errors import RenamedKeywordError
from ranger_eval.stats import ADJUST_METHODS, StatsInputError, adjust_pvalues
from tests.helpers.multitest import multipletests

METHODS = [m for m in ADJUST_METHODS if m != "none"]


def _pvalues(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 60))
    p = np.concatenate([rng.uniform(0, 1, m), rng.uniform(0, 0.01, int(rng.integers(0, 8)))])
    if seed % 4 == 0:
        p = np.round(p, 2)  # ties, exact zeros and ones
    return rng.permutation(p)


@pytest.mark.parametrize("seed", range(24))
@pytest.mark.parametrize("method", METHODS)
def test_adjust_equals_statsmodels(seed: int, method: str) -> None:
    p = _pvalues(seed)
    alpha = (0.05, 0.1)[seed % 2]
    ours = adjust_pvalues(p, correction=method, level=1 - alpha)
    with np.errstate(divide="ignore"):  # statsmodels' Šidák steps: log1p(-1) at p = 1
        ref = multipletests(p, alpha=alpha, method=method)[1]
    np.testing.assert_allclose(ours, ref, rtol=1e-10, atol=1e-12)
    assert np.all((0 <= ours) & (ours <= 1))


def test_aliases_shapes_and_none() -> None:
    p = np.array([[0.01, 0.04], [0.03, 0.2]])
    assert adjust_pvalues(p, correction="BH").shape == (2, 2)
    np.testing.assert_array_equal(adjust_pvalues(p, correction="bh"), adjust_pvalues(p, correction="fdr_bh"))
    np.testing.assert_array_equal(adjust_pvalues(p, correction="hochberg"), adjust_pvalues(p, correction="simes-hochberg"))
    np.testing.assert_array_equal(adjust_pvalues(p, correction="none"), p)
    assert adjust_pvalues([], correction="holm").size == 0
    # Holm (1979) worked example: 0.01, 0.04, 0.03, 0.2 -> 0.04, 0.09, 0.09, 0.2
    np.testing.assert_allclose(adjust_pvalues([0.01, 0.04, 0.03, 0.2], correction="holm"), [0.04, 0.09, 0.09, 0.2])


def test_invalid_pvalues_rejected() -> None:
    with pytest.raises(StatsInputError, match="index 1"):
        adjust_pvalues([0.1, np.nan], correction="holm")
    with pytest.raises(StatsInputError, match="1.5"):
        adjust_pvalues([0.1, 1.5], correction="holm")


def test_old_keywords_name_their_replacements() -> None:
    with pytest.raises(TypeError, match="'method': it is called 'correction' now"):
        adjust_pvalues([0.01, 0.2], method="holm")  # type: ignore[call-arg]
    with pytest.raises(RenamedKeywordError, match="'alpha': it is called 'level' now"):
        adjust_pvalues([0.01, 0.2], alpha=0.05)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="positional"):
        adjust_pvalues([0.01, 0.2], "holm")  # type: ignore[misc]
