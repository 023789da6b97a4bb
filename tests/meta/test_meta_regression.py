"""Meta-regression, subgroup analysis, Egger's regression test and the convergence fallbacks of
ranger_eval.meta against metafor (tests/oracles/metafor_modreg.json), plus API and bad input."""
from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ranger_eval.effects import EffectSizes
from ranger_eval.errors import MetaInputError, RangerError
from ranger_eval.meta import (
    MetaRegressionResult,
    MetaResult,
    RegTestResult,
    SubgroupResult,
    meta_analysis,
    regtest,
    subgroup_analysis,
)
from ranger_eval.signature import FIELDS

FIXTURE = Path(__file__).parents[1] / "oracles" / "metafor_modreg.json"
ORACLE = json.loads(FIXTURE.read_text())
DATASETS = {ds["name"]: ds for ds in ORACLE["datasets"]}

RTOL = 1e-9  # metafor fixtures carry 17 significant digits
ATOL = 1e-12
#: `~ ablat + year` is ill-conditioned (year ≈ 1960 next to the intercept): metafor's own numbers
#: carry relative errors up to ~1e-9 there (ours ~1e-12; see test_ablat_year_in_extended_precision)
RTOL_ILL = 5e-9
COEF = ("estimate", "se", "statistic", "pvalue", "ci_low", "ci_high")
SCALARS = ("tau2", "I2", "H2", "R2", "QE", "QE_pvalue", "QM", "QM_pvalue")


def _close(actual: Any, expected: Any, what: str, rtol: float = RTOL, atol: float = ATOL) -> None:
    a = np.atleast_1d(np.asarray(actual, dtype=float))
    e = np.atleast_1d(np.asarray(expected, dtype=float))
    assert a.shape == e.shape, f"{what}: shape {a.shape} vs metafor {e.shape}"
    ok = np.abs(a - e) <= rtol * np.abs(e) + atol
    assert ok.all(), f"{what}: ours {a[~ok]} vs metafor {e[~ok]}"


def _mods(ds: dict[str, Any], cols: list[str]) -> dict[str, list[Any]]:
    return {c: ds["columns"][c] for c in cols}


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return fn(*args, **kwargs)


def _reg_cases():
    out = []
    for ds in ORACLE["datasets"]:
        for model in ds["models"]:
            for f in model["fits"]:
                cid = f"{ds['name']}-{'+'.join(model['mods'])}-{f['method']}-{f['test']}-{f['level']}"
                out.append(pytest.param(ds["name"], model["mods"], f, id=cid))
    return out


def _sub_cases():
    return [pytest.param(ds["name"], sg["variable"], f,
                         id=f"{ds['name']}-{sg['variable']}-{f['method']}-{f['test']}")
            for ds in ORACLE["datasets"] for sg in ds["subgroups"] for f in sg["fits"]]


def _regtest_cases():
    return [pytest.param(ds["name"], f, id=f"{ds['name']}-{f['model']}-{f['predictor']}-"
                         f"{'+'.join(f['mods'] or ['1'])}-{f['method']}-{f['test']}")
            for ds in ORACLE["datasets"] for f in ds["regtests"]]


def test_fixture_provenance():
    assert ORACLE["metafor_version"].startswith(("3.", "4."))
    assert ORACLE["R_version"].startswith("R version")
    n = sum(len(m["fits"]) for ds in ORACLE["datasets"] for m in ds["models"])
    assert ORACLE["n_fits"] == n >= 300
    formulas = {m["formula"] for m in DATASETS["bcg_logRR"]["models"]}
    assert {"~ablat", "~alloc", "~ablat + year"} <= formulas
    assert {f["method"] for m in DATASETS["bcg_logRR"]["models"] for f in m["fits"]} == {
        "FE", "DL", "HE", "HS", "SJ", "ML", "REML", "EB", "PM"}


