"""Adapters agree with the tool that wrote the log, on real logs written by each tool.

lm-eval: ``tests/oracles/lmeval_logs`` (lm-evaluation-harness 0.4.13, ``dummy`` model, two seeds;
written by ``tests/oracles/make_lmeval_logs.py``). For every metric those tasks ship, the number
Ranger computes per system equals lm-eval's own ``results_*.json`` (1e-9 relative; brier_score
1e-6, its probabilities are logged with 8 digits), through the adapter, ``compare`` and ``meta``.
"""
from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import ranger_eval as rg
from ranger_eval.cli import app
from ranger_eval.errors import InputError
from ranger_eval.io.adapters import load_adapter, read_adapter
from ranger_eval.io.adapters.lmeval import tool_aggregate

ORACLES = Path(__file__).resolve().parents[1] / "oracles"
LMEVAL = ORACLES / "lmeval_logs"
#: lm-eval's corpus-level metrics, tested through the set-level path with their set metric.
SET_LEVEL = {"f1": "f1", "mcc": "mcc", "bleu": "bleu", "chrf": "chrf", "ter": "ter",
             "perplexity": "perplexity", "word_perplexity": "weighted_perplexity",
             "byte_perplexity": "weighted_perplexity", "bits_per_byte": "bits_per_byte"}
#: Means of per-item values (brier_score: each item's own Brier score).
PER_ITEM = {"acc", "acc_norm", "exact_match", "brier_score"}


@pytest.fixture(autouse=True)
def _lmeval_needs_sacrebleu(request):
    """The lm-eval logs hold bleu, chrf and ter, which lm-eval (and Ranger, on reading them)
    compute with sacrebleu: every lm-eval test skips without it."""
    if request.node.name.startswith("test_lmeval_"):
        pytest.importorskip("sacrebleu", reason="the lm-eval logs' bleu/chrf/ter are sacrebleu's "
                                                "(the 'test' extra)")


def lmeval_reported() -> dict[tuple[str, str, str], float]:
    """{(task, system, metric): lm-eval's aggregate} from the results files."""
    out = {}
    for path in sorted(LMEVAL.glob("*/*/results_*.json")):
        res = json.loads(path.read_text())
        for task, values in res["results"].items():
            for key, value in values.items():
                if "," in key and "_stderr" not in key:
                    out[task, res["model_name"], key.split(",")[0]] = float(value)
    return out


def close(ours: float, reported: float, metric: str) -> bool:
    tol = 1e-6 if metric == "brier_score" else 1e-9
    return abs(ours - reported) <= tol * max(1.0, abs(reported))


def test_lmeval_fixture_is_lm_eval_0_4_13():
    assert (LMEVAL / "VERSION").read_text().strip() == "lm_eval 0.4.13"
    reported = lmeval_reported()
    metrics = {m for (_, _, m) in reported}
    assert metrics == PER_ITEM | set(SET_LEVEL)
    assert {s for (_, s, _) in reported} == {"dummy-a", "dummy-b"}


def test_lmeval_every_aggregate_recomputed_from_the_samples():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every metric is read: nothing left out, no note
        res = load_adapter(LMEVAL)
    assert res.notes == ()
    assert set(res.corpus["set_metric"]) == set(SET_LEVEL.values())
    items: dict[tuple[str, str, str], list] = {}
    for (d, s, m), grp in res.scores.frame.groupby(["dataset", "system", "metric"]):
        items[d, s, m] = grp["value"].tolist()
    for (d, s, m), grp in res.corpus.groupby(["dataset", "system", "metric"]):
        items[d, s, m] = [json.loads(r) for r in grp["raw"]]
    aggs = {(r.dataset, r.system, r.metric): r.statistic for r in res.reported.itertuples()}
    reported = lmeval_reported()
    for key, value in reported.items():
        ours = tool_aggregate(aggs[key], items[key])
        assert ours is not None and close(ours, value, key[2]), (key, ours, value)


