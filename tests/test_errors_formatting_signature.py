"""The bottom layer: one error hierarchy, one way to format numbers, the signature."""
from __future__ import annotations

import inspect

import numpy as np
import pytest
from typer.testing import CliRunner

import ranger_eval as rg
from ranger_eval import errors
from ranger_eval.cli import app
from ranger_eval.formatting import format_level, format_percent, format_pvalue
from ranger_eval.signature import FIELDS, make_signature, parse_signature


def test_every_error_class_is_a_ranger_error_and_a_value_error():
    classes = [c for _, c in inspect.getmembers(errors, inspect.isclass)
               if issubclass(c, Exception) and not issubclass(c, Warning)]
    assert len(classes) >= 15
    assert issubclass(errors.RangerWarning, UserWarning)  # a warning with hints, not an error
    for cls in classes:
        assert issubclass(cls, errors.RangerError) and issubclass(cls, ValueError), cls
    assert issubclass(errors.ConvergenceError, RuntimeError)  # as before


@pytest.mark.parametrize("call", [
    lambda: rg.meta_analysis([0.1, 0.2], [0.01, 0.02], level=1.5),
    lambda: rg.effect_size([1.0, 2.0, 3.0], [1.0, 2.5, 2.0], level=0.0),
    lambda: rg.stats.paired_ttest([1, 2, 3], [1, 2, 4], level=2),
    lambda: rg.compare(__import__("pandas").DataFrame(
        {"dataset": "d", "system": ["a", "b"] * 3, "item": [1, 1, 2, 2, 3, 3],
         "value": [1.0, 2, 3, 4, 5, 7]}), level=95),
])
def test_level_is_validated_the_same_way_everywhere(call):
    with pytest.raises(errors.RangerError, match=r"level: must be strictly between 0 and 1 \(e\.g\. 0\.95\)"):
        call()


def test_shared_validators():
    assert errors.check_correction("BH") == "fdr_bh"
    with pytest.raises(errors.RangerError, match="did you mean 'holm'"):
        errors.check_correction("holms")
    assert not hasattr(errors, "check_alpha")  # α = 1 - level is derived, never checked alone
    with pytest.raises(errors.RangerError, match="got True"):
        errors.check_level(True)
    with pytest.raises(errors.MetaInputError, match="did you mean 'REML'"):
        rg.meta_analysis([0.1, 0.2], [0.01, 0.02], method="RMEL")


@pytest.mark.parametrize("p", [0.5, 0.034, 0.008676, 1e-4, 9.99e-5, 7.943e-21, 5e-5, 1.0])
def test_text_pvalues_are_python_g_format(p):  # 0 is the bound "< 1e-300" (test_pvalue_format)
    assert format_pvalue(p, 4) == f"{p:.4g}"
    assert format_pvalue(p, 2) == f"{p:.2g}"


def test_pvalue_styles_and_bounds():
    assert format_pvalue(3.2e-6, 2, "unicode") == "3.2×10⁻⁶"
    assert format_pvalue(3.2e-6, 2, "latex") == r"$3.2\times10^{-6}$"
    assert format_pvalue(3.2e-6, 2, "html") == "3.2&times;10<sup>-6</sup>"
    assert format_pvalue(1e-320, 2, prefix="p = ") == "p < 1e-300"
    assert format_pvalue(float("nan")) == "NA"


def test_levels_and_percentages():
    assert [format_level(x) for x in (0.95, 0.9, 0.9999, 0.999, 0.5)] == [
        "95%", "90%", "99.99%", "99.9%", "50%"]
    assert format_percent(0.16141, 2) == "16.14%" and format_percent(1e-6) == "<0.1%"


def test_forest_plot_prints_the_real_level():
    res = rg.meta_analysis([0.1, 0.3, 0.2], [0.01, 0.02, 0.015], level=0.9999, method="DL")
    fig = rg.forest_plot(res)
    texts = [t.get_text() for t in fig.findobj(match=lambda a: hasattr(a, "get_text"))]
    assert any("99.99%" in t for t in texts) and not any("100%" in t and "CI" in t for t in texts)
    assert any(str(res.signature) in t for t in texts)


def test_signature_round_trip_and_fields_documented():
    sig = make_signature("meta", {"measure": "SMD", "method": "REML", "level": 0.95})
    assert sig.startswith(f"ranger-eval:{rg.__version__}|kind:meta|")
    assert parse_signature(sig) == {"ranger-eval": rg.__version__, "kind": "meta",
                                    "measure": "SMD", "method": "REML", "level": "0.95"}
    with pytest.raises(ValueError, match="undocumented signature field"):
        make_signature("meta", {"colour": "red"})
    with pytest.raises(ValueError, match="not a ranger-eval signature"):
        parse_signature("test:z|level:0.95")


def test_results_carry_signatures():
    res = rg.meta_analysis([0.1, 0.3, 0.2], [0.01, 0.02, 0.015], method="DL", test="knha")
    assert res.signature.fields["method"] == "DL" and res.signature.fields["test"] == "knha"
    assert res.to_dict()["signature"] == str(res.signature)
    assert str(res.signature) in res.summary()
    t = rg.stats.paired_ttest(np.arange(10.0), np.arange(10.0)[::-1])
    assert t.signature.fields["kind"] == "test"
    with pytest.raises(TypeError, match="not callable"):  # an attribute, no longer a method
        t.signature()  # type: ignore[operator]
    with pytest.raises(AttributeError, match="no attribute 'experiment'"):
        rg.experiment  # noqa: B018  (the module alias is gone: ranger_eval.pipeline)


def test_signature_command_documents_every_field():
    out = CliRunner().invoke(app, ["signature"]).output
    for key in FIELDS:
        assert key in out
    res = rg.meta_analysis([0.1, 0.3], [0.01, 0.02], method="DL")
    out = CliRunner().invoke(app, ["signature", str(res.signature)]).output
    assert "method" in out and "τ² estimator" in out


def test_signatures_say_level_never_alpha(tmp_path):
    """One vocabulary in signatures, ``level:`` (α = 1 − level is derived); an
    older signature's ``alpha:`` is still read and explained."""
    import pandas as pd

    from ranger_eval.signature import signature_level

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"dataset": np.repeat(["d1", "d2", "d3"], 60),
                       "system": np.tile(np.repeat(["A", "B", "C"], 20), 3),
                       "item": np.tile(np.arange(20), 9).astype(str),
                       "value": rng.normal(size=180)})
    sigs = [rg.compare(df, level=0.9).signature,
            rg.rank_systems(df, level=0.9).signature,
            rg.rank_test(df.groupby(["dataset", "system"])["value"].mean().unstack(),
                         level=0.9).signature,
            rg.plan("paired-t", effect=0.3, power=0.8, level=0.9).signature]
    for sig in sigs:
        assert "|alpha:" not in sig and sig.fields["level"] == "0.9", sig
        assert signature_level(sig.fields) == 0.9
    old = "ranger-eval:0.1.0|kind:rank|test:friedman|posthoc:nemenyi|alpha:0.05"
    assert signature_level(parse_signature(old)) == 0.95
    assert signature_level(parse_signature("ranger-eval:0.1.0|kind:rank")) is None
    with pytest.raises(ValueError, match=r"retired signature field\(s\): alpha \(write level\)"):
        make_signature("rank", {"alpha": 0.05})
    out = CliRunner().invoke(app, ["signature", old]).output
    assert "alpha" in out and "here level 0.95" in out