# ------------------------------------------------------------------------ meta-regression
@pytest.mark.parametrize(("name", "cols", "fit"), _reg_cases())
def test_meta_regression_matches_metafor(name, cols, fit):
    ds = DATASETS[name]
    res = _quiet(meta_analysis, ds["yi"], ds["vi"], method=fit["method"], test=fit["test"],
                 level=fit["level"], names=ds["slab"], moderators=_mods(ds, cols))
    assert isinstance(res, MetaRegressionResult)
    rtol = RTOL_ILL if "year" in cols else RTOL
    assert list(res.coef_names) == fit["coef_names"]
    assert res.moderators == tuple(cols)
    assert (res.QE_df, res.QM_df, res.QM_ddf) == (fit["QE_df"], fit["QM_df"], fit["QM_ddf"])
    assert res.df == (None if fit["test"] == "z" else fit["QE_df"])
    for key in COEF:
        _close(getattr(res, key), fit[key], key, rtol)
    for key in SCALARS:
        _close(getattr(res, key), fit[key], key, rtol)
    _close(res.tau, math.sqrt(fit["tau2"]), "tau", rtol, atol=1e-6)
    p = res.p
    _close(res.vcov, np.reshape(fit["vcov"], (p, p), order="F"), "vcov", rtol)
    if "weights" in fit:  # stored for test="z" at level 0.95 (they do not depend on the test)
        _close(res.weights, fit["weights"], "weights", rtol)
        _close(res.fitted, fit["fitted"], "fitted", rtol)
    _close(res.tau2_ci, fit["tau2_ci"], "tau2_ci", rtol)
    _close(res.I2_ci, fit["I2_ci"], "I2_ci", rtol)


def test_ablat_year_in_extended_precision():
    """Ours agrees with a 50-digit evaluation of the DL meta-regression to ~1e-12, metafor's to
    ~1e-9 (the reason for RTOL_ILL)."""
    mp = pytest.importorskip("mpmath", reason="mpmath is the high-precision oracle (the 'oracle' extra)")
    mp.mp.dps = 50
    ds = DATASETS["bcg_logRR"]
    y = [mp.mpf(x) for x in ds["yi"]]
    v = [mp.mpf(x) for x in ds["vi"]]
    X = mp.matrix([[1, a, b] for a, b in zip(ds["columns"]["ablat"], ds["columns"]["year"],
                                              strict=True)])
    k, p = len(y), 3

    def wls(w):
        W = mp.diag(w)
        Ai = (X.T * W * X) ** -1
        return Ai * X.T * W * mp.matrix(y), Ai, W

    beta, Ai, W = wls([1 / x for x in v])
    e = [y[i] - sum(X[i, j] * beta[j] for j in range(p)) for i in range(k)]
    qe = sum(W[i, i] * e[i] ** 2 for i in range(k))
    P = W - W * X * Ai * X.T * W
    tau2 = (qe - (k - p)) / sum(P[i, i] for i in range(k))
    beta, Ai, _ = wls([1 / (x + tau2) for x in v])
    res = meta_analysis(ds["yi"], ds["vi"], method="DL", moderators=_mods(ds, ["ablat", "year"]))
    _close(res.tau2, float(tau2), "tau2", 1e-12, 0.0)
    _close(res.estimate, [float(b) for b in beta], "estimate", 1e-11, 0.0)
    _close(res.se, [float(mp.sqrt(Ai[j, j])) for j in range(p)], "se", 1e-11, 0.0)


# ------------------------------------------------------------------------ subgroups
@pytest.mark.parametrize(("name", "variable", "fit"), _sub_cases())
def test_subgroups_match_metafor(name, variable, fit):
    ds = DATASETS[name]
    res = _quiet(subgroup_analysis, ds["yi"], ds["vi"], ds["columns"][variable],
                 method=fit["method"], test=fit["test"], names=ds["slab"])
    assert isinstance(res, SubgroupResult)
    assert list(res.groups) == fit["groups"]
    for g, pg in zip(res.groups, fit["per_group"], strict=True):
        r = res.fits[g]
        assert r.k == pg["k"]
        for key in ("estimate", "se", "tau2", "I2", "Q", "ci_low", "ci_high", "pvalue"):
            _close(getattr(r, key), pg[key], f"{g} {key}")
    for key in ("Q_between", "Q_between_pvalue", "Q_within", "QM", "QM_pvalue"):
        _close(getattr(res, key), fit[key], key)
    assert res.Q_between_df == fit["Q_between_df"] == len(res.groups) - 1
    assert res.regression is not None
    assert (res.regression.QM_df, res.regression.QM_ddf) == (fit["QM_df"], fit["QM_ddf"])
    _close(res.regression.tau2, fit["regression_tau2"], "regression tau2")


