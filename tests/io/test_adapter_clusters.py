"""Clusters read from the logs: an Inspect sample-metadata key, an lm-eval ``doc``
field, a table's column (``cluster=`` / ``--cluster`` / YAML ``cluster:``).

tests/oracles/inspect_clusters/ holds real Inspect logs (make_inspect_logs_clusters.py) whose
results carry Inspect's own ``stderr(cluster="passage")``: ``describe`` must give that number.
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.errors import InputError
from ranger_eval.io import read_scores
from ranger_eval.io.adapters import load_adapter

ORACLES = Path(__file__).resolve().parents[1] / "oracles"
LOGS = ORACLES / "inspect_clusters" / "json"
LMEVAL = ORACLES / "lmeval_logs" / "dummy-a" / "dummy-a"


def _inspect_stderr(path: Path) -> tuple[float, dict[str, str]]:
    log = json.loads(path.read_text())
    (entry,) = log["results"]["scores"]
    metric = entry["metrics"]["stderr"]
    assert metric["params"] == {"cluster": "passage"}
    return metric["value"], {s["id"]: s["metadata"]["passage"] for s in log["samples"]}


@pytest.mark.parametrize("name", ["weak", "strong"])
def test_inspect_metadata_key_gives_clusters_and_inspects_own_clustered_stderr(name: str) -> None:
    path = LOGS / f"{name}.json"
    want, passages = _inspect_stderr(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the clustered stderr is checked, not noted
        res = load_adapter(path, cluster="passage")
    assert res.notes == ()
    scores = res.scores
    assert scores is not None and scores.has_cluster
    table = scores.table
    assert dict(zip(table["item"], table["cluster"], strict=True)) == passages
    row = rg.describe(scores).iloc[0]
    assert row["se"] == pytest.approx(want, rel=1e-12)
    assert row["n_clusters"] == len(set(passages.values()))


def test_inspect_without_the_key_notes_that_the_clustered_stderr_was_not_checked() -> None:
    with pytest.warns(UserWarning, match=r"stderr\(cluster=passage\) \(read the log with "
                                         r"cluster='passage' to check it\)"):
        res = load_adapter(LOGS / "weak.json")
    assert res.scores is not None and not res.scores.has_cluster


def test_inspect_missing_key_is_an_error_naming_the_log_sample_and_key() -> None:
    with pytest.raises(InputError, match=r"weak\.json:\d+ \(samples\[0\]\): item q00 has no "
                                         r"metadata field 'topic' .*fields: 'passage'"):
        read_scores(LOGS / "weak.json", cluster="topic")


def test_a_folder_of_logs_with_clusters_and_system_names() -> None:
    scores = read_scores(LOGS, cluster="passage", system_from="task_args.strong")
    assert set(scores.systems) == {"strong=true", "strong=false"}
    assert scores.pair("passages", "strong=true", "strong=false").clusters is not None


def test_lmeval_doc_field_gives_clusters() -> None:
    (samples,) = LMEVAL.glob("samples_ranger_yesno_*.jsonl")
    scores = read_scores(samples, cluster="label")
    docs = {str(json.loads(line)["doc_id"]): str(json.loads(line)["doc"]["label"])
            for line in samples.read_text().splitlines()}
    table = scores.table
    assert dict(zip(table["item"], table["cluster"], strict=True)) == docs
    (gen,) = LMEVAL.glob("samples_ranger_gen_*.jsonl")
    with pytest.raises(InputError, match=r"samples_ranger_gen_.*\.jsonl:1: item 0 has no doc "
                                         r"field 'label'"):
        read_scores(gen, cluster="label")


def test_table_column_gives_clusters_as_exact_strings(tmp_path: Path) -> None:
    rows = [(s, f"q{i}", f"0{i // 2}", float((i + (s == "B")) % 3 == 0))
            for s in ("A", "B") for i in range(8)]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["system", "item", "passage", "value"]).assign(
        dataset="d").to_csv(path, index=False)
    scores = read_scores(path, cluster="passage")
    assert sorted(set(scores.table["cluster"])) == ["00", "01", "02", "03"]
    with pytest.raises(InputError, match=r"scores\.csv: no column 'topic' to read the clusters "
                                         r"from \(cluster: topic\); columns: "):
        read_scores(path, cluster="topic")
    plain = read_scores(path)
    assert not plain.has_cluster


def test_cluster_option_on_a_format_without_item_fields_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"option\(s\) cluster not used by format 'helm'"):
        read_scores(LOGS / "weak.json", format="helm", cluster="passage")
    with pytest.raises(InputError, match="not a field name"):
        read_scores(LOGS / "weak.json", cluster=" ")


def test_describe_on_singleton_clusters_from_a_log_equals_the_iid_numbers() -> None:
    with pytest.warns(UserWarning, match="not checked"):
        scores = read_scores(LOGS / "weak.json")
    frame = scores.frame
    clustered = rg.describe(frame.assign(cluster=frame["item"]))
    pd.testing.assert_frame_equal(rg.describe(scores), clustered)
    assert np.isfinite(clustered["se"]).all()


def test_the_signature_names_the_users_cluster_field(tmp_path: Path) -> None:
    """``cluster:passage`` (the field read with ``cluster="passage"``), not the renamed column's
    ``cluster:cluster``: tables, Inspect logs (several, with system names), the CLI and a YAML;
    a table whose column is named ``cluster`` keeps ``cluster:cluster``."""
    rng = np.random.default_rng(4)
    rows = [("d", s, f"q{i}", f"p{i // 4}", float(rng.random() < 0.5 + 0.2 * (s == "B")))
            for s in ("A", "B") for i in range(24)]
    frame = pd.DataFrame(rows, columns=["dataset", "system", "item", "passage", "value"])
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    scores = read_scores(path, cluster="passage")
    assert scores.cluster_name == "passage"
    # the cluster field, then the cluster-robust variance (CR2 by default)
    assert rg.compare(scores).signature.endswith("|cluster:passage|cse:CR2")
    assert "|cluster:passage" in rg.effect_sizes(scores, treatment="B", control="A",
                                                 measure="MD").signature
    logs = read_scores(LOGS, cluster="passage", system_from="task_args.strong")
    assert logs.cluster_name == "passage" and "|cluster:passage" in rg.compare(logs).signature
    own = rg.Scores(frame.rename(columns={"passage": "cluster"}))
    assert own.cluster_name == "cluster" and "|cluster:cluster" in rg.compare(own).signature
    assert read_scores(path).cluster_name is None
    (tmp_path / "experiment.yaml").write_text(
        "scores: scores.csv\ncluster: passage\n")
    from typer.testing import CliRunner

    from ranger_eval.cli import app

    for argv in ([str(path), "--cluster", "passage"], [str(tmp_path / "experiment.yaml")]):
        out = tmp_path / f"out{len(argv)}"
        result = CliRunner().invoke(app, ["compare", *argv, "--out", str(out),
                                          "--figures", "none"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        text = (out / "comparison.md").read_text(encoding="utf-8")
        assert "|cluster:passage" in text and "cluster:cluster" not in text


@pytest.mark.slow  # run_compare writes every output (~1.3 s)
def test_compare_leaderboard_se_equals_inspects_own_clustered_stderr(tmp_path: Path) -> None:
    """Both logs read as the folder the Inspect adapter reads with the cluster
    field, compared; every output of the leaderboard (the Leaderboard, leaderboard.csv and
    comparison.json's means) gives Inspect's own stderr(cluster="passage") to 1e-12, the
    number of passages, and an interval inside [0, 1] (C/I scores are declared in [0, 1])."""
    from ranger_eval.pipeline import run_compare

    scores = read_scores(LOGS, cluster="passage", system_from="task_args.strong")
    want = {}
    for name, system in (("weak", "strong=false"), ("strong", "strong=true")):
        se, passages = _inspect_stderr(LOGS / f"{name}.json")
        want[system] = (se, len(set(passages.values())))
    board = rg.compare(scores).leaderboard()
    assert board.se is not None and board.n_clusters is not None and board.ci_high is not None
    run = run_compare(LOGS, tmp_path / "out", figures="none", cluster="passage",
                      system_from="task_args.strong")
    means = pd.DataFrame(json.loads((tmp_path / "out" / "comparison.json").read_text())["means"])
    csv = pd.read_csv(tmp_path / "out" / "leaderboard.csv").set_index("system")
    assert run.result.signature.fields["cluster"] == "passage"
    for system, (se, n_passages) in want.items():
        i = board.systems.index(system)
        assert board.se[i, 0] == pytest.approx(se, rel=1e-12)
        assert board.n_clusters[i, 0] == n_passages and board.ci_high[i, 0] <= 1.0
        row = means[means["system"] == system].iloc[0]
        assert row["se"] == pytest.approx(se, rel=1e-12)
        assert row["n_clusters"] == n_passages
        assert 0.0 <= row["ci_low"] <= row["mean"] <= row["ci_high"] <= 1.0
        assert row["interval"] == "korn-graubard"
        (se_col,) = [c for c in csv.columns if c.endswith(" se")]
        assert csv.loc[system, se_col] == pytest.approx(se, rel=1e-12)


def test_compare_leaderboard_se_equals_inspects_own_clustered_stderr_api() -> None:
    """The fast half of the test above: the Python leaderboard's se is Inspect's own
    stderr(cluster="passage") to 1e-12."""
    scores = read_scores(LOGS, cluster="passage", system_from="task_args.strong")
    board = rg.compare(scores).leaderboard()
    assert board.se is not None
    for name, system in (("weak", "strong=false"), ("strong", "strong=true")):
        se, _ = _inspect_stderr(LOGS / f"{name}.json")
        assert board.se[board.systems.index(system), 0] == pytest.approx(se, rel=1e-12)


def test_the_guide_copy_of_the_clustered_inspect_logs_is_the_oracle_copy() -> None:
    """docs/guide/data/inspect-clusters holds the logs make_inspect_logs_clusters.py wrote
    (the LLM-evaluation guide checks the leaderboard's se against them)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    oracle = root / "tests" / "oracles" / "inspect_clusters" / "json"
    guide = root / "docs" / "guide" / "data" / "inspect-clusters"
    assert sorted(p.name for p in guide.iterdir()) == sorted(p.name for p in oracle.iterdir())
    for p in oracle.iterdir():
        assert (guide / p.name).read_bytes() == p.read_bytes(), p.name