def test_lmeval_compare_reports_lm_evals_numbers_not_the_accuracy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = read_adapter(LMEVAL)
    assert set(scores.metrics) == PER_ITEM | set(SET_LEVEL)
    lower = {"perplexity", "word_perplexity", "byte_perplexity", "bits_per_byte", "ter",
             "brier_score"}  # lm-eval's higher_is_better, kept on every row
    for metric, hib in scores.frame.groupby("metric")["higher_is_better"]:
        assert set(hib.astype(bool)) == {metric not in lower} and not hib.isna().any(), metric
    comp = rg.compare(scores, n_resamples=199)
    means = {(r.dataset, r.system, r.metric): r.mean for r in comp.means.itertuples()}
    reported = lmeval_reported()
    assert set(means) == set(reported)  # every metric of every task, both systems
    for key, mean in means.items():
        assert close(mean, reported[key], key[2]), (key, mean, reported[key])
    for metric in SET_LEVEL:  # the set-level path: resampling tests, bootstrap d_z
        row = comp.table[comp.table["metric"] == metric].iloc[0]
        assert row["test"] == "permutation" and row["effect_size_name"] == "dz_boot", metric
        want = (reported[row["dataset"], row["system_a"], metric]
                - reported[row["dataset"], row["system_b"], metric])
        assert close(row["diff"], want, metric)
        assert 0 < row["pvalue"] <= 1 and row["ci_low"] <= row["diff"] <= row["ci_high"]
    assert set(comp.set_metrics) == set(SET_LEVEL.values())
    # the accuracy is not the f1 (averaging per-sample entries once gave f1 == mcc == acc)
    assert means["ranger_yesno", "dummy-a", "f1"] != means["ranger_yesno", "dummy-a", "acc"]


def test_lmeval_cli_compare_and_meta_report_lm_evals_f1(tmp_path):
    reported = lmeval_reported()
    runner = CliRunner()
    out = tmp_path / "cmp"
    r = runner.invoke(app, ["compare", str(LMEVAL), "--out", str(out), "--n-resamples", "199",
                           "--figures", "none"])  # the numbers are checked, not the figures
    assert r.exit_code == 0, r.output
    table = pd.read_csv(out / "comparison.csv", comment="#")
    assert {(d, m) for d, _, m in reported} == set(zip(table["dataset"], table["metric"], strict=True))
    for row in table.itertuples():  # every metric of every task, lm-eval's number per system
        for side in ("a", "b"):
            want = reported[row.dataset, getattr(row, f"system_{side}"), row.metric]
            assert close(getattr(row, f"mean_{side}"), want, row.metric), row
    out = tmp_path / "meta"
    r = runner.invoke(app, ["meta", str(LMEVAL), "--metric", "f1", "--control", "dummy-a",
                            "--treatment", "dummy-b", "--out", str(out), "--figures", "none"])
    assert r.exit_code == 0, r.output
    eff = pd.read_csv(out / "effects.csv", comment="#").iloc[0]
    assert close(eff["mean_control"], reported["ranger_yesno", "dummy-a", "f1"], "f1")
    assert close(eff["mean_treatment"], reported["ranger_yesno", "dummy-b", "f1"], "f1")
    assert close(eff["yi"], reported["ranger_yesno", "dummy-b", "f1"]
                 - reported["ranger_yesno", "dummy-a", "f1"], "f1")


@pytest.mark.parametrize("metric", ["perplexity", "word_perplexity", "byte_perplexity",
                                    "bits_per_byte", "chrf", "ter", "brier_score"])
def test_lmeval_cli_meta_reports_lm_evals_corpus_metric(tmp_path, metric):
    """meta --metric <corpus-level metric>: the systems' values are lm-eval's own numbers and
    the effect is their difference (set-level path: paired bootstrap of that metric)."""
    reported = lmeval_reported()
    task = next(d for d, _, m in reported if m == metric)
    out = tmp_path / "meta"
    r = CliRunner().invoke(app, ["meta", str(LMEVAL), "--metric", metric, "--control",
                                 "dummy-a", "--treatment", "dummy-b", "--out", str(out),
                                 "--measure", "MD"])
    assert r.exit_code == 0, r.output
    if metric in SET_LEVEL:  # effects.csv is plain: its signature is in the manifest
        sig = {f["file"]: f.get("signature", "")
               for f in json.loads((out / "manifest.json").read_text())["files"]}
        assert f"paired-bootstrap[{SET_LEVEL[metric]}]" in sig["effects.csv"], sig
    eff = pd.read_csv(out / "effects.csv", comment="#").iloc[0]
    a, b = reported[task, "dummy-a", metric], reported[task, "dummy-b", metric]
    assert close(eff["mean_control"], a, metric) and close(eff["mean_treatment"], b, metric)
    assert close(eff["yi"], b - a, metric) and eff["vi"] >= 0


