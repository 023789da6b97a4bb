"""Inspect AI and HELM adapters on the real logs: names, values, agreement with the tools'
own aggregates, the .eval container, epochs, and bad input."""
from __future__ import annotations

import json
import shutil
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

from ranger_eval.errors import InputError, ScoresError
from ranger_eval.io.adapters import load_adapter, read_adapter, read_adapters, sniff
from ranger_eval.io.adapters.inspectai import value_to_float

QWEN, SONNET = "data_arc_qwen.json", "data_arc_sonnet.json"
HELM_RUN = "helm_mmlu_philosophy_gpt2"


@pytest.fixture()
def inspect_dir(corpus) -> Path:
    return corpus / "eval_logs" / "inspect_arc_easy"


@pytest.fixture()
def helm_dir(corpus) -> Path:
    return corpus / "eval_logs" / HELM_RUN


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# ----------------------------------------------------------------------------- Inspect
@pytest.mark.parametrize(("name", "model", "n", "accuracy"), [
    (QWEN, "ollama/qwen2.5:0.5b", 3, 1 / 3), (SONNET, "anthropic/claude-sonnet-4-0", 5, 1.0)])
def test_inspect_real_logs(inspect_dir, name, model, n, accuracy):
    log = json.loads((inspect_dir / name).read_text())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = load_adapter(inspect_dir / name)
    df = res.scores.frame
    assert res.format == "inspect"
    assert set(df["dataset"]) == {"inspect_evals/arc_easy"}
    assert set(df["system"]) == {model}
    assert set(df["metric"]) == {"choice"}
    assert list(df["item"]) == [str(i) for i in range(1, n + 1)]
    assert "seed" not in df.columns  # one epoch
    assert df["label"].tolist() == [s["target"] for s in log["samples"]]
    assert df["prediction"].tolist() == [s["scores"]["choice"]["answer"] for s in log["samples"]]
    # Inspect's reported accuracy equals the mean of our per-item values
    reported = log["results"]["scores"][0]["metrics"]["accuracy"]["value"]
    agree = res.agreement()
    assert agree["statistic"].tolist() == ["accuracy"]
    assert abs(agree["ours"].iloc[0] - reported) < 1e-12
    assert abs(reported - accuracy) < 1e-12


def test_inspect_two_models_need_the_intersection(inspect_dir):
    s = read_adapters([inspect_dir / QWEN, inspect_dir / SONNET])
    with pytest.raises(ScoresError, match=r"2 only in 'anthropic/claude-sonnet-4-0': '4', '5'"):
        s.pair("inspect_evals/arc_easy", "anthropic/claude-sonnet-4-0", "ollama/qwen2.5:0.5b")
    with pytest.warns(UserWarning, match="dropped 2 item"):
        p = s.pair("inspect_evals/arc_easy", "anthropic/claude-sonnet-4-0",
                   "ollama/qwen2.5:0.5b", missing="intersect")
    assert p.treatment.tolist() == [1.0, 1.0, 1.0] and p.control.tolist() == [1.0, 0.0, 0.0]


def _to_eval_zip(log: dict, dest: Path) -> Path:
    """The same log in Inspect's default .eval container (header.json, samples/*.json,
    reductions.json), as inspect_ai.log's eval recorder writes it."""
    header = {k: v for k, v in log.items() if k not in ("samples", "reductions")}
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("_journal/start.json", json.dumps({"version": 2, "eval": log["eval"]}))
        for s in log["samples"]:
            zf.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
        zf.writestr("reductions.json", json.dumps(log.get("reductions", [])))
        zf.writestr("header.json", json.dumps(header))
    return dest


def test_inspect_eval_container(inspect_dir, tmp_path):
    log = json.loads((inspect_dir / SONNET).read_text())
    path = _to_eval_zip(log, tmp_path / "arc.eval")
    assert sniff(path) == "inspect"
    a = read_adapter(inspect_dir / SONNET).frame
    b = read_adapter(path).frame
    assert a.equals(b)


