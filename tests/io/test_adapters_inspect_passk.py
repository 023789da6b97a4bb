"""Inspect logs scored with the pass@k (``pass_at``) and pass^k (``pass_k``) epoch reducers:
the per-epoch scores are read as samples and Inspect's reported values are reproduced from them
(by the adapter's check and by rg.pass_at_k / rg.pass_hat_k)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import ranger_eval as rg
from ranger_eval.errors import InputError
from ranger_eval.io.adapters import load_adapter
from ranger_eval.io.adapters.inspectai import inspect_pass_k


def _log(tmp_path, fmt: str = "json"):
    """A real log written offline by Inspect (mockllm model, canned outputs), 5 epochs reduced
    with pass_at(2), pass_k(2) and mean."""
    pytest.importorskip("inspect_ai", exc_type=ImportError)
    import random

    from inspect_ai import Epochs, Task, eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import includes, pass_at, pass_k
    from inspect_ai.solver import solver

    rng = random.Random(11)

    @solver
    def canned():
        async def solve(state, generate):  # no model call: nothing is downloaded
            text = "Default output" if rng.random() < 0.45 else "nope"
            state.output = ModelOutput.from_content(model="mockllm/model", content=text)
            return state
        return solve

    samples = [Sample(input=f"q {i}", target="Default output", id=f"q{i:02d}")
               for i in range(12)]
    task = Task(dataset=MemoryDataset(samples), solver=[canned()], scorer=includes(),
                name="toy")
    eval(task, model="mockllm/model", epochs=Epochs(5, [pass_at(2), pass_k(2), "mean"]),
         log_dir=str(tmp_path / fmt), log_format=fmt, display="none")
    (path,) = (tmp_path / fmt).iterdir()
    return path


@pytest.mark.slow  # Inspect writes the logs (~1-5 s each)
@pytest.mark.parametrize("fmt", ["json", "eval"])
def test_pass_at_k_on_epochs_equals_inspects_reducers(tmp_path, fmt):
    path = _log(tmp_path, fmt)
    with pytest.warns(UserWarning):
        res = load_adapter(path)
    scores = res.scores
    assert scores.has_samples and scores.samples_label == "5"
    rep = res.reported.set_index("statistic")["value"]
    at2 = rg.pass_at_k(scores, 2).frame["value"].to_numpy()
    hat2 = rg.pass_hat_k(scores, 2).frame["value"].to_numpy()
    assert len(at2) == 12
    assert math.isclose(at2.mean(), rep["accuracy[pass_at_2]"], rel_tol=1e-12)
    assert math.isclose(hat2.mean(), rep["accuracy[pass_k_2]"], rel_tol=1e-12)
    assert math.isclose(at2.std(ddof=1) / math.sqrt(12), rep["stderr[pass_at_2]"],
                        rel_tol=1e-9)
    # the mean reducer's accuracy is still checked against the per-item means
    agree = res.agreement()
    assert list(agree["statistic"]) == ["accuracy"] and abs(agree["difference"]).max() < 1e-12
    note = " ".join(res.notes)
    assert "pass_at_2: the unbiased estimator of Chen et al. (2021)" in note
    assert "pass_k_2: C(c, k)/C(n, k) (Yao et al. 2024)" in note
    assert "averages the samples" not in note  # not read silently as the mean


@pytest.mark.slow
def test_edited_pass_at_k_result_is_an_error(tmp_path):
    path = _log(tmp_path)
    log = json.loads(path.read_text())
    for entry in log["results"]["scores"]:
        if entry["reducer"] == "pass_at_2":
            entry["metrics"]["accuracy"]["value"] += 0.01
    path.write_text(json.dumps(log))
    with pytest.raises(InputError, match=r"reducer 'pass_at_2', metric 'accuracy': the log's "
                                         r"results report"):
        load_adapter(path)


@pytest.mark.slow
def test_reduced_scores_only_is_said(tmp_path):
    path = _log(tmp_path)
    log = json.loads(path.read_text())
    log["samples"] = []
    path.write_text(json.dumps(log))
    with pytest.raises(InputError, match=r"only Inspect's reduced scores, 'reductions', are "
                                         r"logged"):
        load_adapter(path)


def test_inspect_pass_k_formulas():
    v = np.array([1.0, 0.0, 1.0, 0.0, 0.0])
    assert math.isclose(inspect_pass_k("pass@", 2, v), 1 - math.comb(3, 2) / math.comb(5, 2))
    assert math.isclose(inspect_pass_k("pass^", 2, v), math.comb(2, 2) / math.comb(5, 2))
    assert math.isnan(inspect_pass_k("pass@", 6, v))