@pytest.mark.parametrize("metric", sorted(SET_LEVEL) + ["brier_score"])
def test_lmeval_effect_sizes_api_uses_the_declared_set_metric(metric):
    """rg.effect_sizes on the adapter's scores, metric=<corpus-level metric>, no metric_fn:
    lm-eval's numbers (f1, not the accuracy; perplexity, not the mean log-likelihood)."""
    reported = lmeval_reported()
    task = next(d for d, _, m in reported if m == metric)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = read_adapter(LMEVAL)
    eff = rg.effect_sizes(scores, treatment="dummy-b", control="dummy-a", metric=metric,
                          datasets=[task], n_resamples=200, measure="MD")
    want = reported[task, "dummy-b", metric] - reported[task, "dummy-a", metric]
    assert close(float(eff.yi[0]), want, metric)
    assert close(float(eff.mean_control[0]), reported[task, "dummy-a", metric], metric)


def _copy(tmp_path: Path, system: str = "dummy-a") -> Path:
    dest = tmp_path / system
    shutil.copytree(LMEVAL / system, dest)
    return next(dest.glob("*/results_*.json"))


@pytest.mark.parametrize("metric", ["f1", "acc", "word_perplexity", "chrf", "ter", "perplexity",
                                    "bits_per_byte", "brier_score"])
def test_lmeval_doctored_aggregate_is_an_error(tmp_path, metric):
    results = _copy(tmp_path)
    res = json.loads(results.read_text())
    task = next(t for t, v in res["results"].items() if f"{metric},none" in v)
    true = res["results"][task][f"{metric},none"]
    res["results"][task][f"{metric},none"] = true + 0.01
    results.write_text(json.dumps(res))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(InputError) as exc:
            load_adapter(results)
    msg = str(exc.value)
    for part in (results.name, repr(task), repr(metric), repr(true + 0.01), "dummy-a"):
        assert part in msg, (part, msg)


def test_lmeval_cut_samples_file_warns_and_is_not_checked(tmp_path):
    results = _copy(tmp_path)
    samples = next(results.parent.glob("samples_ranger_yesno_*.jsonl"))
    lines = samples.read_text().splitlines(keepends=True)
    samples.write_text("".join(lines[:20]))
    with pytest.warns(UserWarning, match=r"holds 20 documents but lm-eval scored 80"):
        res = load_adapter(results)
    f1 = res.corpus[res.corpus["metric"] == "f1"]
    assert len(f1) == 20


# ----------------------------------------------------------------------------- Inspect AI
INSPECT = ORACLES / "inspect_agreement"  # make_inspect_agreement_logs.py (inspect_ai, mockllm)


def inspect_results(path: Path) -> dict:
    """The log's ``results`` as Inspect's own reader returns them (the test skips without it)."""
    inspect_log = pytest.importorskip(
        "inspect_ai.log", reason="Inspect's own reader is the oracle (inspect-ai, the 'test' extra)",
        exc_type=ImportError)
    return inspect_log.read_eval_log(str(path), header_only=True).results.model_dump()


@pytest.mark.parametrize("name", ["full.eval", "full.json", "epochs.eval", "limit.eval"])
def test_inspect_every_metric_recomputed_from_the_samples(name):
    """accuracy/mean = mean, std/var (ddof 1), stderr = std/sqrt(n) of the per-sample values
    (epochs reduced by mean), numpy's definitions, = Inspect's own results (1e-9)."""
    path = INSPECT / name
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a complete, consistent log: no warning
        res = load_adapter(path)
    frame = res.scores.frame
    results = inspect_results(path)
    checked = 0
    for entry in results["scores"]:
        values = frame[frame["metric"] == entry["name"]].groupby("item")["value"].mean()
        x = values.to_numpy()
        ours = {"accuracy": x.mean(), "mean": x.mean(), "std": x.std(ddof=1),
                "var": x.var(ddof=1), "stderr": x.std(ddof=1) / len(x) ** 0.5}
        for metric, m in entry["metrics"].items():
            assert abs(ours[metric] - m["value"]) <= 1e-9 * max(1, abs(m["value"])), (
                name, entry["name"], metric)
            checked += 1
    assert checked == 12  # match, includes: accuracy, stderr; exact, f1: mean, stderr; length: 4
    assert len(x) == {"limit.eval": 10}.get(name, 30)


