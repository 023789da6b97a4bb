"""A table of labels and predictions (for ``metric_fn=``) needs no ``value``."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.errors import ScoresError


def _labelled(seed: int = 0, n: int = 30) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for d in ("d1", "d2"):
        lab = rng.integers(0, 2, n)
        for s, acc in (("A", 0.6), ("B", 0.8)):
            pred = np.where(rng.random(n) < acc, lab, 1 - lab)
            rows += [(d, s, f"q{i}", int(lab[i]), int(pred[i])) for i in range(n)]
    return pd.DataFrame(rows, columns=["dataset", "system", "item", "label", "prediction"])


def test_value_is_the_per_item_accuracy() -> None:
    df = _labelled()
    frame = rg.Scores(df).frame
    assert (frame["value"] == (df["label"] == df["prediction"]).astype(float)).all()


def test_compare_and_effect_sizes_with_metric_fn_need_no_value() -> None:
    df = _labelled()
    arbitrary = df.assign(value=0.5)  # metric_fn reads only labels and predictions
    got = rg.compare(rg.Scores(df), metric_fn="mcc", n_resamples=199)
    want = rg.compare(rg.Scores(arbitrary), metric_fn="mcc", n_resamples=199)
    cols = ["mean_a", "mean_b", "diff", "pvalue", "ci_low", "ci_high"]
    pd.testing.assert_frame_equal(got.table[cols], want.table[cols])
    eff = rg.effect_sizes(rg.Scores(df), treatment="B", control="A", metric_fn="f1",
                          n_resamples=100)
    assert eff.yi.shape == (2,)


def test_a_row_without_label_or_prediction_is_named() -> None:
    df = _labelled().astype({"label": object})
    df.loc[3, "label"] = None
    with pytest.raises(ScoresError, match=r"no 'value' column, and row 3 has no 'label'"):
        rg.Scores(df)


def test_without_value_and_labels_still_names_the_column() -> None:
    df = _labelled().drop(columns="prediction")
    with pytest.raises(ScoresError, match="missing column.*value"):
        rg.Scores(df)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.sampled_from(["a", "b", "c"])),
                min_size=1, max_size=20))
def test_value_is_one_exactly_where_prediction_equals_label(pairs: list[tuple[str, str]]) -> None:
    df = pd.DataFrame({"dataset": "d", "system": "s", "item": [f"i{k}" for k in range(len(pairs))],
                       "label": [p[0] for p in pairs], "prediction": [p[1] for p in pairs]})
    values = rg.Scores(df).frame["value"].to_numpy()
    assert values.tolist() == [1.0 if a == b else 0.0 for a, b in pairs]
