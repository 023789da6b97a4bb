"""ranger_eval.llm.agreement: Krippendorff's α, Cohen's and Fleiss' κ against their peers
(tests/oracles/agreement_oracle.py), the bootstrap, the settings and the errors."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.errors import SettingsError, StatsInputError
from ranger_eval.llm.agreement import ratings_table


@pytest.fixture(scope="module")
def oracle(oracles):
    return json.loads((oracles / "agreement_oracle.json").read_text())


def _table(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["item", "rater", "value"]).astype({"value": float})


def test_krippendorff_equals_the_krippendorff_package(oracle):
    cases = [c for c in oracle["cases"] if c["method"] == "krippendorff"]
    assert len(cases) >= 4
    for case in cases:
        table = _table(case["table"])
        for scale, expected in case["expected"].items():
            got = rg.agreement(table, scale=scale, n_resamples=0).estimate
            assert got == pytest.approx(expected, abs=1e-10), (case["name"], scale)


def test_cohen_equals_sklearn(oracle):
    cases = [c for c in oracle["cases"] if c["method"] == "cohen"]
    for case in cases:
        for weights, expected in case["expected"].items():
            got = rg.agreement(_table(case["table"]), method="cohen", n_resamples=0,
                               weights=None if weights == "None" else weights).estimate
            assert got == pytest.approx(expected, abs=1e-10), (case["name"], weights)


def test_fleiss_equals_statsmodels(oracle):
    cases = [c for c in oracle["cases"] if c["method"] == "fleiss"]
    for case in cases:
        got = rg.agreement(_table(case["table"]), method="fleiss", n_resamples=0).estimate
        assert got == pytest.approx(case["expected"]["None"], abs=1e-10), case["name"]


def _likert(n_items=40, n_raters=4, seed=0, missing=0.2):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, n_items)
    x = np.clip(truth[:, None] + rng.integers(-1, 2, (n_items, n_raters)), 1, 5).astype(float)
    x[rng.random(x.shape) < missing] = np.nan
    return x, pd.DataFrame({"item": np.repeat(np.arange(n_items), n_raters),
                            "rater": np.tile([f"r{r}" for r in range(n_raters)], n_items),
                            "value": x.ravel()})


@pytest.mark.parametrize("scale", ["nominal", "ordinal", "interval", "ratio"])
def test_bootstrap_rounds_equal_krippendorff_on_the_same_resamples(scale):
    """Each vectorised round is krippendorff.alpha on the resampled table."""
    krippendorff = pytest.importorskip("krippendorff")
    x, table = _likert()
    result = rg.agreement(table, scale=scale, n_resamples=25, seed=3, level=0.5)
    rng = np.random.default_rng(3)
    draws = rng.integers(0, x.shape[0], size=(25, x.shape[0]))
    peer = np.array([krippendorff.alpha(x[d].T, level_of_measurement=scale) for d in draws])
    assert result.low == pytest.approx(np.quantile(peer, 0.25), abs=1e-10)
    assert result.high == pytest.approx(np.quantile(peer, 0.75), abs=1e-10)


def test_interval_contains_the_estimate_and_is_reproducible():
    _, table = _likert(60)
    a = rg.agreement(table, scale="ordinal", n_resamples=300, seed=1)
    b = rg.agreement(table, scale="ordinal", n_resamples=300, seed=1)
    assert a == b and a.low < a.estimate < a.high
    assert a.signature == b.signature and "coef:krippendorff" in a.signature
    assert a.n_raters == 4 and a.n_items == 60 and a.resample == "item"


def test_item_and_rater_order_do_not_change_the_estimate():
    _, table = _likert(30)
    shuffled = table.sample(frac=1, random_state=2)
    shuffled["rater"] = shuffled["rater"].map({"r0": "z", "r1": "y", "r2": "x", "r3": "w"})
    for scale in ("nominal", "interval"):
        assert rg.agreement(shuffled, scale=scale, n_resamples=0).estimate == pytest.approx(
            rg.agreement(table, scale=scale, n_resamples=0).estimate, abs=1e-12)


def test_clusters_are_the_resampling_unit():
    _, table = _likert(40, missing=0.0)
    table["cluster"] = table["item"] // 4
    result = rg.agreement(table, n_resamples=50)
    assert result.resample == "cluster(cluster)" and result.columns["cluster"] == "cluster"


def test_scores_table_uses_its_system_column_as_rater():
    _, table = _likert(20, missing=0.0)
    scores = table.rename(columns={"rater": "system"}).assign(dataset="d")
    result = rg.agreement(scores, n_resamples=0)
    assert result.columns["rater"] == "system"
    assert result.estimate == pytest.approx(rg.agreement(table, n_resamples=0).estimate)


def test_labels_are_nominal_categories():
    table = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
                          "value": ["yes", "yes", "no", "yes", "no", "no"]})
    assert rg.agreement(table, method="cohen", n_resamples=0).estimate == pytest.approx(
        (2 / 3 - 4 / 9) / (1 - 4 / 9))


def test_settings_object_and_keywords():
    settings = rg.AgreementSettings(method="cohen", weights="linear", n_resamples=0)
    _, table = _likert(20, n_raters=2, missing=0.0)
    assert rg.agreement(table, settings=settings).settings is settings
    with pytest.raises(SettingsError, match="given together"):
        rg.agreement(table, settings=settings, level=0.9)
    with pytest.raises(SettingsError, match="weights"):
        rg.agreement(table, weights="linear")


def test_errors_name_what_is_wrong():
    _, table = _likert(20, n_raters=3, missing=0.0)
    with pytest.raises(StatsInputError, match="exactly two raters.*'r0', 'r1', 'r2'"):
        rg.agreement(table, method="cohen")
    uneven = table.drop(index=[0])
    with pytest.raises(StatsInputError, match="item 0 has 2"):
        rg.agreement(uneven, method="fleiss")
    with pytest.raises(StatsInputError, match="undefined"):
        rg.agreement(table.assign(value=3.0))
    with pytest.raises(StatsInputError, match="one rater only"):
        rg.agreement(table[table.rater == "r0"])
    nothing = table.copy()
    nothing.loc[nothing.rater == "r2", "value"] = np.nan
    with pytest.raises(StatsInputError, match="'r2' rated nothing"):
        rg.agreement(nothing)
    with pytest.raises(StatsInputError, match="more than once"):
        rg.agreement(pd.concat([table, table.iloc[:1]]))


def test_undefined_rounds_are_counted_and_warned():
    table = _table([[1, "a", 1], [1, "b", 1], [2, "a", 1], [2, "b", 1], [3, "a", 0],
                    [3, "b", 1]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = rg.agreement(table, n_resamples=200)
    assert result.n_undefined > 0 and any("undefined" in str(w.message) for w in caught)


def test_result_views():
    _, table = _likert(20)
    result = rg.agreement(table, n_resamples=20)
    assert list(result.to_frame().columns[:3]) == ["coefficient", "scale", "weights"]
    d = result.to_dict()
    assert d["signature"] == str(result.signature) and d["raters"] == ["r0", "r1", "r2", "r3"]
    assert "Krippendorff's α (nominal)" in result.summary()
    assert ratings_table(table).values.shape == (20, 4)


# --------------------------------------------------------------------------- invariances
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       case=st.sampled_from([("krippendorff", "nominal", None), ("krippendorff", "ordinal", None),
                             ("krippendorff", "interval", None), ("krippendorff", "ratio", None),
                             ("fleiss", "nominal", None), ("cohen", "nominal", None),
                             ("cohen", "nominal", "quadratic")]))
def test_row_order_and_relabelling_leave_the_coefficient_unchanged(seed, case):
    method, scale, weights = case
    rng = np.random.default_rng(seed)
    n_raters = 2 if method == "cohen" else int(rng.integers(2, 6))
    missing = 0.2 if method == "krippendorff" else 0.0
    _, table = _likert(n_items=int(rng.integers(8, 40)), n_raters=n_raters, seed=seed,
                       missing=missing)
    kwargs = {"method": method, "scale": scale, "weights": weights, "n_resamples": 0}
    try:
        expected = rg.agreement(table, **kwargs).estimate
    except StatsInputError:  # every rating equal: undefined whatever the order or labels
        return
    shuffled = table.sample(frac=1.0, random_state=int(rng.integers(2**31)))
    assert rg.agreement(shuffled, **kwargs).estimate == pytest.approx(expected, abs=1e-12)
    raters = dict(zip(sorted(table["rater"].unique()),
                      rng.permutation([f"judge-{k}" for k in range(n_raters)]), strict=True))
    relabelled = table.assign(rater=table["rater"].map(raters))
    assert rg.agreement(relabelled, **kwargs).estimate == pytest.approx(expected, abs=1e-12)
    items = dict(zip(sorted(table["item"].unique()),
                     rng.permutation(table["item"].nunique()) * 7 + 1000, strict=True))
    renamed = table.assign(item=table["item"].map(items).astype(str) + "-q")
    assert rg.agreement(renamed, **kwargs).estimate == pytest.approx(expected, abs=1e-12)