# ------------------------------------------------------------------------ regtest
@pytest.mark.parametrize(("name", "fit"), _regtest_cases())
def test_regtest_matches_metafor(name, fit):
    ds = DATASETS[name]
    mods = _mods(ds, fit["mods"]) if fit["mods"] else None
    res = _quiet(meta_analysis, ds["yi"], ds["vi"], method=fit["method"], test=fit["test"],
                 moderators=mods)
    rt = _quiet(regtest, res, model=fit["model"], predictor=fit["predictor"], ni=ds["ni"])
    assert isinstance(rt, RegTestResult)
    assert rt.df == fit["df"]
    _close(rt.statistic, fit["statistic"], "statistic")
    _close(rt.pvalue, fit["pvalue"], "pvalue")
    if fit["est"] is None:
        assert rt.limit_estimate is None and rt.limit_ci_low is None
    else:
        _close([rt.limit_estimate, rt.limit_ci_low, rt.limit_ci_high],
               [fit["est"], fit["ci_low"], fit["ci_high"]], "limit estimate")
    assert (rt.fit is None) == (fit["model"] == "lm")


# ------------------------------------------------------------------------ convergence
def _conv_cases():
    return [pytest.param(c, f, id=f"{c['name']}-{f['method']}")
            for c in ORACLE["convergence"] for f in c["fits"]]


def test_convergence_cases_are_real():
    """Each case fails with metafor's default Fisher scoring for at least one estimator (and
    converges with stepadj = 0.5), for ML, REML and EB, with and without moderators."""
    failing = {(c["x"] is None, f["method"]) for c in ORACLE["convergence"] for f in c["fits"]
               if not f["default_converged"]}
    assert {(True, "ML"), (True, "REML"), (True, "EB"), (False, "REML"), (False, "EB")} <= failing
    for c in ORACLE["convergence"]:
        assert any(not f["default_converged"] for f in c["fits"]), c["name"]
        assert all(f["stepadj_converged"] for f in c["fits"]), c["name"]


@pytest.mark.parametrize(("case", "fit"), _conv_cases())
def test_fisher_scoring_fallback_matches_metafor_stepadj(case, fit):
    res: MetaResult | MetaRegressionResult
    if case["x"] is None:
        res = meta_analysis(case["yi"], case["vi"], method=fit["method"])
        assert isinstance(res, MetaResult)
    else:
        reg = meta_analysis(case["yi"], case["vi"], method=fit["method"],
                            moderators={"x": case["x"]})
        _close(reg.QM, fit["QM"], "QM")
        res = reg
    _close(res.tau2, fit["tau2"], "tau2")
    _close(res.estimate, fit["estimate"], "estimate")
    _close(res.se, fit["se"], "se")
    _close(res.I2, fit["I2"], "I2")


def test_bracketing_fallback_maximises_the_likelihood(monkeypatch):
    """With Fisher scoring disabled entirely, the bracketed maximiser alone reproduces metafor."""
    from ranger_eval import meta
    from ranger_eval.meta import tau2

    monkeypatch.setattr(tau2, "_fisher_iterate", lambda adj_fn, t0, stepadj: None)
    case = next(c for c in ORACLE["convergence"] if c["name"] == "all_oscillate")
    for fit in case["fits"]:
        res = meta.meta_analysis(case["yi"], case["vi"], method=fit["method"])
        _close(res.tau2, fit["tau2"], f"{fit['method']} tau2", rtol=1e-10)
    for ds in (DATASETS["bcg_logRR"], DATASETS["k20"]):
        for method in ("ML", "REML", "EB"):
            ref = next(f for m in ds["models"] if m["mods"] == ["x" if "x" in ds["columns"]
                                                                 else "ablat"]
                       for f in m["fits"] if f["method"] == method and f["test"] == "z")
            cols = ["x"] if "x" in ds["columns"] else ["ablat"]
            reg = meta.meta_analysis(ds["yi"], ds["vi"], method=method,
                                     moderators=_mods(ds, cols))
            _close(reg.tau2, ref["tau2"], f"{method} tau2", rtol=1e-10)


