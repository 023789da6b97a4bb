"""meta_analysis(margin=...) / ranger-eval meta --margin: the verdict of the summary's confidence
interval and, separately, of its prediction interval against ±margin (meta/verdict.py)."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.errors import MetaInputError
from ranger_eval.meta.verdict import margin_verdict
from ranger_eval.report import to_markdown


@pytest.mark.parametrize("ci, pi, summary, new", [
    ((-0.05, 0.04), (-0.08, 0.09), "equivalent across datasets",
     "equivalent on a new dataset"),
    ((-0.05, 0.04), (-0.2, 0.15), "equivalent across datasets",
     "inconclusive on a new dataset"),
    ((-0.05, 0.4), (-0.06, 0.5), "non-inferior", "non-inferior on a new dataset"),
    ((-0.12, 0.02), (-0.3, 0.2), "inconclusive", "inconclusive on a new dataset"),
    ((-0.1, 0.05), (-0.1, 0.05), "inconclusive", "inconclusive on a new dataset"),  # on it
])
def test_verdicts(ci: tuple[float, float], pi: tuple[float, float], summary: str,
                  new: str) -> None:
    v = margin_verdict(ci, pi, 0.1)
    assert (v.summary, v.new_dataset) == (summary, new)
    assert summary in v.sentence() and new in v.sentence()


@settings(max_examples=80, deadline=None)
@given(lo=st.floats(-2, 2), width=st.floats(0, 2), extra=st.floats(0, 2),
       margin=st.floats(0.01, 2))
def test_the_prediction_interval_never_claims_more_than_the_confidence_interval(
        lo: float, width: float, extra: float, margin: float) -> None:
    """The PI contains the CI, so "equivalent on a new dataset" implies "equivalent across
    datasets", and a new dataset is never non-inferior where the average is not."""
    v = margin_verdict((lo, lo + width), (lo - extra, lo + width + extra), margin)
    rank = {"equivalent": 2, "non-inferior": 1, "inconclusive": 0}
    assert rank[v.new_dataset.split()[0]] <= rank[v.summary.split()[0]]


def test_meta_analysis_records_the_margin_in_result_summary_json_and_signature() -> None:
    res = rg.meta_analysis([0.01, 0.02, -0.01, 0.03], [4e-4, 3e-4, 5e-4, 2e-4], margin=0.05)
    assert res.verdict is not None and res.verdict.summary == "equivalent across datasets"
    assert "Margin ±0.05: equivalent across datasets" in res.summary()
    d = json.loads(res.to_json())
    assert (d["margin"], d["verdict"]) == (0.05, "equivalent across datasets")
    assert res.signature.fields["margin"] == "0.05"
    plain = rg.meta_analysis([0.01, 0.02, -0.01, 0.03], [4e-4, 3e-4, 5e-4, 2e-4])
    assert plain.verdict is None and "verdict" not in plain.to_dict()
    assert "margin" not in plain.signature.fields
    # the estimates do not depend on the margin
    assert (res.estimate, res.ci_low, res.pi_high) == (plain.estimate, plain.ci_low,
                                                       plain.pi_high)


def test_margin_errors() -> None:
    with pytest.raises(MetaInputError, match="positive"):
        rg.meta_analysis([0.1, 0.2], [0.01, 0.01], margin=0.0)
    with pytest.raises(MetaInputError, match="meta-regression"):
        rg.meta_analysis([0.1, 0.2, 0.3], [0.01, 0.01, 0.02], moderators={"x": [1, 2, 3]},
                         margin=0.1)


def test_demo_states_its_margin_and_verdict(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The demo asks whether the compressed model is non-inferior within ±0.1 SMD."""
    from ranger_eval.demo import DEMO_MARGIN, write_demo
    from ranger_eval.io.config import load_experiment
    from ranger_eval.pipeline import run_experiment

    res = run_experiment(load_experiment(write_demo(tmp_path))).result
    assert res.margin == DEMO_MARGIN == 0.1
    assert res.verdict is not None
    assert res.verdict.summary == "equivalent across datasets"  # CI within ±0.1 SMD
    assert res.verdict.new_dataset == "inconclusive on a new dataset"


def test_markdown_report_says_the_verdict() -> None:
    res = rg.meta_analysis([0.01, 0.02, -0.01, 0.03], [4e-4, 3e-4, 5e-4, 2e-4], margin=0.05)
    assert "Margin ±0.05: equivalent across datasets (confidence interval)" in to_markdown(res)


def test_lower_is_better_turns_non_inferiority_around() -> None:
    """For a lower-is-better metric (perplexity, latency) a positive effect is a loss: the
    summary is non-inferior when its upper bound stays below +margin."""
    ci, pi = (-0.3, 0.05), (-0.5, 0.2)
    assert margin_verdict(ci, pi, 0.1).summary == "inconclusive"
    low = margin_verdict(ci, pi, 0.1, higher_is_better=False)
    assert (low.summary, low.new_dataset) == ("non-inferior", "inconclusive on a new dataset")
    assert "(lower is better)" in low.sentence()
    res = rg.meta_analysis([-0.2, -0.1, -0.15], [0.002, 0.003, 0.002], margin=0.1,
                           higher_is_better=False)
    assert res.verdict is not None and res.verdict.summary == "non-inferior"
    assert rg.meta_analysis([-0.2, -0.1, -0.15], [0.002, 0.003, 0.002],
                            margin=0.1).verdict.summary == "inconclusive"  # type: ignore[union-attr]
    with pytest.raises(MetaInputError, match="higher_is_better"):
        rg.meta_analysis([0.1, 0.2], [0.01, 0.01], margin=0.1, higher_is_better="no")  # type: ignore[arg-type]


def test_pipeline_reads_the_direction_from_the_scores(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import numpy as np
    import pandas as pd

    from ranger_eval.pipeline import run_meta

    rng = np.random.default_rng(5)
    rows = []
    for d in ("a", "b", "c"):
        base = rng.normal(10, 1, 60)
        for s, shift in (("old", 0.0), ("new", -0.3)):
            rows.append(pd.DataFrame({"dataset": d, "system": s, "metric": "perplexity",
                                      "item": [f"i{i}" for i in range(60)],
                                      "value": base + shift + rng.normal(0, 0.3, 60),
                                      "higher_is_better": False}))
    path = tmp_path / "scores.csv"
    pd.concat(rows).to_csv(path, index=False)
    run = run_meta(path, tmp_path / "out", None, "none", control="old", treatment="new",
                   measure="MD", margin=0.1)
    res = run.result.result
    assert res.higher_is_better is False
    assert res.verdict is not None and res.verdict.summary == "non-inferior"
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())["result"]
    assert summary["higher_is_better"] is False and summary["verdict"] == "non-inferior"
    assert "Margin ±0.1 (lower is better): non-inferior" in (tmp_path / "out" /
                                                             "summary.md").read_text()


def test_html_report_says_the_meta_verdict(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from ranger_eval.demo import write_demo
    from ranger_eval.pipeline import run_meta

    run_meta(write_demo(tmp_path / "demo"), tmp_path / "out", None, "none", html=True)
    text = (tmp_path / "out" / "report.html").read_text()
    assert "Against a margin of ±0.1: equivalent across datasets" in text
