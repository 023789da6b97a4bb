"""effect_sizes over many datasets in one columnar pass: the same numbers as
effect_size per dataset, the same errors and warnings, extreme scores, and linear scaling."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranger_eval.effects import MEASURES, EffectSizeError, effect_size, effect_sizes
from ranger_eval.errors import ScoresError
from ranger_eval.scores import Scores


def _table(k: int, seed: int = 0, n_lo: int = 4, n_hi: int = 12) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(k):
        n = int(rng.integers(n_lo, n_hi + 1))
        base = rng.normal(0.5, 0.2, n)
        a = base + rng.normal(0, 0.1, n)
        b = base + rng.normal(0.05, 0.1, n)
        items = [f"q{i}" for i in rng.permutation(n)]  # rows in a shuffled order
        rows += [(f"d{d}", "A", it, x) for it, x in zip(items, a, strict=True)]
        rows += [(f"d{d}", "B", it, x) for it, x in zip(items[::-1], b[::-1], strict=True)]
    df = pd.DataFrame(rows, columns=["dataset", "system", "item", "value"])
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _degenerate(df: pd.DataFrame) -> pd.DataFrame:
    """Add datasets hitting every degenerate case of effect_size."""
    extra = []
    cases = {
        "identical": ([1.0, 2.0, 4.0, 3.0], [1.0, 2.0, 4.0, 3.0]),
        "shift": ([1.5, 2.5, 4.5, 3.5], [1.0, 2.0, 4.0, 3.0]),
        "const_t": ([2.0, 2.0, 2.0, 2.0], [1.0, 2.0, 4.0, 3.0]),
        "scaled": ([2.0, 4.0, 8.0, 6.0], [1.0, 2.0, 4.0, 3.0]),
    }
    for name, (b, a) in cases.items():
        for i, (x, y) in enumerate(zip(b, a, strict=True)):
            extra += [(name, "B", f"q{i}", x), (name, "A", f"q{i}", y)]
    return pd.concat([df, pd.DataFrame(extra, columns=df.columns)], ignore_index=True)


def _one_by_one(scores: Scores, measure: str):
    out = []
    for d in scores.datasets:
        p = scores.pair(d, "B", "A")
        try:
            e = effect_size(p.treatment, p.control, measure=measure, dataset=d)
            out.append((e.yi, e.vi, e.mean_treatment, e.mean_control, e.n))
        except EffectSizeError as exc:
            out.append(str(exc))
    return out


@pytest.mark.parametrize("measure", MEASURES)
def test_columnar_pass_equals_effect_size_per_dataset_bit_for_bit(measure):
    scores = Scores(_table(40, seed=1))
    eff = effect_sizes(scores, treatment="B", control="A", measure=measure)
    ref = _one_by_one(scores, measure)
    assert eff.names == scores.datasets
    for i, r in enumerate(ref):
        assert (eff.yi[i], eff.vi[i], eff.mean_treatment[i], eff.mean_control[i], eff.n[i]) == r


@pytest.mark.parametrize("measure", MEASURES)
def test_degenerate_datasets_get_effect_size_answer_or_its_error(measure):
    scores = Scores(_degenerate(_table(5, seed=2)))
    ref = _one_by_one(scores, measure)
    errors = [r for r in ref if isinstance(r, str)]
    if errors:
        # one error naming every degenerate dataset with effect_size's own reason
        with pytest.raises(EffectSizeError) as exc:
            effect_sizes(scores, treatment="B", control="A", measure=measure)
        message = str(exc.value)
        assert message.startswith(f"{len(errors)} of {len(ref)} dataset(s) have no defined "
                                  f"{measure} effect: ")
        for e in errors:
            name, reason = re.fullmatch(rf"dataset '(\w+)', measure {measure}: (.*)", e).groups()
            assert f"'{name}' ({reason})" in message
        assert "degenerate='drop'" in message
    else:
        eff = effect_sizes(scores, treatment="B", control="A", measure=measure)
        got = list(zip(eff.yi, eff.vi, eff.mean_treatment, eff.mean_control, eff.n, strict=True))
        assert got == ref
    # degenerate="drop": the same numbers for the others; every degenerate one named once
    with pytest.warns(UserWarning, match=rf"left out \d+ of {len(ref)} dataset\(s\)") as rec:
        eff = effect_sizes(scores, treatment="B", control="A", measure=measure, degenerate="drop")
    assert len(rec) == 1
    for d, r in zip(scores.datasets, ref, strict=True):
        if isinstance(r, str) or r[1] == 0.0:
            assert d in eff.skipped and d not in eff.names and d in str(rec[0].message)
        else:
            i = eff.names.index(d)
            assert (eff.yi[i], eff.vi[i], eff.mean_treatment[i], eff.mean_control[i],
                    eff.n[i]) == r
    assert set(eff.skipped) == {d for d, r in zip(scores.datasets, ref, strict=True)
                                if isinstance(r, str) or r[1] == 0.0}
    assert eff.skipped  # "identical" (MD, SMD, SMCR) or an undefined effect (SMCC, ZCOR)


def test_dataset_selection_and_order():
    scores = Scores(_table(6, seed=3))
    eff = effect_sizes(scores, treatment="B", control="A", measure="MD", datasets=["d4", "d1"])
    assert eff.names == ("d4", "d1")
    p = scores.pair("d1", "B", "A")
    assert eff.yi[1] == effect_size(p.treatment, p.control, measure="MD").yi


def test_missing_items_error_and_intersect_warning_as_pair():
    df = _table(3, seed=4)
    df = df.drop(df.index[(df["dataset"] == "d1") & (df["system"] == "B")][:2])
    scores = Scores(df)
    with pytest.raises(ScoresError) as exc:
        scores.pair("d1", "B", "A")
    with pytest.raises(ScoresError) as exc2:
        effect_sizes(scores, treatment="B", control="A")
    assert str(exc2.value) == str(exc.value)
    with pytest.warns(UserWarning, match=r"dataset 'd1': dropped 2 item\(s\) not scored for both"):
        eff = effect_sizes(scores, treatment="B", control="A", measure="MD", missing="intersect")
    assert eff.dropped == {"d1": 2}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = scores.pair("d1", "B", "A", missing="intersect")
    assert eff.n[1] == p.n and eff.yi[1] == effect_size(p.treatment, p.control, measure="MD").yi


def test_missing_system_and_several_metrics_errors_as_pair():
    df = _table(3, seed=5)
    df = df[~((df["dataset"] == "d2") & (df["system"] == "A"))]
    with pytest.raises(ScoresError, match=r"system 'A' has no scores on dataset 'd2'"):
        effect_sizes(Scores(df), treatment="B", control="A")
    df2 = _table(2, seed=6)
    df2["metric"] = np.where(df2.index % 2 == 0, "m1", "m2")
    with pytest.raises(ScoresError, match=r"dataset 'd0' has several metrics"):
        effect_sizes(Scores(df2), treatment="B", control="A")


def test_metric_argument_selects_rows():
    a = _table(3, seed=7).assign(metric="acc")
    b = _table(3, seed=8).assign(metric="f1")
    scores = Scores(pd.concat([a, b], ignore_index=True))
    eff = effect_sizes(scores, treatment="B", control="A", measure="MD", metric="f1")
    ref = effect_sizes(Scores(b), treatment="B", control="A", measure="MD", datasets=eff.names)
    np.testing.assert_array_equal(eff.yi, ref.yi)
    assert eff.metric == "f1" and eff.metrics == ("f1",) * 3


@pytest.mark.parametrize("scale", [1e-200, 1e-250, 1e200, 1e250])
@pytest.mark.parametrize("measure", ["SMD", "SMCC", "SMCR", "ZCOR"])
def test_standardised_effects_are_scale_free_at_extreme_magnitudes(scale, measure):
    rng = np.random.default_rng(9)
    t, c = rng.normal(1.0, 0.3, 25), rng.normal(0.8, 0.3, 25)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow/underflow RuntimeWarning
        ref = effect_size(t, c, measure=measure)
        big = effect_size(t * scale, c * scale, measure=measure)
    assert big.yi == pytest.approx(ref.yi, rel=1e-12)
    assert big.vi == pytest.approx(ref.vi, rel=1e-12)


def test_md_at_extreme_magnitudes_is_exact_or_a_clear_error():
    rng = np.random.default_rng(10)
    t, c = rng.normal(1.0, 0.3, 25), rng.normal(0.8, 0.3, 25)
    ref = effect_size(t, c, measure="MD")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tiny = effect_size(t * 2.0**-700, c * 2.0**-700, measure="MD")
        assert tiny.yi == pytest.approx(ref.yi * 2.0**-700, rel=1e-12)
        with pytest.raises(EffectSizeError, match=r"dataset 'x', measure MD: the effect .* overflows"):
            effect_size(t * 1e300, -c * 1e300, measure="MD", dataset="x")


def test_many_datasets_are_fast_enough_to_be_linear():
    """k = 3,000 datasets: the columnar pass must not scan the table per dataset (the old loop
    took ~80 s here); asserts the result, not the time."""
    scores = Scores(_table(3000, seed=11, n_lo=5, n_hi=8))
    eff = effect_sizes(scores, treatment="B", control="A", measure="SMD")
    assert eff.k == 3000 and np.all(np.isfinite(eff.yi)) and np.all(eff.vi > 0)
    p = scores.pair("d2999", "B", "A")
    assert eff.yi[eff.names.index("d2999")] == effect_size(p.treatment, p.control, measure="SMD").yi


_KINDS = ("random", "identical", "shift", "const", "tiny")


@st.composite
def _mixed_tables(draw: st.DrawFn) -> pd.DataFrame:
    """Datasets of random, identical, shifted, constant-control and too-small (n = 2) scores."""
    kinds = draw(st.lists(st.sampled_from(_KINDS), min_size=1, max_size=8))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    rows = []
    for d, kind in enumerate(kinds):
        n = 2 if kind == "tiny" else int(rng.integers(4, 12))
        a = rng.normal(size=n)
        b = {"identical": a, "shift": a + 0.5, "const": rng.normal(size=n)}.get(
            kind, rng.normal(size=n))
        if kind == "const":
            a = np.full(n, 0.25)
        rows += [(f"d{d}", "A", f"q{i}", float(a[i])) for i in range(n)]
        rows += [(f"d{d}", "B", f"q{i}", float(b[i])) for i in range(n)]
    return pd.DataFrame(rows, columns=["dataset", "system", "item", "value"])


@settings(max_examples=40, deadline=None)
@given(frame=_mixed_tables(), measure=st.sampled_from(MEASURES))
def test_drop_keeps_exactly_the_well_defined_datasets(frame, measure):
    """degenerate='drop' = effect_size on each dataset alone, minus those it refuses or gives
    vi = 0; 'error' raises iff effect_size refuses one, naming every refused dataset."""
    scores = Scores(frame)
    ref = dict(zip(scores.datasets, _one_by_one(scores, measure), strict=True))
    refused = [d for d, r in ref.items() if isinstance(r, str)]
    left_out = [d for d, r in ref.items() if isinstance(r, str) or r[1] == 0.0]
    kept = [d for d in scores.datasets if d not in left_out]
    if refused:
        with pytest.raises(EffectSizeError) as info:
            effect_sizes(scores, treatment="B", control="A", measure=measure)
        assert all(f"'{d}' (" in str(info.value) for d in refused)
    if not kept:
        with pytest.raises(EffectSizeError, match="none is left"):
            effect_sizes(scores, treatment="B", control="A", measure=measure, degenerate="drop")
        return
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        eff = effect_sizes(scores, treatment="B", control="A", measure=measure, degenerate="drop")
    assert eff.names == tuple(kept) and list(eff.skipped) == left_out
    assert len(rec) == (1 if left_out else 0)
    for i, d in enumerate(kept):
        assert (eff.yi[i], eff.vi[i], eff.mean_treatment[i], eff.mean_control[i],
                eff.n[i]) == ref[d]