# ------------------------------------------------------------------------ API
BCG = DATASETS["bcg_logRR"]


def _bcg_effects() -> EffectSizes:
    names = tuple(BCG["slab"])
    extra = pd.DataFrame({"ablat": BCG["columns"]["ablat"], "alloc": BCG["columns"]["alloc"],
                          "year": BCG["columns"]["year"]}, index=list(names))
    return EffectSizes(names=names, yi=np.array(BCG["yi"]), vi=np.array(BCG["vi"]),
                       n=np.array(BCG["ni"]), measure="RR", mean_treatment=np.zeros(13),
                       mean_control=np.zeros(13), extra=extra)


def _ref(cols, method="REML", test="z"):
    model = next(m for m in BCG["models"] if m["mods"] == cols)
    return next(f for f in model["fits"] if f["method"] == method and f["test"] == test
                and f["level"] == 0.95)


def test_effectsizes_columns_by_name_and_alignment_by_index():
    es = _bcg_effects()
    by_name = meta_analysis(es, moderators=["ablat", "alloc"])
    _close(by_name.estimate, _ref(["ablat", "alloc"])["estimate"], "estimate")
    assert by_name.measure == "RR" and by_name.effects is es and by_name.names == es.names
    one = meta_analysis(es, moderators="ablat")
    _close(one.QM, _ref(["ablat"])["QM"], "QM")
    # a DataFrame indexed by study name is matched by name, not position
    assert es.extra is not None
    frame = es.extra[["ablat"]].iloc[::-1]
    _close(meta_analysis(es, moderators=frame).estimate, one.estimate, "by index")
    series = pd.Series(BCG["columns"]["ablat"], index=list(BCG["slab"]), name="ablat")
    _close(meta_analysis(es, moderators=series.sample(frac=1, random_state=1)).estimate,
           one.estimate, "series by index")
    # sample size is a moderator too
    assert meta_analysis(es, moderators="n").coef_names == ("intrcpt", "n")


def test_categorical_coding_like_model_matrix():
    y, v = BCG["yi"], BCG["vi"]
    alloc = BCG["columns"]["alloc"]
    res = meta_analysis(y, v, moderators={"alloc": alloc})
    assert res.coef_names == ("intrcpt", "allocrandom", "allocsystematic")
    # a Categorical's order sets the reference level
    cat = pd.Categorical(alloc, categories=["random", "systematic", "alternate"])
    res2 = meta_analysis(y, v, moderators=pd.DataFrame({"alloc": cat}))
    assert res2.coef_names == ("intrcpt", "allocsystematic", "allocalternate")
    _close(res2.QM, res.QM, "QM invariant to the reference level")
    _close(res2.tau2, res.tau2, "tau2 invariant to the reference level")
    # booleans: reference FALSE, dummy xTRUE; same fit as the 0/1 coding
    flag = [a == "random" for a in alloc]
    res3 = meta_analysis(y, v, moderators={"random": flag})
    assert res3.coef_names == ("intrcpt", "randomTRUE")
    res4 = meta_analysis(y, v, moderators={"random": [int(f) for f in flag]})
    _close(res3.estimate, res4.estimate, "bool vs 0/1")


def test_meta_result_api_unchanged_without_moderators():
    res = meta_analysis(BCG["yi"], BCG["vi"])
    assert isinstance(res, MetaResult) and not isinstance(res, MetaRegressionResult)
    res = meta_analysis(BCG["yi"], BCG["vi"], method="DL", test="z", level=0.95, names=None)
    assert isinstance(res, MetaResult)


