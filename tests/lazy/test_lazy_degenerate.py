"""The lazy engine's effect sizes with degenerate datasets: every one named in
one error, or left out with degenerate="drop", exactly as the in-memory effect_sizes does."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("duckdb", reason="ranger_eval.lazy needs duckdb (the 'large' extra; in 'test')")

from ranger_eval import effect_sizes  # noqa: E402
from ranger_eval.errors import EffectSizeError  # noqa: E402
from ranger_eval.lazy import open_scores  # noqa: E402


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    rows = []
    for d, kind in [("ok1", "ok"), ("same", "same"), ("ok2", "ok"), ("const", "const"),
                    ("tiny", "tiny")]:
        n = 2 if kind == "tiny" else 9
        a = np.full(n, 0.5) if kind == "const" else rng.random(n)
        b = a if kind == "same" else rng.random(n)
        rows += [(d, "A", f"q{i}", float(a[i])) for i in range(n)]
        rows += [(d, "B", f"q{i}", float(b[i])) for i in range(n)]
    return pd.DataFrame(rows, columns=["dataset", "system", "item", "value"])


@pytest.mark.parametrize("measure", ["MD", "SMD", "ZCOR"])
def test_lazy_degenerate_policies_match_in_memory(tmp_path, measure):
    df = _frame()
    path = tmp_path / "s.parquet"
    df.to_parquet(path, index=False)
    lazy = open_scores(path)
    try:
        want = effect_sizes(df, treatment="B", control="A", measure=measure)
    except EffectSizeError as exc:
        with pytest.raises(EffectSizeError) as info:
            lazy.effect_sizes(treatment="B", control="A", measure=measure)
        assert str(info.value) == str(exc)
        assert "'tiny' (needs at least" in str(exc)
    else:  # MD: only too few items is undefined for MD, and tiny has n = 2 (MD's minimum)
        got = lazy.effect_sizes(treatment="B", control="A", measure=measure)
        np.testing.assert_allclose(got.yi, want.yi, rtol=1e-12)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        want = effect_sizes(df, treatment="B", control="A", measure=measure, degenerate="drop")
        got = lazy.effect_sizes(treatment="B", control="A", measure=measure, degenerate="drop")
    assert got.names == want.names and got.skipped == want.skipped and got.skipped
    np.testing.assert_allclose(got.yi, want.yi, rtol=1e-12)
    np.testing.assert_allclose(got.vi, want.vi, rtol=1e-12)
    said = [str(w.message) for w in rec if "left out" in str(w.message)]
    assert len(said) == 2 and said[0] == said[1]
    with pytest.raises(EffectSizeError, match="unknown degenerate 'skip'"):
        lazy.effect_sizes(treatment="B", control="A", measure=measure, degenerate="skip")
