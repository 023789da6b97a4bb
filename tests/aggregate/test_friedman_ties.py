"""rank_test's Friedman statistic with tied scores: tie-corrected by default, as
R friedman.test and scipy (oracle: tests/oracles/friedman_ties_oracle.py); Demšar's untied
formula with tie_correction=False."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.errors import AggregateError, SettingsError
from ranger_eval.settings import RankSettings

ORACLE = json.loads((Path(__file__).parents[1] / "oracles" / "friedman_ties_oracle.json")
                    .read_text())["cases"]


def _table(rows: list[list[float]]) -> pd.DataFrame:
    x = np.asarray(rows, dtype=float)
    return pd.DataFrame(x, index=[f"d{i}" for i in range(x.shape[0])],
                        columns=[f"s{j}" for j in range(x.shape[1])])


@pytest.mark.parametrize("name", sorted(ORACLE))
def test_default_is_r_and_scipy(name: str) -> None:
    case = ORACLE[name]
    res = rg.rank_test(_table(case["table"]))
    assert res.tie_correction is True
    for peer in ("R", "scipy"):
        assert res.statistic == pytest.approx(case[peer]["statistic"], rel=1e-10, abs=1e-12)
        assert res.pvalue == pytest.approx(case[peer]["pvalue"], rel=1e-10)
    assert res.signature.fields["tie_correction"] == "yes"


@pytest.mark.parametrize("name", sorted(ORACLE))
def test_untied_formula_on_request(name: str) -> None:
    case = ORACLE[name]
    t = _table(case["table"])
    tied, plain = rg.rank_test(t), rg.rank_test(t, tie_correction=False)
    assert plain.statistic == pytest.approx(case["demsar_untied"], rel=1e-10)
    assert plain.signature.fields["tie_correction"] == "no"
    assert plain.statistic <= tied.statistic + 1e-12  # the correction divides by C ≤ 1
    # Iman–Davenport follows the chosen χ²_F; ranks, CD and post-hoc tests do not change
    n, k = t.shape
    for res in (tied, plain):
        ff = (n - 1) * res.statistic / (n * (k - 1) - res.statistic)
        assert res.iman_davenport == pytest.approx(ff, rel=1e-12)
    pd.testing.assert_series_equal(tied.average_ranks, plain.average_ranks)
    assert tied.critical_difference == plain.critical_difference
    pd.testing.assert_frame_equal(tied.pairwise, plain.pairwise)
    assert tied.cliques == plain.cliques


def test_baycomp_54_datasets_as_printed() -> None:
    """The issue's numbers: R, scipy and autorank print 20.84; Demšar's formula 20.20."""
    t = pd.read_csv(Path(__file__).parents[1] / "oracles" / "friedman_ties_baycomp54.csv",
                    index_col="dataset")
    assert t.shape == (54, 5)
    assert round(rg.rank_test(t).statistic, 2) == 20.84
    assert round(rg.rank_test(t, tie_correction=False).statistic, 2) == 20.20
    # autorank on the same table: the same p-value and mean ranks; its CD uses another
    # studentized-range routine and agrees to 1e-5 relative
    ar = ORACLE["baycomp54"]["autorank"]
    res = rg.rank_test(t)
    assert ar["omnibus"] == "friedman"
    assert res.pvalue == pytest.approx(ar["pvalue"], rel=1e-10)
    assert res.average_ranks.to_dict() == pytest.approx(ar["meanrank"], rel=1e-12)
    assert res.critical_difference == pytest.approx(ar["cd"], rel=1e-5)


def test_setting_and_report() -> None:
    assert RankSettings().tie_correction is True
    with pytest.raises(SettingsError, match="tie_correction: must be true or false; got 'no'"):
        RankSettings(tie_correction="no")  # type: ignore[arg-type]
    with pytest.raises(AggregateError, match="tie_correction must be True or False; got 'no'"):
        rg.rank_test(_table(ORACLE["int_10x3_top3"]["table"]), tie_correction="no")  # type: ignore[arg-type]
    t = _table(ORACLE["int_10x3_top3"]["table"])
    assert "Friedman χ²_F (tie-corrected) = " in rg.report.to_markdown(rg.rank_test(t))
    assert "Friedman χ²_F (Demšar, no tie correction) = " in rg.report.to_markdown(
        rg.rank_test(t, tie_correction=False))