def test_inspect_epochs_are_samples(inspect_dir, tmp_path):
    """Three epochs: each becomes a sample (K = 3 generations per item, not a seed); the
    per-item mean over epochs (Inspect's default 'mean' reducer) averaged over items is
    Inspect's accuracy."""
    log = json.loads((inspect_dir / SONNET).read_text())
    values = {1: "C", 2: "I", 3: "P"}
    samples = []
    for s in log["samples"]:
        for epoch in (1, 2, 3):
            t = json.loads(json.dumps(s))
            t["epoch"] = epoch
            t["scores"]["choice"]["value"] = values[epoch] if int(s["id"]) % 2 else "C"
            samples.append(t)
    log["samples"] = samples
    log["eval"]["config"]["epochs"] = 3
    per_item = [np.mean([value_to_float(t["scores"]["choice"]["value"]) for t in samples
                         if t["id"] == i]) for i in range(1, 6)]
    metrics = log["results"]["scores"][0]["metrics"]  # Inspect's numbers for these epochs
    metrics["accuracy"]["value"] = float(np.mean(per_item))
    metrics["stderr"]["value"] = float(np.std(per_item, ddof=1) / np.sqrt(len(per_item)))
    path = tmp_path / "epochs.json"
    path.write_text(json.dumps(log, indent=2))
    res = load_adapter(path)
    assert set(res.scores.raw_frame["sample"]) == {"1", "2", "3"}
    assert not res.scores.has_seeds and res.scores.samples_label == "3"
    assert res.scores.values("inspect_evals/arc_easy", "anthropic/claude-sonnet-4-0").tolist() \
        == pytest.approx(per_item)
    assert np.abs(res.agreement()["difference"]).max() < 1e-12


@pytest.mark.parametrize(("value", "expected"), [
    ("C", 1.0), ("I", 0.0), ("P", 0.5), ("N", 0.0), (True, 1.0), (0.25, 0.25), (3, 3.0),
    ("yes", 1.0), ("False", 0.0), ("0.75", 0.75), ("maybe", None), ([1, 2], None), ("nan", None)])
def test_value_to_float_matches_inspect(value, expected):
    assert value_to_float(value) == expected


def test_inspect_unconvertible_value_is_an_error(inspect_dir, tmp_path):
    log = json.loads((inspect_dir / QWEN).read_text())
    log["samples"][1]["scores"]["choice"]["value"] = "maybe"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(log, indent=2))
    with pytest.raises(InputError, match=r"bad\.json:\d+ \(samples\[1\]\): sample 2 \(epoch 1\) "
                                         r"scorer 'choice' has value 'maybe'"):
        load_adapter(path)


def test_inspect_truncated_log(inspect_dir, tmp_path):
    text = (inspect_dir / SONNET).read_text()
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) // 2])
    assert sniff(path) == "inspect"  # the header is intact
    with pytest.raises(InputError, match=r"cut\.json:\d+: unexpected end of file: the JSON text "
                                         r"is incomplete \(truncated\?\); expected an Inspect"):
        load_adapter(path)


def test_inspect_truncated_eval_zip(inspect_dir, tmp_path):
    log = json.loads((inspect_dir / SONNET).read_text())
    path = _to_eval_zip(log, tmp_path / "arc.eval")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=r"arc\.eval: not a readable \.eval archive"):
        load_adapter(path, format="inspect")


def test_inspect_errored_samples_are_counted(inspect_dir, tmp_path):
    log = json.loads((inspect_dir / SONNET).read_text())
    log["samples"][4]["scores"] = None
    log["samples"][4]["error"] = {"message": "timeout"}
    path = tmp_path / "err.json"
    path.write_text(json.dumps(log))
    with pytest.warns(UserWarning, match=r"1 sample\(s\) without scores"):
        res = load_adapter(path)
    assert len(res.scores) == 4


# ----------------------------------------------------------------------------- HELM
def test_helm_real_run(helm_dir):
    with pytest.warns(UserWarning, match=r"1 instance\(s\) of split 'valid' not read"):
        res = load_adapter(helm_dir)
    s = res.scores
    assert res.format == "helm"
    assert s.datasets == ("mmlu:subject=philosophy,method=multiple_choice_joint",)
    assert s.systems == ("openai/gpt2",)
    assert "exact_match" in s.metrics and "num_prompt_tokens" not in s.metrics
    em = s.values(s.datasets[0], "openai/gpt2", "exact_match")
    assert len(em) == 9 and "id11" not in em.index  # id11 is the valid split
    # HELM's stats.json means equal ours, for every metric read
    stats = json.loads((helm_dir / "stats.json").read_text())
    helm = {x["name"]["name"]: x["mean"] for x in stats
            if x["name"]["split"] == "test" and "perturbation" not in x["name"] and x["count"]}
    agree = res.agreement()
    assert set(agree["metric"]) == set(s.metrics)
    for row in agree.itertuples():
        assert abs(row.ours - helm[row.metric]) < 1e-12
    assert abs(em.mean() - 1 / 9) < 1e-12