def test_inspect_cut_log_warns_with_both_counts():
    with pytest.warns(UserWarning, match=r"results cover 30 scored sample\(s\) but the file "
                                         r"holds 1: a partial log"):
        res = load_adapter(INSPECT / "cut.json")
    assert set(res.scores.frame["item"]) == {"q00"}


@pytest.mark.parametrize("metric", ["accuracy", "stderr", "var"])
def test_inspect_doctored_results_are_an_error(tmp_path, metric):
    log = json.loads((INSPECT / "full.json").read_text())
    entry = next(e for e in log["results"]["scores"] if metric in e["metrics"])
    true = entry["metrics"][metric]["value"]
    entry["metrics"][metric]["value"] = true + 0.01
    path = tmp_path / "doctored.json"
    path.write_text(json.dumps(log))
    with pytest.raises(InputError) as exc:
        load_adapter(path)
    msg = str(exc.value)
    for part in ("doctored.json", repr(entry["name"]), repr(metric), repr(true + 0.01)):
        assert part in msg, (part, msg)


# ----------------------------------------------------------------------------- HELM
HELM = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "eval_logs" / \
    "helm_mmlu_philosophy_gpt2"
needs_helm = pytest.mark.skipif(not HELM.is_dir(), reason=f"HELM corpus run not found: {HELM}")


@needs_helm
def test_helm_stats_json_recomputed_from_the_instances():
    """Every stat of stats.json (split test, unperturbed) that per_instance_stats.json holds is
    the mean of its per-instance means (HELM's MetricStat merge: Σ sum / Σ count)."""
    with pytest.warns(UserWarning) as caught:
        res = load_adapter(HELM)
    assert [str(w.message).split(": ", 1)[1] for w in caught] == [  # the only note
        "1 instance(s) of split 'valid' not read (split='test'; pass split='valid' to read them)"]
    per_instance = json.loads((HELM / "per_instance_stats.json").read_text())
    stats = json.loads((HELM / "stats.json").read_text())
    checked = 0
    for stat in stats:
        name = stat["name"]
        if name["split"] != "test" or "perturbation" in name or name["name"] not in set(
                res.scores.metrics):
            continue
        values = [st["sum"] / st["count"] for e in per_instance for st in e["stats"]
                  if st["name"] == name and st["count"]]
        assert abs(sum(values) / len(values) - stat["mean"]) <= 1e-12
        ours = res.scores.frame.query("metric == @name['name']")["value"].mean()
        assert abs(ours - stat["mean"]) <= 1e-12
        checked += 1
    assert checked == len(res.scores.metrics) == 9


def _helm_copy(tmp_path: Path) -> Path:
    dest = tmp_path / "helm_run"
    shutil.copytree(HELM, dest)
    return dest


@needs_helm
def test_helm_doctored_stats_json_is_an_error(tmp_path):
    run = _helm_copy(tmp_path)
    stats = json.loads((run / "stats.json").read_text())
    target = next(s for s in stats if s["name"] == {"name": "exact_match", "split": "test"})
    target["mean"] = 0.5
    (run / "stats.json").write_text(json.dumps(stats))
    with pytest.raises(InputError) as exc:
        load_adapter(run)
    msg = str(exc.value)
    for part in ("stats.json", "'exact_match'", "0.5", "0.1111111111111111", "9 instance"):
        assert part in msg, (part, msg)