def test_settings_are_keyword_only_after_the_data():
    """The data come first; method, test, level, names, moderators (and regtest's model,
    predictor, ni) are passed by name."""
    with pytest.raises(TypeError, match="positional"):
        meta_analysis(BCG["yi"], BCG["vi"], "DL")  # type: ignore[misc]
    with pytest.raises(TypeError, match="positional"):
        subgroup_analysis(Y3, V3, ["a", "a", "b"], "DL")  # type: ignore[misc]
    res = meta_analysis(BCG["yi"], BCG["vi"], method="DL")
    with pytest.raises(TypeError, match="positional"):
        regtest(res, "lm")  # type: ignore[misc]
    assert regtest(res, model="lm").model == "lm"


def test_views_summary_json_frame_signature():
    res = meta_analysis(BCG["yi"], BCG["vi"], moderators=_mods(BCG, ["ablat", "alloc"]),
                        test="knha")
    text = str(res)
    for needle in ("Mixed-Effects Model (k = 13; tau^2 estimator: REML)",
                   "tau^2 (estimated amount of residual heterogeneity):",
                   "R^2 (amount of heterogeneity accounted for):", "Test for Residual Heterogeneity:",
                   "QE(df = 9) = ", "Test of Moderators (coefficients 2:4):", "F(df1 = 3, df2 = 9)",
                   "allocsystematic", "tval", "Knapp-Hartung t(df = 9)"):
        assert needle in text, needle
    frame = res.to_frame()
    assert list(frame.index) == list(res.coef_names)
    assert list(frame.columns) == list(COEF)
    assert res.coef()["ablat"] == res.estimate[1]
    d = res.to_dict()
    assert json.loads(res.to_json()) == d and d["coef_names"][0] == "intrcpt"
    assert d["QM_ddf"] == 9 and len(d["vcov"]) == 4
    np.testing.assert_allclose(res.residuals, np.array(BCG["yi"]) - res.fitted)
    sig = res.signature.fields
    assert (sig["kind"], sig["method"], sig["test"], sig["k"]) == ("meta", "REML", "knha", "13")
    if "mods" in FIELDS:
        assert sig["mods"] == "ablat,alloc"
    fe = meta_analysis(BCG["yi"], BCG["vi"], method="EE", moderators=_mods(BCG, ["ablat"]))
    assert fe.method == "EE" and "Equal-Effects with Moderators Model (k = 13)" in fe.summary()
    assert fe.tau2_0 is None and fe.tau2 == 0.0
    with pytest.raises(AttributeError):
        res.tau2 = 1.0  # type: ignore[misc]
    assert not res.estimate.flags.writeable and not res.X.flags.writeable


def test_fixed_effects_q_decomposes_into_qe_plus_qm():
    y, v = np.array(BCG["yi"]), np.array(BCG["vi"])
    total = meta_analysis(y, v, method="FE").Q
    for cols in (["ablat"], ["alloc"], ["ablat", "year"]):
        res = meta_analysis(y, v, method="FE", moderators=_mods(BCG, cols))
        assert res.QE + res.QM == pytest.approx(total, rel=1e-10)
    sub = subgroup_analysis(y, v, BCG["columns"]["alloc"], method="FE")
    assert sub.regression is not None
    assert sub.Q_between == pytest.approx(sub.regression.QM, rel=1e-10)
    assert sub.Q_within == pytest.approx(sub.regression.QE, rel=1e-10)


