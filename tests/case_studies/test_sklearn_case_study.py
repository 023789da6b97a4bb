"""Case study on real data produced offline: scikit-learn classifiers on scikit-learn's bundled
datasets, meta-analysed on MCC and macro-F1 (paired bootstrap) next to accuracy."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.effects import effect_sizes
from ranger_eval.errors import RangerError
from ranger_eval.examples_sklearn import DATASETS, SYSTEMS, sklearn_example, write_sklearn_example

# End-to-end tier, an end-to-end case study (generates and runs 3 commands): CI runs it (`pytest -m "slow or hypothesis"`);
# the default `pytest` leaves it out to stay under two minutes on two cores.
pytestmark = pytest.mark.slow

skm = pytest.importorskip("sklearn.metrics", reason="the case study needs scikit-learn")

TREATMENT, CONTROL = "logreg", "tree"
METRICS = {
    "accuracy": skm.accuracy_score,
    "mcc": skm.matthews_corrcoef,
    "macro_f1": lambda y, p: skm.f1_score(y, p, average="macro"),
}


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return sklearn_example(seed=0)


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example as ``write_sklearn_example`` writes it: a second generation of ``table``
    (training the classifiers takes seconds: once per module)."""
    return write_sklearn_example(tmp_path_factory.mktemp("case"), seed=0)


def test_table_is_tidy_and_complete(table):
    assert list(table.columns) == ["dataset", "system", "metric", "item", "label", "prediction", "value"]
    assert tuple(pd.unique(table["dataset"])) == tuple(DATASETS)
    assert tuple(pd.unique(table["system"])) == SYSTEMS
    sizes = table.groupby(["dataset", "system"]).size().unstack()
    assert (sizes.nunique(axis=1) == 1).all()  # every system scores the same test items
    assert sizes.loc["digits", "logreg"] == 899  # half of 1797, stratified
    np.testing.assert_array_equal(table["value"], (table["label"] == table["prediction"]) * 1.0)
    rg.Scores(table)  # valid


def _per_dataset(table, system, metric):
    out = []
    for ds in DATASETS:
        sub = table[(table["dataset"] == ds) & (table["system"] == system)].sort_values("item")
        out.append(METRICS[metric](sub["label"], sub["prediction"]))
    return np.array(out)


@pytest.mark.parametrize("metric", list(METRICS))
def test_meta_analysis_of_set_metrics_next_to_accuracy(table, metric):
    eff = effect_sizes(table, treatment=TREATMENT, control=CONTROL, metric_fn=metric, n_resamples=1000, seed=0)
    assert eff.names == tuple(DATASETS) and eff.metric == metric and eff.measure == "MD"
    want_t = _per_dataset(table, TREATMENT, metric)
    want_c = _per_dataset(table, CONTROL, metric)
    np.testing.assert_allclose(eff.mean_treatment, want_t, rtol=1e-12)
    np.testing.assert_allclose(eff.mean_control, want_c, rtol=1e-12)
    np.testing.assert_allclose(eff.yi, want_t - want_c, rtol=1e-12)
    assert (eff.vi > 0).all()
    res = rg.meta_analysis(eff, method="REML")
    assert res.k == len(DATASETS)
    assert res.estimate > 0  # logistic regression beats a depth-3 tree on these datasets
    assert f"paired-bootstrap[{metric}]" in eff.signature


def test_accuracy_bootstrap_agrees_with_the_per_item_mean_difference(table):
    boot = effect_sizes(table, treatment=TREATMENT, control=CONTROL, metric_fn="accuracy", n_resamples=2000)
    md = effect_sizes(table, treatment=TREATMENT, control=CONTROL, measure="MD")
    np.testing.assert_allclose(boot.yi, md.yi, rtol=1e-12)
    np.testing.assert_allclose(boot.vi, md.vi, rtol=0.25)


def test_bootstrap_is_deterministic(table):
    a = effect_sizes(table, treatment=TREATMENT, control=CONTROL, metric_fn="mcc", seed=3)
    b = effect_sizes(table, treatment=TREATMENT, control=CONTROL, metric_fn="mcc", seed=3)
    c = effect_sizes(table, treatment=TREATMENT, control=CONTROL, metric_fn="mcc", seed=4)
    np.testing.assert_array_equal(a.vi, b.vi)
    assert not np.array_equal(a.vi, c.vi)
    np.testing.assert_array_equal(a.yi, c.yi)


def test_generator_is_deterministic_and_writes_a_readable_file(written, table):
    path = written
    assert path.name == "sklearn_scores.csv"
    back = pd.read_csv(path, dtype={"item": str})
    pd.testing.assert_frame_equal(back, table, check_dtype=False)
    eff_file = effect_sizes(back, treatment=TREATMENT, control=CONTROL, metric_fn="macro_f1", n_resamples=200)
    eff_mem = effect_sizes(table, treatment=TREATMENT, control=CONTROL, metric_fn="macro_f1", n_resamples=200)
    np.testing.assert_array_equal(eff_file.vi, eff_mem.vi)


def test_compare_on_the_case_study(table):
    comp = rg.compare(table, metric_fn=["mcc", "macro_f1"], n_resamples=500)
    t = comp.to_frame()
    assert len(t) == len(DATASETS) * 2 * 3
    digits = t[(t["dataset"] == "digits") & (t["metric"] == "mcc") & (t["system_b"] == "tree")]
    assert digits["significant"].all()


def test_bad_arguments_and_missing_sklearn(monkeypatch):
    with pytest.raises(RangerError, match="seed must be a non-negative integer"):
        sklearn_example(seed=-1)
    with pytest.raises(RangerError, match="test_size must be a fraction"):
        sklearn_example(test_size=1.5)
    monkeypatch.setitem(sys.modules, "sklearn", None)
    with pytest.raises(RangerError, match="needs scikit-learn.*pip install scikit-learn"):
        sklearn_example()


def test_meta_cli_with_a_set_metric_on_the_sklearn_example(tmp_path, written):
    from typer.testing import CliRunner

    from ranger_eval.cli import app

    table = written
    out = tmp_path / "mcc"
    result = CliRunner().invoke(app, ["meta", str(table), "--control", "tree", "--treatment",
                                      "logreg", "--metric-fn", "mcc", "--out", str(out),
                                      "--figures", "none"])  # the summary is checked
    assert result.exit_code == 0, result.output
    summary = (out / "summary.md").read_text()
    assert "method_detail:paired-bootstrap[mcc]" in summary and "n_resamples:1000" in summary
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"scores: {table}\nmeta:\n  control: tree\n  treatment: logreg\n"
                   "  metric_fn: macro_f1\n  n_resamples: 200\n  seed: 3\n")
    result = CliRunner().invoke(app, ["meta", str(cfg), "--out", str(tmp_path / "f1"),
                                      "--figures", "none"])
    assert result.exit_code == 0, result.output
    assert "paired-bootstrap[macro_f1]" in (tmp_path / "f1" / "summary.md").read_text()
    cfg.write_text(f"scores: {table}\nmetric_fn: mcc\n")
    result = CliRunner().invoke(app, ["meta", str(cfg), "--out", str(tmp_path / "x")])
    assert result.exit_code == 2 and "metric_fn: unknown key" in result.output