@needs_helm
def test_helm_partial_per_instance_stats_warns(tmp_path):
    run = _helm_copy(tmp_path)
    entries = json.loads((run / "per_instance_stats.json").read_text())
    test_ids = [e["instance_id"] for e in entries
                if any(st["name"]["split"] == "test" for st in e["stats"])]
    kept = [e for e in entries if e["instance_id"] != test_ids[0]]
    (run / "per_instance_stats.json").write_text(json.dumps(kept))
    with pytest.warns(UserWarning, match=r"reports 9 instance\(s\) on split 'test' but "
                                         r"per_instance_stats.json holds 8"):
        res = load_adapter(run)
    assert len(set(res.scores.frame["item"])) == 8


# ----------------------------------------------------------------------------- properties
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=2, max_size=60))
def test_tool_aggregate_f1_mcc_are_sklearns(pairs):
    """lm-eval's f1 / matthews_corrcoef aggregations are sklearn's on the (gold, pred) pairs."""
    skm = pytest.importorskip("sklearn.metrics",
                              reason="lm-eval's f1/mcc are scikit-learn's (the 'test' extra)")
    f1_score, matthews_corrcoef = skm.f1_score, skm.matthews_corrcoef
    golds, preds = zip(*pairs, strict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn warns on an undefined F1 (it returns 0)
        want_f1 = f1_score(golds, preds, zero_division=0)
        want_mcc = matthews_corrcoef(golds, preds)
    assert abs(tool_aggregate("f1", [list(p) for p in pairs]) - want_f1) <= 1e-12
    assert abs(tool_aggregate("matthews_corrcoef", [list(p) for p in pairs]) - want_mcc) <= 1e-12


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-50, 0), st.integers(1, 200)), min_size=1, max_size=40))
def test_tool_aggregate_perplexities_follow_lm_evals_formulas(items):
    """perplexity = exp(-mean ll); weighted_perplexity = exp(-Σll/Σn); bits_per_byte =
    -Σll/Σn/ln 2 (lm_eval/api/metrics.py), invariant to the order of the samples."""
    import math

    ll = [x for x, _ in items]
    n = [k for _, k in items]
    assert math.isclose(tool_aggregate("perplexity", ll), math.exp(-sum(ll) / len(ll)),
                        rel_tol=1e-12)
    rows = [list(x) for x in items]
    wp = tool_aggregate("weighted_perplexity", rows)
    assert math.isclose(wp, math.exp(-sum(ll) / sum(n)), rel_tol=1e-12)
    assert math.isclose(tool_aggregate("weighted_perplexity", rows[::-1]), wp, rel_tol=1e-12)
    assert math.isclose(tool_aggregate("bits_per_byte", rows),
                        -sum(ll) / sum(n) / math.log(2), rel_tol=1e-12, abs_tol=1e-15)


def test_lmeval_aggregation_recorded_as_a_function_repr(tmp_path):
    """A results file may record ``aggregation`` as a function's repr: lm-eval's own functions
    are known by name (f1_score -> f1, still lm-eval's f1); another function's samples are
    left out of the scores and its aggregate is said to be unchecked."""
    results = _copy(tmp_path)
    res = json.loads(results.read_text())
    res["configs"]["ranger_yesno"]["metric_list"] = [
        {"metric": "acc"}, {"metric": "acc_norm"}, {"metric": "brier_score"},
        {"metric": "f1", "aggregation": "<function f1_score at 0x7f3a2c1b5e40>"},
        {"metric": "mcc", "aggregation": "<function my_mcc at 0x7f3a2c1b5f80>"}]
    results.write_text(json.dumps(res))
    with pytest.warns(UserWarning) as caught:
        scores = read_adapter(results)
    messages = " ".join(str(w.message) for w in caught)
    assert "metric 'mcc' is corpus-level (lm-eval aggregation <function my_mcc" in messages
    assert "ranger_yesno/mcc (<function my_mcc at 0x7f3a2c1b5f80>) not recomputed" in messages
    assert "f1" in scores.metrics and "mcc" not in scores.metrics
    frame = scores.filter(datasets=["ranger_yesno"], metrics=["f1"]).frame
    two = pd.concat([frame, frame.assign(system="copy")], ignore_index=True)
    mean = rg.compare(two, n_resamples=99).means.set_index("system").loc["dummy-a", "mean"]
    assert close(mean, lmeval_reported()["ranger_yesno", "dummy-a", "f1"], "f1")