def test_subgroup_api():
    es = _bcg_effects()
    res = subgroup_analysis(es, groups="alloc", method="DL")
    assert res.variable == "alloc" and res.groups == ("alternate", "random", "systematic")
    assert res.membership[0] == "random" and res.fits["random"].measure == "RR"
    assert res.fits["random"].names[0] == BCG["slab"][0]
    frame = res.to_frame()
    assert list(frame["group"]) == list(res.groups) and list(frame["k"]) == [2, 7, 4]
    d = json.loads(res.to_json())
    assert set(d["fits"]) == set(res.groups) and d["regression"]["coef_names"][1] == "allocrandom"
    assert res.QM == res.regression.QM  # type: ignore[union-attr]
    with pytest.raises(TypeError):
        res.fits["new"] = res.fits["random"]  # type: ignore[index]
    text = res.summary()
    for needle in ("Subgroup analysis by alloc", "Q_between(df = 2)", "common tau^2",
                   "separate tau^2", "systematic"):
        assert needle in text, needle
    # a subgroup of one study with knha: fitted with z (metafor), one warning
    with pytest.warns(UserWarning, match="one study"):
        one = subgroup_analysis([0.1, 0.2, 0.5, 0.3], [0.01, 0.02, 0.01, 0.03],
                                ["a", "a", "a", "b"], test="knha")
    assert one.fits["b"].test == "z" and one.fits["a"].test == "knha"
    # k == G: no residual df for the regression
    tiny = subgroup_analysis([0.1, 0.4], [0.01, 0.02], ["a", "b"], method="FE")
    assert tiny.regression is None and tiny.QM is None and tiny.Q_within_df == 0
    assert "common tau^2" not in tiny.summary()


def test_regtest_api():
    res = meta_analysis(BCG["yi"], BCG["vi"])
    rt = regtest(res)
    assert rt.df is None and rt.model == "rma" and rt.predictor == "sei"
    assert rt.fit is not None and rt.fit.coef_names == ("intrcpt", "sei")
    text = rt.summary()
    assert "Regression Test for Funnel Plot Asymmetry" in text and "Limit Estimate" in text
    assert "method_detail:regtest(rma,sei)" in str(rt.signature)
    assert json.loads(rt.to_json())["statistic"] == pytest.approx(rt.statistic)
    knha = regtest(meta_analysis(BCG["yi"], BCG["vi"], test="knha"))
    assert knha.df == 11 and "t = " in knha.summary()
    # sample sizes from the EffectSizes
    es_rt = regtest(meta_analysis(_bcg_effects()), predictor="ninv")
    ref = regtest(res, predictor="ninv", ni=BCG["ni"])
    assert es_rt.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert regtest(res, predictor="ni", ni=BCG["ni"]).limit_estimate is None


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"model": "glm"}, "unknown regtest model 'glm'"),
        ({"predictor": "se"}, "unknown regtest predictor 'se'.*sei"),
        ({"predictor": "ni"}, "needs sample sizes"),
        ({"predictor": "ni", "ni": [10] * 12}, "13 finite numbers"),
        ({"predictor": "ninv", "ni": [0] * 13}, "finite numbers > 0"),
    ],
)
def test_regtest_bad_input(kwargs, match):
    res = meta_analysis(BCG["yi"], BCG["vi"])
    with pytest.raises(MetaInputError, match=match):
        regtest(res, **kwargs)


def test_regtest_degenerate_input():
    with pytest.raises(MetaInputError, match="at least 3 studies"):
        regtest(meta_analysis([0.1, 0.2], [0.01, 0.02]))
    with pytest.raises(MetaInputError, match="full rank"):
        regtest(meta_analysis([0.1, 0.2, 0.4, 0.3], [0.01] * 4))
    with pytest.raises(MetaInputError, match="MetaResult"):
        regtest("not a result")  # type: ignore[arg-type]


# ------------------------------------------------------------------------ bad input
Y3 = [0.1, 0.3, 0.2, 0.5, 0.4]
V3 = [0.01, 0.02, 0.015, 0.03, 0.02]


