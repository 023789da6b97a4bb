"""Style-controlled Bradley–Terry (``bradley_terry(covariates=)``, verdicts/bt_covariates.py)
against statsmodels (tests/oracles/bt_style_oracle.py), and its reading of covariates."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.errors import RangerError, SettingsError
from ranger_eval.io.battles import encode_battles
from ranger_eval.verdicts.bt_covariates import standardise

ORACLE = json.loads((Path(__file__).resolve().parents[1] / "oracles" /
                     "bt_style_oracle.json").read_text())["fixtures"]
NAMES = [f["name"] for f in ORACLE]


def fixture(name: str) -> dict:
    return next(f for f in ORACLE if f["name"] == name)


def battles(name: str) -> pd.DataFrame:
    return pd.DataFrame(fixture(name)["battles"])


def _rel(ours: np.ndarray, theirs: np.ndarray) -> float:
    return float(np.max(np.abs(ours - theirs) / np.maximum(np.abs(theirs), 1e-300)))


@pytest.mark.parametrize("name", NAMES)
def test_ratings_and_coefficients_equal_statsmodels(name):
    f = fixture(name)
    r = rg.bradley_terry(battles(name), covariates=f["covariates"], n_resamples=0)
    assert list(r.ratings.index) == f["models"]
    assert _rel(r.ratings.to_numpy(), np.array(f["ratings"])) < 1e-9
    coef = r.coefficients
    assert list(coef["covariate"]) == f["covariates"]
    assert _rel(coef["estimate"].to_numpy(), np.array(f["coefficients"])) < 1e-7
    assert _rel(coef["se_model"].to_numpy(), np.array(f["se_model"])) < 1e-7
    assert _rel(r.se_model.to_numpy(), np.array(f["rating_se_model"])) < 1e-7
    if f["unweighted"]:
        assert _rel(coef["se"].to_numpy(), np.array(f["se"])) < 1e-7
        assert _rel(r.se.to_numpy(), np.array(f["rating_se"])) < 1e-7
        assert f["logit_max_abs_diff"] < 1e-10   # Logit and GLM agree on the design


def test_uncontrolled_ratings_are_the_plain_fit_side_by_side():
    frame = battles("continuous")
    r = rg.bradley_terry(frame, covariates=["length", "bold"], n_resamples=0)
    plain = rg.bradley_terry(frame, n_resamples=0)
    assert r.uncontrolled is not None
    np.testing.assert_allclose(r.uncontrolled.ratings.to_numpy(), plain.ratings.to_numpy(),
                               rtol=0, atol=1e-9)
    board = r.to_frame()
    assert {"rating", "rating_uncontrolled", "ci_low_uncontrolled",
            "rank_low_uncontrolled"} <= set(board.columns)
    row = board.set_index("model").loc["model-a"]
    assert row["rating_uncontrolled"] == pytest.approx(plain.ratings["model-a"], abs=1e-9)
    d = r.to_dict()
    assert d["covariates"] == ["length", "bold"]
    assert [c["covariate"] for c in d["coefficients"]] == ["length", "bold"]
    assert "covariates:length,bold" in str(r.signature)
    assert "covariates" not in str(plain.signature)


def test_bootstrap_is_reproducible_and_covers_the_estimate():
    frame = battles("discrete")
    r1 = rg.bradley_terry(frame, covariates=["length"], n_resamples=60, seed=3)
    r2 = rg.bradley_terry(frame, covariates="length", n_resamples=60, seed=3)
    np.testing.assert_array_equal(r1.bootstrap, r2.bootstrap)
    coef = r1.coefficients.iloc[0]
    assert coef["ci_low"] < coef["estimate"] < coef["ci_high"]
    assert (r1.ci_low < r1.ratings).all() and (r1.ratings < r1.ci_high).all()
    assert r1.n_resamples_failed == 0 and r1.bootstrap.shape == (60, 4)
    # the uncontrolled fit keeps the plain bootstrap (same seed)
    plain = rg.bradley_terry(frame, n_resamples=60, seed=3)
    np.testing.assert_allclose(r1.uncontrolled.bootstrap, plain.bootstrap, atol=1e-6)


def test_pairs_and_ready_differences_agree():
    frame = battles("continuous")
    diff = frame.assign(length=(frame.length_a - frame.length_b)
                        / (frame.length_a + frame.length_b + 1))
    diff = diff.drop(columns=["length_a", "length_b"])
    by_pair = rg.bradley_terry(frame, covariates=["length"], n_resamples=0)
    by_diff = rg.bradley_terry(diff, covariates=["length"], n_resamples=0)
    np.testing.assert_allclose(by_pair.ratings, by_diff.ratings, atol=1e-9)
    assert list(by_pair.coefficients["kind"]) == ["pair"]
    assert list(by_diff.coefficients["kind"]) == ["difference"]


def test_relabelling_rows_and_sides_changes_nothing():
    frame = battles("continuous")
    r = rg.bradley_terry(frame, covariates=["length", "headers"], n_resamples=0)
    swapped = frame.rename(columns={"model_a": "model_b", "model_b": "model_a",
                                    "length_a": "length_b", "length_b": "length_a"})
    swapped["winner"] = swapped["winner"].map({"model_a": "model_b", "model_b": "model_a",
                                               "tie": "tie"})
    swapped["headers"] = -swapped["headers"]
    swapped = swapped.sample(frac=1.0, random_state=0)
    s = rg.bradley_terry(swapped, covariates=["length", "headers"], n_resamples=0)
    np.testing.assert_allclose(s.ratings, r.ratings, atol=1e-8)
    # the sign of each difference flips with the sides: the standardised effect does not
    np.testing.assert_allclose(s.coefficients["estimate"], r.coefficients["estimate"],
                               atol=1e-9)


def test_standardise_is_lmarena_population_sd():
    z = np.array([[1.0], [2.0], [4.0]])
    out, mean, sd = standardise(z, np.array([1.0, 2.0, 1.0]), ("x",))
    full = np.array([1.0, 2.0, 2.0, 4.0])
    assert mean[0] == pytest.approx(full.mean()) and sd[0] == pytest.approx(full.std())
    np.testing.assert_allclose(out[:, 0], (z[:, 0] - full.mean()) / full.std())


def test_bad_covariates_are_named():
    frame = battles("continuous").head(300)
    with pytest.raises(RangerError, match="unknown covariate 'lenght'.*did you mean"):
        rg.bradley_terry(frame, covariates=["lenght"], n_resamples=0)
    nan = frame.copy()
    nan.loc[5, "headers"] = np.nan
    with pytest.raises(RangerError, match=r"covariate headers: column headers: missing value nan at row 5"):
        rg.bradley_terry(nan, covariates=["headers"], n_resamples=0)
    const = frame.assign(headers=2.0)
    with pytest.raises(RangerError, match=r"'headers'.*constant"):
        rg.bradley_terry(const, covariates=["headers"], n_resamples=0)
    neg = frame.copy()
    neg.loc[3, "length_a"] = -1
    with pytest.raises(RangerError, match=r"length_a/length_b must be ≥ 0.*row 3"):
        rg.bradley_terry(neg, covariates=["length"], n_resamples=0)
    with pytest.raises(SettingsError, match="ties='half'"):
        rg.bradley_terry(frame, covariates=["length"], ties="davidson", n_resamples=0)


def test_battles_read_with_other_covariates_are_refused():
    enc = encode_battles(battles("discrete"), covariates=("length",))
    assert enc.covariate_names == ("length",) and enc.covariates.shape[1] == 1
    with pytest.raises(RangerError, match="read with covariates"):
        rg.bradley_terry(enc, covariates=["bold"], n_resamples=0)