def test_helm_valid_split_and_metric_choice(helm_dir):
    with pytest.warns(UserWarning, match=r"9 instance\(s\) of split 'test' not read"):
        res = load_adapter(helm_dir, split="valid", metrics=["exact_match", "num_prompt_tokens"])
    df = res.scores.frame
    assert set(df["metric"]) == {"exact_match", "num_prompt_tokens"}
    assert set(df["item"]) == {"id11"}
    assert np.abs(res.agreement()["difference"]).max() < 1e-12


def test_helm_names_without_run_spec(helm_dir, tmp_path):
    run = tmp_path / "mmlu:subject=philosophy,method=multiple_choice_joint,model=openai_gpt2"
    run.mkdir()
    shutil.copy(helm_dir / "per_instance_stats.json", run)
    s = _quiet(read_adapter, run / "per_instance_stats.json")
    assert s.datasets == ("mmlu:subject=philosophy,method=multiple_choice_joint",)
    assert s.systems == ("openai_gpt2",)  # the folder name's model= argument


def test_helm_train_trials_are_seeds(helm_dir, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(helm_dir, run)
    entries = json.loads((run / "per_instance_stats.json").read_text())
    second = json.loads(json.dumps(entries))
    for e in second:
        e["train_trial_index"] = 1
    (run / "per_instance_stats.json").write_text(json.dumps(entries + second))
    s = _quiet(read_adapter, run, metrics=["exact_match"])
    assert set(s.frame["seed"]) == {"0", "1"} and len(s) == 18


def test_helm_missing_stats_file(tmp_path):
    (tmp_path / "run").mkdir()
    with pytest.raises(InputError, match=r"no per_instance_stats\.json"):
        load_adapter(tmp_path / "run", format="helm")


def test_helm_truncated_stats(helm_dir, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(helm_dir, run)
    f = run / "per_instance_stats.json"
    f.chmod(0o644)
    f.write_text(f.read_text()[:30000])
    with pytest.raises(InputError, match=r"per_instance_stats\.json:\d+: unexpected end of file"):
        load_adapter(run)


def test_helm_unknown_metric(helm_dir):
    with pytest.raises(InputError, match=r"no stat named rouge_l on split 'test'"):
        _quiet(load_adapter, helm_dir, metrics=["rouge_l"])


def test_inspect_large_json_log_is_streamed(inspect_dir, tmp_path):
    """Samples are parsed one at a time: peak memory stays far below the log's size."""
    import tracemalloc

    log = json.loads((inspect_dir / QWEN).read_text())
    template = log["samples"][0]
    pad = "y" * 20000
    log["samples"] = []
    for i in range(1, 1001):
        s = json.loads(json.dumps(template))
        s["id"] = i
        s["events"] = [{"event": "model", "output": pad}]
        log["samples"].append(s)
    log["reductions"] = []
    del log["results"]  # they describe the original samples, not these copies
    path = tmp_path / "big.json"
    path.write_text(json.dumps(log, indent=1))
    del log
    size = path.stat().st_size
    tracemalloc.start()
    res = load_adapter(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(res.scores) == 1000
    # bounded by the stream's buffer (about 1 M characters, a few copies), not the file
    assert size > 25e6 and peak < 12e6, (peak, size)


def _zip_zstd(members: dict[str, bytes]) -> bytes:
    """A zip archive whose members are zstd-compressed (method 93), as Inspect ≥ 0.3.1xx writes
    .eval logs; Python < 3.14's zipfile can list but not decompress them."""
    import struct
    import zlib

    import pyarrow as pa

    out, central = bytearray(), bytearray()
    for name, data in members.items():
        comp = pa.Codec("zstd").compress(data).to_pybytes()
        crc, raw_name, offset = zlib.crc32(data), name.encode(), len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 63, 0, 93, 0, 0x21, crc, len(comp),
                           len(data), len(raw_name), 0) + raw_name + comp
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 63, 63, 0, 93, 0, 0x21, crc,
                               len(comp), len(data), len(raw_name), 0, 0, 0, 0, 0,
                               offset) + raw_name
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central),
                      len(out), 0)
    return bytes(out + central + end)