@pytest.mark.parametrize(
    ("moderators", "match"),
    [
        ({"x": [1, 2, float("nan"), 4, 5]}, r"moderator 'x' is missing for study '3'"),
        ({"g": ["a", "b", None, "a", "b"]}, r"moderator 'g' is missing for study '3'"),
        ({"x": [1, 2, 3, 4, float("inf")]}, r"moderator 'x' must be finite: study '5'"),
        ({"g": ["a"] * 5}, r"moderator 'g' has a single level \('a'\)"),
        ({"x": [2.0] * 5}, r"'x' is constant or a linear combination"),
        ({"x": [1, 2, 3, 4, 5], "z": [2, 4, 6, 8, 10]}, r"'z' is constant or a linear"),
        ({"x": [1, 2, 3, 4, 5], "g": ["a", "b", "c", "d", "a"]}, "needs more than 5 studies"),
        ({"x": [1, 2, 3]}, "3 values for 5 studies"),
        ({"x": [1, "a", 3, 4, 5]}, "mixes value types"),
        ("ablat", "needs an EffectSizes"),
        (["ablat", "year"], "needs an EffectSizes"),
        (np.ones((5, 2)), "moderators must be a pandas DataFrame"),
        (pd.DataFrame(index=range(5)), "no columns"),
        ([], "no columns"),
        (pd.DataFrame({"x": [1, 2, 3, 4, 5]}, index=list("abcde")), "matched by name"),
        (pd.Series([1, 2, 3, 4, 5]), "needs a name"),
        ({"x": 3.0}, "one value per study"),
        ({"intrcpt": [1, 2, 3, 4, 5]}, r"coefficient name\(s\) \['intrcpt'\] occur twice"),
    ],
)
def test_bad_moderators_raise(moderators, match):
    with pytest.raises(MetaInputError, match=match):
        meta_analysis(Y3, V3, moderators=moderators)


def test_bad_moderator_columns_of_effectsizes():
    es = _bcg_effects()
    with pytest.raises(MetaInputError, match=r"no column 'ablt'.*did you mean 'ablat'"):
        meta_analysis(es, moderators="ablt")
    assert issubclass(MetaInputError, RangerError)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"groups": None}, "groups is required"),
        ({"groups": ["a"] * 5}, "one subgroup"),
        ({"groups": ["a", "b", None, "a", "b"]}, "no subgroup for study '3'"),
        ({"groups": ["a", "b"]}, "2 values for 5 studies"),
        ({"groups": "alloc"}, "needs an EffectSizes"),
    ],
)
def test_subgroup_bad_input(kwargs, match):
    with pytest.raises(MetaInputError, match=match):
        subgroup_analysis(Y3, V3, **kwargs)


# ------------------------------------------------------------------------ properties
regression_data = st.integers(min_value=4, max_value=12).flatmap(
    lambda k: st.tuples(
        st.lists(st.floats(-3, 3, allow_nan=False), min_size=k, max_size=k),
        st.lists(st.floats(1e-3, 1.0, allow_nan=False), min_size=k, max_size=k),
        st.lists(st.integers(0, 20), min_size=k, max_size=k),
    )
)


@settings(max_examples=40, deadline=None)
@given(data=regression_data, method=st.sampled_from(("FE", "DL", "HE", "HS", "SJ", "ML", "REML",
                                                     "EB", "PM")),
       test=st.sampled_from(("z", "t", "knha")), seed=st.integers(0, 2**32 - 1))
@example(data=([-2.994850965433217, 0.0, -0.5, 2.0], [1.0] * 4, [0, 1, 1, 2]), method="PM",
         test="z", seed=0)  # τ² = 0: R² was 100.00000000000001
def test_regression_properties(data, method, test, seed):
    y, v, x = (np.array(a, dtype=float) for a in data)
    if np.ptp(x) == 0:
        x[0] += 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        res = meta_analysis(y, v, method=method, test=test, moderators={"x": x})
        perm = np.random.default_rng(seed).permutation(y.size)
        res_p = meta_analysis(y[perm], v[perm], method=method, test=test,
                              moderators={"x": x[perm]})
    assert res.tau2 >= 0.0 and math.isfinite(res.tau2)
    assert 0.0 <= res.I2 <= 100.0 and 0.0 <= res.R2 <= 100.0
    assert res.QE >= 0.0 and res.QM >= 0.0 and 0.0 <= res.QM_pvalue <= 1.0
    assert np.all(res.ci_low <= res.estimate) and np.all(res.estimate <= res.ci_high)
    assert res.weights.sum() == pytest.approx(1.0, abs=1e-12)
    assert 0.0 <= res.tau2_ci[0] <= res.tau2_ci[1]
    np.testing.assert_allclose(res_p.estimate, res.estimate, rtol=1e-7, atol=1e-9)
    assert res_p.tau2 == pytest.approx(res.tau2, rel=1e-7, abs=1e-9)
    json.loads(res.to_json())
