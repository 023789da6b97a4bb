"""lm-evaluation-harness adapter: real 0.4.9.2 output, the older layouts, agreement with the
harness's own aggregates, and bad input (each error names the file, line and value)."""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from ranger_eval.errors import InputError
from ranger_eval.io.adapters import load_adapter, read_adapter, read_adapters, sniff

DATE = "2026-01-21T03-44-18.458309"
MODEL = "RylanSchaeffer/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000_epch_1_ot_1"
TASK = "math_perturbed_full"


SKLEARN = "lm-eval aggregates f1 and mcc with scikit-learn (the 'test' extra)"


def _sklearn_metrics():
    """``sklearn.metrics``, lm-eval's own f1/mcc aggregations; the test skips without it."""
    return pytest.importorskip("sklearn.metrics", reason=SKLEARN)


@pytest.fixture()
def lm_dir(corpus) -> Path:
    return corpus / "eval_logs" / "lm_eval"


def _load(path: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_adapter(path)


def _doc_hash(doc) -> str:  # lm-eval: hash_string(json.dumps(doc, indent=2, ensure_ascii=False))
    return hashlib.sha256(json.dumps(doc, indent=2, ensure_ascii=False).encode()).hexdigest()


# ----------------------------------------------------------------------------- real output
def test_real_samples_file(lm_dir):
    path = lm_dir / f"samples_{TASK}_{DATE}.jsonl"
    with pytest.warns(UserWarning, match=r"holds 10 documents but lm-eval scored 5000"):
        res = load_adapter(path)
    df = res.scores.frame
    assert res.format == "lm-eval"
    assert list(df["item"]) == [str(i) for i in range(10)]
    assert set(df["dataset"]) == {TASK}          # only this task has a samples file
    assert set(df["system"]) == {MODEL}          # model_name of the results file
    assert set(df["metric"]) == {"exact_match"}  # filter "none" adds no suffix
    assert (df["value"] == 0.0).all()
    assert df["higher_is_better"].tolist() == [True] * 10
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert df["doc_hash"].tolist() == [x["doc_hash"] for x in lines]
    # the harness's aggregate is kept, but not compared: the file was cut to 10 of 5000 docs
    rep = res.reported.set_index(["metric", "statistic"])
    assert rep.loc[("exact_match", "mean"), "value"] == 0.0
    assert not rep["comparable"].any()
    assert res.agreement().empty
    assert res.corpus is None


def test_real_results_file_and_folder_give_the_same(lm_dir):
    a = _load(lm_dir / f"samples_{TASK}_{DATE}.jsonl").scores.frame
    b = _load(lm_dir / f"results_{DATE}.json").scores.frame
    c = _load(lm_dir).scores.frame
    assert a.equals(b) and a.equals(c)


# ----------------------------------------------------------------------------- synthetic 0.4.9
def _sample(doc_id, doc, filt, metrics: dict) -> dict:
    return {"doc_id": doc_id, "doc": doc, "target": str(doc.get("answer")), "arguments": {},
            "resps": [["x"]], "filtered_resps": ["x"], "filter": filt,
            "metrics": list(metrics), "doc_hash": _doc_hash(doc), "prompt_hash": "p",
            "target_hash": "t", **metrics}


def write_run(folder: Path, model: str, seed: int, date: str = DATE) -> dict:
    """An lm-eval 0.4.9 output folder: gsm8k-like task with two filters, an MMLU group with two
    subtasks, and a task with corpus-level f1/mcc. Aggregates are computed as lm-eval does
    (mean for exact_match/acc) and written to results_<date>.json."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    results: dict = {"results": {}, "groups": {}, "configs": {}, "higher_is_better": {},
                     "n-samples": {}, "model_name": model,
                     "config": {"model": "hf", "model_args": f"pretrained={model}"}}
    expected: dict = {}

    def task(name, filters, metric, n, hib=True, agg="mean"):
        lines, per_filter = [], {f: [] for f in filters}
        for f in filters:
            for i in range(n):
                doc = {"question": f"q{i} ünïcode", "answer": i % 3, "idx": i}
                v = float(rng.random() < 0.6)
                lines.append(_sample(i, doc, f, {metric: v}))
                per_filter[f].append(v)
        (folder / f"samples_{name}_{date}.jsonl").write_text(
            "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
        results["results"][name] = {"alias": name}
        for f, vals in per_filter.items():
            results["results"][name][f"{metric},{f}"] = float(np.mean(vals))
            results["results"][name][f"{metric}_stderr,{f}"] = float(np.std(vals, ddof=1) /
                                                                    np.sqrt(n))
            expected[(name, metric if f == "none" else f"{metric},{f}")] = float(np.mean(vals))
        results["configs"][name] = {"task": name, "metric_list": [
            {"metric": metric, "aggregation": agg, "higher_is_better": hib}]}
        results["higher_is_better"][name] = {metric: hib}
        results["n-samples"][name] = {"original": n, "effective": n}

    task("gsm8k_like", ["strict-match", "flexible-extract"], "exact_match", 40)
    task("mmlu_anatomy", ["none"], "acc", 25)
    task("mmlu_virology", ["none"], "acc", 30)
    results["results"]["mmlu"] = {"alias": "mmlu", "acc,none": 0.5, "acc_stderr,none": 0.1}
    results["group_subtasks"] = {"mmlu": ["mmlu_anatomy", "mmlu_virology"]}
    # a corpus-level task: f1 and mcc are (gold, pred) pairs aggregated over the corpus
    lines = []
    for i in range(12):
        doc = {"sentence": f"s{i}", "label": i % 2}
        pair = [i % 2, int(rng.random() < 0.5)]
        lines.append(_sample(i, doc, "none", {"acc": float(pair[0] == pair[1]), "f1": pair,
                                              "mcc": pair}))
    (folder / f"samples_cola_like_{date}.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in lines))
    accs = [x["acc"] for x in lines]
    skm = _sklearn_metrics()
    golds, preds = zip(*(x["f1"] for x in lines), strict=True)
    results["results"]["cola_like"] = {  # lm-eval's aggregations (sklearn), checked on reading
        "alias": "cola_like", "acc,none": float(np.mean(accs)),
        "f1,none": float(skm.f1_score(golds, preds)),
        "mcc,none": float(skm.matthews_corrcoef(golds, preds))}
    results["configs"]["cola_like"] = {"task": "cola_like", "metric_list": [
        {"metric": "acc", "aggregation": "mean", "higher_is_better": True},
        {"metric": "f1", "aggregation": "f1", "higher_is_better": True},
        {"metric": "mcc", "aggregation": "matthews_corrcoef", "higher_is_better": True}]}
    results["n-samples"]["cola_like"] = {"original": 12, "effective": 12}
    expected[("cola_like", "acc")] = float(np.mean(accs))
    (folder / f"results_{date}.json").write_text(json.dumps(results, indent=2))
    return expected


def test_agreement_with_the_harness_aggregates(tmp_path):
    expected = write_run(tmp_path / "out" / "model-a", "org/model-a", seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a complete, consistent output raises no warning
        res = load_adapter(tmp_path / "out" / "model-a" / f"results_{DATE}.json")
    agree = res.agreement()
    assert len(agree) == len(expected) == 5
    assert np.abs(agree["difference"]).max() < 1e-12
    ours = {(r.dataset, r.metric): r.ours for r in agree.itertuples()}
    for key, value in expected.items():
        assert abs(ours[key] - value) < 1e-12
    s = res.scores
    # several filters of one task become separate metrics; subtasks are separate datasets
    assert set(s.filter(datasets=["gsm8k_like"]).metrics) == {
        "exact_match,strict-match", "exact_match,flexible-extract"}
    assert {"mmlu_anatomy", "mmlu_virology"} <= set(s.datasets)
    assert "mmlu" not in s.datasets  # a group has no samples of its own
    # corpus-level metrics stay out of Scores, with label/prediction kept for the bootstrap
    corpus = res.corpus
    assert set(corpus["metric"]) == {"f1", "mcc"}
    assert set(corpus["aggregation"]) == {"f1", "matthews_corrcoef"}
    row = corpus[(corpus["metric"] == "f1") & (corpus["item"] == "3")].iloc[0]
    assert [row["label"], row["prediction"]] == json.loads(row["raw"])
    assert np.isnan(corpus["value"]).all()


def test_two_systems_pair_by_doc_id(tmp_path):
    write_run(tmp_path / "out" / "a", "org/a", seed=1)
    write_run(tmp_path / "out" / "b", "org/b", seed=2, date="2026-02-01T10-00-00.000001")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = read_adapter(tmp_path / "out")  # a folder of model folders
    assert set(s.systems) == {"org/a", "org/b"}
    p = s.pair("gsm8k_like", "org/b", "org/a", metric="exact_match,flexible-extract")
    assert p.n == 40 and list(p.items[:3]) == ["0", "1", "10"]  # ids as text, sorted
    s2 = read_adapters([tmp_path / "out" / "a", tmp_path / "out" / "b"])
    assert len(s2) == len(s)


# ----------------------------------------------------------------------------- older layouts
def _to_old_layout(lm_dir: Path, dest: Path, with_filter_keys: bool) -> Path:
    """The real output rewritten the way lm-eval 0.4.0–0.4.2 wrote it: results.json and
    ``<model_args with / and = replaced by __>_<task>.jsonl`` holding an indented JSON array
    without the ``filter``/``metrics`` keys (and without model_name in the results)."""
    results = json.loads((lm_dir / f"results_{DATE}.json").read_text())
    for key in ("model_name", "model_name_sanitized", "higher_is_better"):
        results.pop(key)
    dest.mkdir()
    (dest / "results.json").write_text(json.dumps(results, indent=2))
    samples = [json.loads(x) for x in (lm_dir / f"samples_{TASK}_{DATE}.jsonl").open()]
    if not with_filter_keys:
        for s in samples:
            for k in ("filter", "metrics", "doc_hash", "prompt_hash", "target_hash"):
                s.pop(k)
    prefix = re.sub("/|=", "__", results["config"]["model_args"])
    out = dest / f"{prefix}_{TASK}.jsonl"
    out.write_text(json.dumps(samples, indent=2, ensure_ascii=False))
    return out


def test_old_json_array_layout(lm_dir, tmp_path):
    new = _load(lm_dir / f"samples_{TASK}_{DATE}.jsonl").scores.frame
    old_file = _to_old_layout(lm_dir, tmp_path / "old", with_filter_keys=False)
    assert sniff(old_file) == "lm-eval"
    res = _load(old_file)
    old = res.scores.frame
    # metric keys found as the per-sample fields that also appear in results; system from
    # config.model_args "pretrained=..."
    assert set(old["system"]) == {MODEL}
    assert old[["dataset", "metric", "item", "value"]].equals(
        new[["dataset", "metric", "item", "value"]])
    assert old["doc_hash"].isna().all()
    # the results file gives the same
    assert _load(tmp_path / "old" / "results.json").scores.frame.equals(old)


def test_old_layout_several_filters_by_occurrence(tmp_path):
    """Before v0.4.7 a sample has no 'filter' key: lm-eval logged all docs for filter 1, then
    all for filter 2, in the order of the results keys."""
    d = tmp_path / "old"
    d.mkdir()
    results = {"results": {"t": {"exact_match,strict": 0.25, "exact_match,flex": 0.75}},
               "configs": {"t": {"task": "t"}}, "config": {"model_args": "pretrained=m/x"}}
    (d / "results.json").write_text(json.dumps(results))
    strict = [0.0, 1.0, 0.0, 0.0]
    flex = [1.0, 1.0, 0.0, 1.0]
    samples = [{"doc_id": i, "doc": {}, "exact_match": v} for i, v in enumerate(strict)]
    samples += [{"doc_id": i, "doc": {}, "exact_match": v} for i, v in enumerate(flex)]
    (d / "pretrained__m__x_t.jsonl").write_text(json.dumps(samples, indent=2))
    res = _load(d / "pretrained__m__x_t.jsonl")
    s = res.scores
    assert s.values("t", "m/x", "exact_match,strict").tolist() == strict
    assert s.values("t", "m/x", "exact_match,flex").tolist() == flex
    assert np.abs(res.agreement()["difference"]).max() < 1e-12


# ----------------------------------------------------------------------------- bad input
def _copy(lm_dir: Path, dest: Path) -> Path:
    dest.mkdir()
    for f in lm_dir.iterdir():
        shutil.copy(f, dest / f.name)
        (dest / f.name).chmod(0o644)
    return dest / f"samples_{TASK}_{DATE}.jsonl"


def test_jsonl_line_not_json_names_the_line(lm_dir, tmp_path):
    path = _copy(lm_dir, tmp_path / "d")
    lines = path.read_text().splitlines(keepends=True)
    lines[3] = lines[3][:200] + "\n"  # line 4 cut in the middle
    path.write_text("".join(lines))
    with pytest.raises(InputError, match=rf"samples_{TASK}_.*\.jsonl:4: not a JSON line .*"
                                         r"expected lm-evaluation-harness"):
        _load(path)


def test_missing_results_file(lm_dir, tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    path = d / f"samples_{TASK}_{DATE}.jsonl"
    shutil.copy(lm_dir / path.name, path)
    with pytest.raises(InputError, match=rf"missing its results file results_{DATE}\.json"):
        _load(path)


def test_results_without_samples(lm_dir, tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    shutil.copy(lm_dir / f"results_{DATE}.json", d)
    with pytest.raises(InputError, match=r"--log_samples"):
        _load(d / f"results_{DATE}.json")


def test_old_samples_without_results(lm_dir, tmp_path):
    old = _to_old_layout(lm_dir, tmp_path / "old", with_filter_keys=False)
    (tmp_path / "old" / "results.json").unlink()
    with pytest.raises(InputError, match=r"no lm-evaluation-harness results file beside it"):
        _load(old)


def test_doc_hash_mismatch_with_its_doc(lm_dir, tmp_path):
    path = _copy(lm_dir, tmp_path / "d")
    lines = path.read_text().splitlines(keepends=True)
    s = json.loads(lines[6])
    s["doc"]["answer"] = "42"  # the document no longer matches its hash
    lines[6] = json.dumps(s) + "\n"
    path.write_text("".join(lines))
    with pytest.raises(InputError, match=r":7: doc_hash mismatch for doc_id 6"):
        _load(path)
    # the check can be switched off (e.g. for docs that are not JSON round-trippable)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert len(load_adapter(path, check_doc_hash=False).scores) == 10


def test_doc_hash_mismatch_across_systems(tmp_path):
    write_run(tmp_path / "a", "org/a", seed=1)
    write_run(tmp_path / "b", "org/b", seed=2)
    f = tmp_path / "b" / f"samples_mmlu_virology_{DATE}.jsonl"
    lines = [json.loads(x) for x in f.read_text().splitlines()]
    lines[5]["doc"]["question"] = "another question"  # doc_id 5 is a different document in b
    lines[5]["doc_hash"] = _doc_hash(lines[5]["doc"])
    f.write_text("".join(json.dumps(x) + "\n" for x in lines))
    with pytest.raises(InputError, match=r"doc_hash mismatch on dataset 'mmlu_virology', "
                                         r"doc_id 5: system 'org/a'"):
        read_adapters([tmp_path / "a", tmp_path / "b"])


def test_truncated_results_json(lm_dir, tmp_path):
    path = _copy(lm_dir, tmp_path / "d")
    rp = path.with_name(f"results_{DATE}.json")
    rp.write_text(rp.read_text()[:3000])
    with pytest.raises(InputError, match=r"results_.*\.json:\d+: JSON is incomplete \(truncated"):
        _load(path)


def test_doc_id_repeated_for_one_filter(lm_dir, tmp_path):
    path = _copy(lm_dir, tmp_path / "d")
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines + [lines[2]]))
    with pytest.raises(InputError, match=r":11: doc_id 2 \(filter 'none'\) repeats line 3"):
        _load(path)


def test_memory_stays_bounded_on_a_large_jsonl(tmp_path):
    """A samples file is streamed: peak memory grows with the rows kept, not the file size."""
    import tracemalloc

    d = tmp_path / "big"
    d.mkdir()
    n, pad = 4000, "x" * 8000
    results = {"results": {"big": {"acc,none": 0.0}}, "configs": {"big": {}},
               "model_name": "m", "n-samples": {"big": {"effective": n}}}
    (d / f"results_{DATE}.json").write_text(json.dumps(results))
    with (d / f"samples_big_{DATE}.jsonl").open("w") as fh:
        for i in range(n):
            fh.write(json.dumps({"doc_id": i, "doc": {"text": pad}, "resps": [[pad]],
                                 "filter": "none", "metrics": ["acc"], "acc": 0.0}) + "\n")
    size = (d / f"samples_big_{DATE}.jsonl").stat().st_size
    tracemalloc.start()
    res = _load(d)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(res.scores) == n
    assert peak < size / 4, (peak, size)


def test_folder_skips_results_without_samples(tmp_path):
    write_run(tmp_path / "out" / "a", "org/a", seed=1)
    (tmp_path / "out" / "b").mkdir()
    (tmp_path / "out" / "b" / f"results_{DATE}.json").write_text(
        json.dumps({"results": {"t": {"acc,none": 0.5}}, "configs": {}, "model_name": "org/b"}))
    with pytest.warns(UserWarning, match=r"has no samples files beside it .* not read"):
        s = read_adapter(tmp_path / "out")
    assert s.systems == ("org/a",)


def test_pair_metrics_feed_the_set_metric_path(tmp_path):
    """lm-eval metrics stored as [gold, pred] pairs (f1, mcc) become per-item rows with label and
    prediction, so the bootstrap effect of the corpus-level metric can be computed directly."""
    import ranger_eval as rg

    f1_score = _sklearn_metrics().f1_score

    write_run(tmp_path / "out" / "a", "org/a", seed=1)
    write_run(tmp_path / "out" / "b", "org/b", seed=2, date="2026-02-01T10-00-00.000001")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = read_adapter(tmp_path / "out")
    f1_rows = s.frame[s.frame["metric"] == "f1"]
    assert len(f1_rows) and {"label", "prediction"} <= set(f1_rows.columns)
    datasets = list(dict.fromkeys(f1_rows["dataset"]))
    eff = rg.effect_sizes(s, treatment="org/b", control="org/a", metric="f1", metric_fn="f1",
                          datasets=datasets, n_resamples=200, seed=0)
    rows = f1_rows.sort_values("item")
    a, b = rows[rows.system == "org/a"], rows[rows.system == "org/b"]
    expected = (f1_score(b["label"].astype(int), b["prediction"].astype(int))
                - f1_score(a["label"].astype(int), a["prediction"].astype(int)))
    assert float(eff.yi[0]) == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert float(eff.vi[0]) > 0


def test_set_level_metrics_get_no_per_item_standard_error() -> None:
    """lm-eval's corpus BLEU, chrF, TER, perplexities, F1 and MCC are computed over the whole
    set; the per-item rows the adapter keeps for them are the function's inputs, not scores to
    average. rg.describe leaves them out with a warning naming them, and compare's leaderboard
    and comparison.json means give them no se or interval (they once showed exact_match's
    interval beside corpus BLEU = 32.9), the caption saying why."""
    import ranger_eval as rg
    from ranger_eval.report import to_markdown

    pytest.importorskip("sacrebleu", reason="lm-eval's BLEU aggregation (the 'test' extra)")
    _sklearn_metrics()
    logs = Path(__file__).resolve().parents[1] / "oracles" / "lmeval_logs"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = rg.read_scores(logs)
    with pytest.warns(UserWarning, match=r"describe: .*bleu.* left out: set-level metrics"):
        described = rg.describe(scores)
    set_level = {"bleu", "chrf", "ter", "perplexity", "word_perplexity", "byte_perplexity",
                 "bits_per_byte", "f1", "mcc"}
    assert not set_level & set(described["metric"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = rg.compare(scores)
        means = comp.described_means()
        board = comp.leaderboard()
    gone = means["metric"].isin(set_level)
    assert gone.any() and means.loc[gone, ["se", "ci_low", "ci_high"]].isna().all().all()
    assert means.loc[~gone, "se"].notna().all()
    assert set(board.set_level) == set_level
    assert "computed over the whole set, not averaged over items" in to_markdown(board)