def test_inspect_eval_zstd_members(inspect_dir, tmp_path):
    log = json.loads((inspect_dir / SONNET).read_text())
    header = {k: v for k, v in log.items() if k not in ("samples", "reductions")}
    members = {"_journal/start.json": json.dumps({"eval": log["eval"]}).encode()}
    for s in log["samples"]:
        members[f"samples/{s['id']}_epoch_{s['epoch']}.json"] = json.dumps(s).encode()
    members["header.json"] = json.dumps(header).encode()
    path = tmp_path / "zstd.eval"
    path.write_bytes(_zip_zstd(members))
    assert sniff(path) == "inspect"
    assert read_adapter(path).frame.equals(read_adapter(inspect_dir / SONNET).frame)
    # a damaged member is an error naming the archive and the member
    data = bytearray(path.read_bytes())
    at = data.index(b"samples/3_epoch_1.json") + len("samples/3_epoch_1.json") + 8
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match=r"zstd\.eval: member samples/3_epoch_1\.json cannot be "
                                         r"read"):
        load_adapter(path)


def test_inspect_logs_written_by_inspect_ai(tmp_path):
    """Oracle (runs where inspect_ai is installed, offline): logs written by Inspect itself, with
    3 epochs, a dict-valued scorer and both containers; its reported metrics equal ours."""
    pytest.importorskip("inspect_ai", exc_type=ImportError)
    import random

    from inspect_ai import Task, eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import Score, Target, includes, mean, scorer
    from inspect_ai.solver import solver

    rng = random.Random(7)

    @solver
    def canned():
        async def solve(state, generate):  # no model call: nothing is downloaded
            text = "Default output" if rng.random() < 0.5 else "nope"
            state.output = ModelOutput.from_content(model="mockllm/model", content=text)
            return state
        return solve

    @scorer(metrics={"a": [mean()], "b": [mean()]})
    def two_values():
        async def score(state, target: Target):
            n = len(state.input_text) + rng.randint(0, 3)
            return Score(value={"a": (n % 3) / 2, "b": "C" if n % 2 else "I"})
        return score

    samples = [Sample(input=f"q {i} " + "x" * i, target="Default output", id=f"q{i:03d}")
               for i in range(7)]
    task = Task(dataset=MemoryDataset(samples), solver=[canned()],
                scorer=[includes(), two_values()], name="toy")
    for fmt, epochs in (("eval", 3), ("json", 1)):
        eval(task, model="mockllm/model", epochs=epochs, log_dir=str(tmp_path / fmt),
             log_format=fmt, display="none")
        (path,) = (tmp_path / fmt).iterdir()
        assert sniff(path) == "inspect"
        res = load_adapter(path)
        assert set(res.scores.metrics) == {"includes", "two_values/a", "two_values/b"}
        assert res.scores.has_samples == (epochs > 1) and not res.scores.has_seeds
        agree = res.agreement()
        assert len(agree) == 3 and np.abs(agree["difference"]).max() < 1e-12


def test_read_adapters_mixes_runs_with_and_without_samples(inspect_dir, tmp_path):
    log = json.loads((inspect_dir / QWEN).read_text())
    log["eval"]["model"] = "other/model"
    log["samples"] = [dict(s, epoch=e) for s in log["samples"] for e in (1, 2)]
    log["eval"]["config"]["epochs"] = 2
    path = tmp_path / "two_epochs.json"
    path.write_text(json.dumps(log))
    s = read_adapters([inspect_dir / QWEN, path])
    raw = s.raw_frame  # the one-epoch log is K = 1 beside the two-epoch one
    assert set(raw.loc[raw["system"] == "ollama/qwen2.5:0.5b", "sample"]) == {"1"}
    p = s.pair("inspect_evals/arc_easy", "other/model", "ollama/qwen2.5:0.5b")
    assert p.treatment.tolist() == p.control.tolist() == [1.0, 0.0, 0.0]