def test_lmeval_what_no_set_metric_computes_is_refused_by_name(tmp_path):
    """Several references per item (chrf) and a task's own aggregation function (mcc) cannot be
    tested: left out with a note, and asking for them is an error naming the metric, the
    aggregation, why and what to do. Their aggregates are still recomputed and checked."""
    from ranger_eval.io.adapters import check_corpus_metrics

    sacrebleu = pytest.importorskip("sacrebleu", reason="lm-eval's chrf is sacrebleu's (the 'test' extra)")

    results = _copy(tmp_path)
    samples = next(results.parent.glob("samples_ranger_gen_*.jsonl"))
    lines = [json.loads(x) for x in samples.read_text().splitlines()]
    for s in lines:  # two references per item: the target and "lol"
        s["chrf"] = [[s["chrf"][0], "lol"], s["chrf"][1]]
    samples.write_text("".join(json.dumps(s) + "\n" for s in lines))
    res = json.loads(results.read_text())
    refs = [[s["chrf"][0][0] for s in lines], ["lol"] * len(lines)]
    res["results"]["ranger_gen"]["chrf,none"] = sacrebleu.corpus_chrf(
        [s["chrf"][1] for s in lines], refs).score
    res["configs"]["ranger_yesno"]["metric_list"] = [
        {"metric": "acc"}, {"metric": "acc_norm"}, {"metric": "brier_score"}, {"metric": "f1"},
        {"metric": "mcc", "aggregation": "<function my_mcc at 0x7f3a2c1b5f80>"}]
    results.write_text(json.dumps(res))
    with pytest.warns(UserWarning) as caught:
        scores = read_adapter(results)  # the multi-reference chrf agrees with sacrebleu's
    messages = " ".join(str(w.message) for w in caught)
    assert "metric 'chrf' is corpus-level (lm-eval aggregation chrf)" in messages
    assert "several references per item" in messages
    assert "chrf" not in scores.metrics and "mcc" not in scores.metrics
    assert {"ter", "bleu", "f1"} <= set(scores.metrics)
    with pytest.raises(InputError, match=r"metric 'chrf' is corpus-level \(lm-eval aggregation "
                                         r"chrf.*several references per item.*metric_fn"):
        check_corpus_metrics([results], ["chrf"])
    with pytest.raises(InputError, match=r"metric 'mcc' is corpus-level \(lm-eval aggregation "
                                         r"<function my_mcc.*none of Ranger's set-level"):
        check_corpus_metrics([results], ["mcc"])
    check_corpus_metrics([results], ["ter", "perplexity", "brier_score"])  # handled: no error


def test_lmeval_median_aggregation_is_lm_evals_upper_median(tmp_path):
    """A task whose metric_list gives ``aggregation: median`` (lm-eval's
    ``sorted(arr)[len(arr) // 2]``): checked against the results file, then tested on the
    set-level path as ``upper_median`` of the per-item values, never their mean."""
    results = _copy(tmp_path)
    res = json.loads(results.read_text())
    res["configs"]["ranger_lambada"]["metric_list"] = [
        {"metric": "acc"}, {"metric": "perplexity", "aggregation": "median"}]
    samples = next(results.parent.glob("samples_ranger_lambada_*.jsonl"))
    ll = [json.loads(x)["perplexity"] for x in samples.read_text().splitlines()]
    median = sorted(ll)[len(ll) // 2]  # lm_eval/api/metrics.py, 0.4.13
    res["results"]["ranger_lambada"]["perplexity,none"] = median
    results.write_text(json.dumps(res))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scores = read_adapter(results)
    frame = scores.filter(metrics=["perplexity"]).frame
    assert set(frame["set_metric"]) == {"upper_median"}
    two = pd.concat([frame, frame.assign(system="copy")], ignore_index=True)
    means = rg.compare(two, n_resamples=99).means.set_index("system")["mean"]
    assert means["dummy-a"] == median != sum(ll) / len(ll)
    res["results"]["ranger_lambada"]["perplexity,none"] = median + 0.01
    results.write_text(json.dumps(res))
    with pytest.raises(InputError, match=r"reports .* \(median of 30 samples\)"):
        load_adapter(results)
