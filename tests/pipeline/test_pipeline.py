"""The one pipeline: config keys honoured or rejected, options over config, safe outputs."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ranger_eval import report
from ranger_eval.aggregate import Ranking, RankTest, WinRate
from ranger_eval.cli import app
from ranger_eval.errors import ConfigError, InputError
from ranger_eval.io import load_experiment
from ranger_eval.pipeline import (
    OutputFolder,
    compare_settings,
    rank_summary,
    run_compare,
    run_meta,
    run_rank,
)
from ranger_eval.report.tables import latex_signature
from ranger_eval.settings import RankSettings
from ranger_eval.verdicts import Ratings


def _write_scores(folder, rng, systems=("a", "b", "c"), tasks=("t1", "t2"), n=40):
    files = {s: {} for s in systems}
    for t in tasks:
        base = rng.normal(0.5, 0.2, n)
        for i, s in enumerate(systems):
            p = folder / f"{s}_{t}.txt"
            p.write_text("\n".join(f"{v:.6f}" for v in base + 0.05 * i + rng.normal(0, 0.05, n)))
            files[s][t] = p.name
    return files


def _yaml(folder, body: str, files) -> object:
    lines = [body.rstrip(), "tasks: [t1, t2]", "systems:"]
    for s, fs in files.items():
        lines.append(f"  {s}: {{files: {{{', '.join(f'{t}: {f}' for t, f in fs.items())}}}}}")
    path = folder / "exp.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def files(tmp_path):
    return _write_scores(tmp_path, np.random.default_rng(0))


def test_compare_honours_config_level_and_compare_section(tmp_path, files):
    cfg = _yaml(tmp_path, "level: 0.9\ncompare:\n  test: wilcoxon\n  correction: holm\n  seed: 3",
                files)
    run = run_compare(cfg, tmp_path / "out", figures="none")
    comp = run.result
    assert comp.level == 0.9 and set(comp.table["test"]) == {"wilcoxon"}
    sig = comp.signature.fields
    assert sig["test"] == "wilcoxon" and sig["corr"] == "holm" and sig["level"] == "0.9"
    assert sig["seed"] == "3"


def test_command_line_options_override_the_config(tmp_path, files):
    cfg = _yaml(tmp_path, "level: 0.9\ncompare:\n  test: wilcoxon", files)
    run = run_compare(cfg, tmp_path / "out", test="paired-t", level=0.95, figures="none")
    assert run.result.level == 0.95 and set(run.result.table["test"]) == {"paired-t"}


@pytest.mark.parametrize("layout", ["top", "section"])
def test_each_command_uses_its_settings_and_accepts_the_others(tmp_path, files, layout):
    """The meta-analysis settings at the top level (the original Ranger
    layout) or under ``meta:``, with ``compare:`` and ``aggregate:`` sections, run with every
    command; each reads its own settings and accepts the others' unused."""
    meta = "control: a\ntreatment: b\ntest: knha\nmethod: DL"
    if layout == "section":
        meta = "meta:\n" + "\n".join("  " + line for line in meta.splitlines())
    body = (f"{meta}\nlevel: 0.9\ncompare:\n  test: wilcoxon\n  seed: 4\n"
            "aggregate:\n  posthoc: holm\n  control: a\n  level: 0.8")
    cfg = _yaml(tmp_path, body, files)
    comp = run_compare(cfg, tmp_path / "c", figures="none")
    assert set(comp.result.table["test"]) == {"wilcoxon"} and comp.settings.level == 0.9
    assert (comp.settings.seed, len(comp.result.table)) == (4, 6)
    rank = run_rank(cfg, tmp_path / "r", figures="none")
    assert rank.settings.posthoc == "holm" and rank.settings.level == 0.8  # its section wins
    assert rank.parts["rank_test"].posthoc == "holm" and rank.settings.test == "auto"
    # the one run record: the ranking, and every result of the command by name (read-only)
    assert rank.command == "rank" and isinstance(rank.settings, RankSettings)
    assert set(rank.parts) == {"rank_test", "ranking", "bradley_terry", "win_rate"}
    assert isinstance(rank.parts["rank_test"], RankTest) and isinstance(rank.result, Ranking)
    assert rank.result is rank.parts["ranking"] and isinstance(rank.parts["win_rate"], WinRate)
    assert isinstance(rank.parts["bradley_terry"], Ratings)
    with pytest.raises(TypeError):
        rank.parts["ranking"] = None  # type: ignore[index]
    summary = rank_summary(rank)  # what `ranger-eval rank` prints
    assert summary.startswith(report.to_markdown(rank.result))
    assert "\nBradley–Terry leaderboard (bradley_terry.md): " in summary
    run = run_meta(cfg, tmp_path / "m", figures="none")
    assert (run.result.result.test, run.result.result.method) == ("knha", "DL")
    assert run.result.result.level == 0.9


@pytest.mark.parametrize("command", ["compare", "rank", "meta"])
def test_unknown_keys_stay_errors_whatever_the_command(tmp_path, files, command):
    cfg = _yaml(tmp_path, "control: a\ntreatment: b\ncompare:\n  tset: wilcoxon", files)
    run = {"compare": run_compare, "rank": run_rank, "meta": run_meta}[command]
    with pytest.raises(ConfigError, match=rf"{cfg}:4: compare\.tset: unknown key"):
        run(cfg, tmp_path / "o", figures="none")


def test_unknown_or_conflicting_keys_are_errors(tmp_path, files):
    cfg = _yaml(tmp_path, "compare:\n  tset: wilcoxon", files)
    with pytest.raises(ConfigError, match=r"compare\.tset: unknown key"):
        load_experiment(cfg)
    cfg = _yaml(tmp_path, "meta:\n  control: a\n  colour: red\ntreatment: b", files)
    with pytest.raises(ConfigError, match=r"meta\.colour: unknown key"):
        load_experiment(cfg)
    cfg = _yaml(tmp_path, "control: a\nmeta:\n  control: b", files)
    with pytest.raises(ConfigError, match=r"meta\.control: also given at the top level"):
        load_experiment(cfg)
    cfg = _yaml(tmp_path, "compare:\n  correction: holms", files)
    with pytest.raises(ConfigError, match=r"unknown correction 'holms'.*did you mean 'holm'"):
        load_experiment(cfg)


def test_names_are_case_insensitive_and_bad_options_are_blamed_on_the_option(tmp_path, files):
    cfg = _yaml(tmp_path, "meta:\n  control: a\n  treatment: b", files)
    assert load_experiment(cfg, method="reml", measure="smd").config.method == "REML"
    with pytest.raises(ConfigError) as info:
        load_experiment(cfg, method="remll")
    assert str(info.value).startswith("option --method:") and str(cfg) not in str(info.value)


def test_settings_resolution_order(tmp_path, files):
    cfg = _yaml(tmp_path, "level: 0.8\ncompare:\n  n_resamples: 99", files)
    s = compare_settings(load_experiment(cfg), {"seed": 5, "level": None})
    assert (s.level, s.n_resamples, s.seed, s.test) == (0.8, 99, 5, "auto")
    with pytest.raises(ConfigError, match="unknown comparison option"):
        compare_settings(None, {"colour": "red"})


def test_outputs_never_overwrite_inputs_and_have_a_manifest(tmp_path, files):
    # a tidy table named like an output, in the output folder: refused before any work
    rows = ["dataset,system,item,value"] + [f"d,{s},{i},{v}" for s in "ab"
                                            for i, v in enumerate(np.linspace(0, 1, 9))]
    table = tmp_path / "comparison.csv"
    table.write_text("\n".join(rows) + "\n")
    before = table.read_bytes()
    with pytest.raises(ConfigError, match="would overwrite the input file"):
        run_compare(table, tmp_path)
    assert table.read_bytes() == before and not (tmp_path / "comparison.md").exists()
    cfg = _yaml(tmp_path, "meta:\n  control: a\n  treatment: b", files)
    run = run_meta(cfg, tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["signature"] == str(run.result.result.signature)
    names = {f["file"] for f in manifest["files"]}
    assert {"forest.pdf", "forest.png", "effects.csv", "summary.md", "summary.json"} <= names
    assert not list((tmp_path / "out").glob("*.part"))  # no temporary files left


def test_output_folder_refuses_a_file_as_folder(tmp_path):
    f = tmp_path / "x"
    f.write_text("")
    with pytest.raises(ConfigError, match="exists and is not a folder"):
        OutputFolder(f)


def test_every_output_carries_the_signature(tmp_path, files):
    cfg = _yaml(tmp_path, "meta:\n  control: a\n  treatment: b", files)
    run = run_meta(cfg, tmp_path / "meta", figures="svg")
    sig = str(run.result.result.signature)
    out = tmp_path / "meta"
    assert (out / "effects.csv").read_text().startswith("task_id,dataset,yi,vi,")  # plain CSV
    listed = {f["file"]: f["signature"]
              for f in json.loads((out / "manifest.json").read_text())["files"]}
    assert set(listed.values()) == {sig} and "effects.csv" in listed  # its signature
    assert sig in (out / "summary.md").read_text()
    assert json.loads((out / "summary.json").read_text())["signature"] == sig
    assert sig.encode() in (out / "forest.svg").read_bytes()  # the figure footer
    crun = run_compare(cfg, tmp_path / "cmp", n_resamples=50, figures="svg")
    csig = str(crun.result.signature)
    for name in ("comparison.md", "comparison.tex", "comparison.html", "leaderboard.md",
                 "leaderboard.tex"):
        text = (tmp_path / "cmp" / name).read_text()
        assert csig in text or latex_signature(csig) in text, name
    assert json.loads((tmp_path / "cmp" / "comparison.json").read_text())["signature"] == csig
    listed = {f["file"]: f["signature"]
              for f in json.loads((tmp_path / "cmp" / "manifest.json").read_text())["files"]}
    assert listed["comparison.csv"] == csig and str(csig) not in (
        tmp_path / "cmp" / "comparison.csv").read_text()
    for svg in (tmp_path / "cmp").glob("*.svg"):  # every figure's footer: the comparison's,
        # or for the boxplots that of the rank intervals they draw (their own bootstrap);
        # the manifest lists each figure with the signature in its footer
        own = csig if not svg.name.startswith("boxplots") else "|test:rank-intervals["
        assert own.encode() in svg.read_bytes(), svg.name
        assert own in listed[svg.name] and listed[svg.name].encode() in svg.read_bytes()


def test_cli_prints_warnings_and_errors_one_line(tmp_path, files):
    cfg = _yaml(tmp_path, "control: a\ntreatment: b\ncompare: {test: ttest}", files)
    result = CliRunner().invoke(app, ["compare", str(cfg), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    lines = [ln for ln in result.output.splitlines() if ln]
    assert len(lines) == 1 and lines[0].startswith("ranger-eval: error: ")
    cfg = _yaml(tmp_path, "control: a\ntreatment: b", files)
    result = CliRunner().invoke(app, ["meta", str(cfg), "--method", "ReMl", "--out",
                                      str(tmp_path / "m")])
    assert result.exit_code == 0, result.output


def test_one_writer_per_folder_and_stale_outputs_are_removed(tmp_path, files):
    import fcntl

    cfg = _yaml(tmp_path, "meta:\n  control: a\n  treatment: b", files)
    out = tmp_path / "o"
    run_compare(cfg, out, n_resamples=50, figures="svg", per_dataset_figures=True)
    assert (out / "graph-t1-score.svg").exists()
    (out / "notes.txt").write_text("mine")  # not ours: never removed
    # hold the lock (a flock on the folder itself) as a concurrent run would
    fd = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(ConfigError, match="another ranger-eval run is writing"):
            run_compare(cfg, out, n_resamples=50, figures="svg")
    finally:
        os.close(fd)
    assert not [p.name for p in out.iterdir() if "lock" in p.name]  # no lock file, not even
    # after an error
    (out / OutputFolder.OLD_LOCK).write_text("")  # an older version's empty lock file
    # a second run with one dataset writes no per-dataset figures: the old ones are removed
    single = _yaml(tmp_path, "meta:\n  control: a\n  treatment: b", files)
    single.write_text(single.read_text().replace("tasks: [t1, t2]", "tasks: [t1]").replace(
        ", t2: a_t2.txt", "").replace(", t2: b_t2.txt", "").replace(", t2: c_t2.txt", ""))
    run_compare(single, out, n_resamples=50, figures="svg")
    assert not (out / "graph-t1-score.svg").exists() and (out / "graph.svg").exists()
    assert (out / "notes.txt").read_text() == "mine"
    listed = {f["file"] for f in json.loads((out / "manifest.json").read_text())["files"]}
    present = {p.name for p in out.iterdir()}  # no lock file, no hidden file is left behind
    assert listed | {"manifest.json", "notes.txt"} == present


def test_figures_option_chooses_formats_or_none(tmp_path, files):
    cfg = _yaml(tmp_path, "meta:\n  control: a\n  treatment: b", files)
    run = run_meta(cfg, tmp_path / "none", figures="none")
    assert not [p for p in run.written if p.suffix in (".pdf", ".png", ".svg")]
    run = run_meta(cfg, tmp_path / "png", figures="png")
    assert sorted(p.name for p in run.written if p.suffix in (".pdf", ".png", ".svg")) == [
        "forest.png"]
    crun = run_compare(cfg, tmp_path / "c", figures=["svg", "pdf"], n_resamples=50)
    figs = {p.suffix for p in crun.written if p.suffix in (".pdf", ".png", ".svg")}
    assert figs == {".svg", ".pdf"}
    with pytest.raises(ConfigError, match="--figures: gif"):
        run_meta(cfg, tmp_path / "x", figures="gif")


def test_meta_and_compare_read_tidy_tables_and_trec_csv(tmp_path):
    rng = np.random.default_rng(7)
    rows = ["run,measure,query_id,value"]
    for run, shift in (("bm25", 0.0), ("splade", 0.15)):
        for q in range(30):
            rows.append(f"{run},nDCG@10,q{q:02d},{min(1.0, rng.uniform(0.2, 0.7) + shift):.4f}")
    rows += ["bm25,nDCG@10,all,0.45", "splade,nDCG@10,all,0.6"]  # summary rows are left out
    trec = tmp_path / "dl19.csv"
    trec.write_text("\n".join(rows) + "\n")
    run = run_meta(trec, tmp_path / "m", control="bm25", treatment="splade", measure="MD",
                   figures="none")
    eff = run.result.effects
    assert list(eff.names) == ["dl19"] and int(eff.n[0]) == 30  # 'all' rows excluded
    assert run.result.result.estimate > 0
    crun = run_compare(trec, tmp_path / "c", n_resamples=50, figures="none")
    assert set(crun.result.table["metric"]) == {"nDCG@10"}
    result = CliRunner().invoke(app, ["meta", str(trec), "--control", "bm25", "--treatment",
                                      "splade", "--measure", "md", "--out", str(tmp_path / "cli"),
                                      "--figures", "none"])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(app, ["meta", str(trec), "--out", str(tmp_path / "cli2")])
    assert result.exit_code == 2 and "no --control or --treatment given" in result.output
    assert "systems in the table: bm25, splade" in result.output


def test_tool_outputs_are_recognised_by_content(corpus, tmp_path):
    from ranger_eval.io import read_scores

    logs = corpus / "eval_logs"
    candidates = [p for p in logs.rglob("*") if p.is_file()]
    assert candidates, "eval_logs is empty"
    from ranger_eval.io.adapters import detect

    found = {detect(p) for p in candidates} - {None}
    assert found, "no tool output recognised in eval_logs"
    for p in candidates:
        fmt = detect(p)
        if fmt in ("inspect", "tsml"):
            s = read_scores(p)
            assert len(s.frame) > 0 and s.frame["value"].between(0, 1).all()


def test_every_config_key_is_documented():
    from pathlib import Path

    from ranger_eval.io.config import (
        AggregateSection,
        CompareSection,
        ExperimentConfig,
        IRConfig,
        SystemConfig,
        TaskConfig,
    )

    doc = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    internal = {"top_level_meta_keys"}
    for model in (ExperimentConfig, CompareSection, AggregateSection, IRConfig, SystemConfig,
                  TaskConfig):
        for name in model.model_fields:
            if name not in internal:
                key = name.removeprefix("meta_")  # meta: section keys stored with a prefix
                assert f"`{key}`" in doc or f"`ir.{key}`" in doc, (model.__name__, name)


def _named_yaml(tmp_path, files, body: str = "") -> object:
    """The three systems and two tasks with display names (one system keeps its id)."""
    names = {"a": "Alpha Net", "b": "Beta-2"}
    lines = [body.rstrip(), "tasks:", "  - {id: t1, name: Task One}", "  - {id: t2, name: Task Two}",
             "systems:"]
    for s, fs in files.items():
        name = f"name: {names[s]}, " if s in names else ""
        lines.append(f"  {s}: {{{name}files: {{{', '.join(f'{t}: {f}' for t, f in fs.items())}}}}}")
    path = tmp_path / "named.yaml"
    path.write_text("\n".join(line for line in lines if line) + "\n")
    return path


def _all_text(folder) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted(folder.iterdir())
                     if p.suffix in (".md", ".csv", ".tex", ".html", ".json", ".svg"))


def test_compare_shows_display_names_everywhere(tmp_path, files):
    cfg = _named_yaml(tmp_path, files, "compare:\n  pairs: baseline\n  baseline: a")
    run = run_compare(cfg, tmp_path / "c", n_resamples=50, figures="svg", html=True,
                      per_dataset_figures=True)
    comp = run.result
    assert comp.systems == ("Alpha Net", "Beta-2", "c") and comp.baseline == "Alpha Net"
    assert set(comp.datasets) == {"Task One", "Task Two"}
    assert {"graph-Task_One-score.svg", "heatmap.svg"} <= {p.name for p in run.written}
    text = _all_text(tmp_path / "c")
    for shown in ("Alpha Net", "Beta-2", "Task One", "Task Two"):
        assert shown in text, shown
    # the ids are accepted on the command line too, and mean the same systems
    again = run_compare(cfg, tmp_path / "c2", n_resamples=50, figures="none",
                        systems=["b", "a"], baseline="Beta-2")
    assert again.result.systems == ("Beta-2", "Alpha Net")


def test_rank_and_meta_show_display_names(tmp_path, files):
    from ranger_eval.pipeline import run_rank

    cfg = _named_yaml(tmp_path, files, "meta:\n  control: a\n  treatment: b")
    run = run_rank(cfg, tmp_path / "r", figures="svg", n_resamples=50)
    assert set(run.parts["ranking"].order) == {"Alpha Net", "Beta-2", "c"}
    assert set(run.parts["ranking"].datasets) == {"Task One", "Task Two"}
    text = _all_text(tmp_path / "r")
    assert "Alpha Net" in text and "Beta-2" in text
    assert "Alpha Net" in (tmp_path / "r" / "cd.svg").read_text()
    meta = run_meta(cfg, tmp_path / "m", figures="none")
    assert list(meta.result.effects.names) == ["Task One", "Task Two"]
    summary = (tmp_path / "m" / "summary.md").read_text()
    assert "Alpha Net" in summary and "Beta-2" in summary


def test_display_names_that_collide_are_an_error(tmp_path, files):
    cfg = _named_yaml(tmp_path, files)
    cfg.write_text(cfg.read_text().replace("Beta-2", "Alpha Net"))
    with pytest.raises(ConfigError, match=r"'a' and 'b' are both shown as 'Alpha Net'"):
        run_compare(cfg, tmp_path / "x", n_resamples=50, figures="none")
    cfg.write_text(cfg.read_text().replace("name: Alpha Net, files: {t1: b", "name: c, files: {t1: b"))
    with pytest.raises(ConfigError, match="'c'"):
        run_compare(cfg, tmp_path / "y", n_resamples=50, figures="none")


def test_cli_compare_and_rank_print_display_names(tmp_path, files):
    cfg = _named_yaml(tmp_path, files)
    for command in ("compare", "rank"):
        result = CliRunner().invoke(app, [command, str(cfg), "--out", str(tmp_path / command),
                                          "--figures", "none"])
        assert result.exit_code == 0, result.output
        assert "Alpha Net" in result.output and "Beta-2" in result.output, command


# the figures as PNG in the default run, as PDF too in the slow run: graph, pvalues, boxplots
# per task, and the heatmap
@pytest.mark.parametrize(("figures", "n_pdf"), [
    ("png", 0), pytest.param("pdf,png", 7, marks=pytest.mark.slow)])
def test_figures_drawn_in_worker_processes_are_the_same_files_at_300_dpi(
        tmp_path, files, monkeypatch, figures, n_pdf):
    from PIL import Image

    cfg = _yaml(tmp_path, "", files)
    runs = {}
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        monkeypatch.setenv("RANGER_EVAL_FIGURE_WORKERS", str(workers))
        assert OutputFolder(tmp_path / "probe").workers == workers
        runs[workers] = run_compare(cfg, out, n_resamples=50, figures=figures,
                                    per_dataset_figures=True)
    names = [p.name for p in runs[1].written]
    assert names == [p.name for p in runs[2].written]  # same files, same manifest order
    pngs = [n for n in names if n.endswith(".png")]
    assert len([n for n in names if n.endswith(".pdf")]) == n_pdf
    assert len(pngs) == 7, pngs
    for name in names:
        if name != "manifest.json":
            assert (tmp_path / "w1" / name).read_bytes() == (tmp_path / "w2" / name).read_bytes()
    m1, m2 = (json.loads((tmp_path / w / "manifest.json").read_text())["files"]
              for w in ("w1", "w2"))
    assert m1 == m2 and {f["file"] for f in m1} >= set(pngs)
    for name in pngs:
        dpi = Image.open(tmp_path / "w2" / name).info["dpi"]
        assert abs(dpi[0] - 300) < 0.01, (name, dpi)


def test_figure_workers_setting(monkeypatch):
    from ranger_eval.pipeline import figure_workers

    monkeypatch.setenv("RANGER_EVAL_FIGURE_WORKERS", "1")
    assert figure_workers() == 1
    monkeypatch.setenv("RANGER_EVAL_FIGURE_WORKERS", "two")
    with pytest.raises(ConfigError, match="RANGER_EVAL_FIGURE_WORKERS='two'"):
        figure_workers()
    monkeypatch.delenv("RANGER_EVAL_FIGURE_WORKERS")
    assert 1 <= figure_workers() <= 2


def test_scores_with_tasks_or_systems_is_an_error_naming_the_file_and_keys(tmp_path, files):
    (tmp_path / "all.csv").write_text("dataset,system,item,value\n")
    cfg = _yaml(tmp_path, "scores: all.csv", files)
    with pytest.raises(ConfigError, match=rf"{cfg}: .*`scores` and `tasks`/`systems` are both "
                                          r"given"):
        load_experiment(cfg)
    cfg.write_text("scores: all.csv\nsystems:\n  a: {files: {}}\n")
    with pytest.raises(ConfigError, match=r"`scores` and `systems` are both given"):
        load_experiment(cfg)


def test_meta_skips_an_unreadable_forest_with_a_warning(tmp_path):
    """More than FOREST_MAX_ROWS datasets: no forest (it could not be read), said so, and the
    tables still hold every dataset."""
    import pandas as pd

    from ranger_eval.pipeline import FOREST_MAX_ROWS

    rng = np.random.default_rng(3)
    k = FOREST_MAX_ROWS + 1
    rows = [(f"d{d}", s, str(i), rng.random() + (0.05 if s == "B" else 0.0))
            for d in range(k) for s in "AB" for i in range(8)]
    table = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["dataset", "system", "item", "value"]).to_csv(table, index=False)
    run = run_meta(table, tmp_path / "out", control="A", treatment="B")
    assert any(f"forest plot skipped: {k:,} datasets" in w for w in run.warnings)
    assert not list((tmp_path / "out").glob("forest.*"))
    effects = pd.read_csv(tmp_path / "out" / "effects.csv", comment="#")
    assert len(effects) == k


def test_no_figures_means_no_matplotlib(tmp_path, files):
    """With --figures none, compare, rank and meta never import matplotlib (the
    figure functions are queued as partials of functions that import it when drawing)."""
    import subprocess
    import sys

    cfg = _yaml(tmp_path, "meta: {control: a, treatment: b}", files)
    code = f"""
import sys
from ranger_eval.pipeline import run_compare, run_meta, run_rank
run_compare({str(cfg)!r}, {str(tmp_path / 'c')!r}, n_resamples=50, figures="none")
run_rank({str(cfg)!r}, {str(tmp_path / 'r')!r}, figures="none")
run_meta({str(cfg)!r}, {str(tmp_path / 'm')!r}, figures="none")
print("matplotlib" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "False"


# ------------------------------------------------------------- degenerate tasks in `meta`
def _degenerate_table(tmp_path):
    """Five tasks: two with identical systems (zero variance), one with a constant control."""
    rng = np.random.default_rng(7)
    lines = ["dataset,system,item,value"]
    for task, kind in [("t1", "ok"), ("t2", "same"), ("t3", "ok"), ("t4", "same"), ("t5", "const")]:
        a = rng.random(10)
        b = a if kind == "same" else a + rng.normal(0.1, 0.2, 10)
        a = np.full(10, 0.5) if kind == "const" else a
        lines += [f"{task},{s},{i},{float(v)!r}" for i in range(10)
                  for s, v in (("a", a[i]), ("b", b[i]))]
    path = tmp_path / "scores.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("method", ["REML", "DL", "PM"])
def test_meta_names_every_zero_variance_task_at_once(tmp_path, method):
    from ranger_eval.errors import EffectSizeError

    path = _degenerate_table(tmp_path)
    with pytest.raises(EffectSizeError) as info:
        run_meta(path, tmp_path / "o", control="a", treatment="b", measure="MD", method=method,
                 figures="none")
    text = str(info.value)
    assert text.startswith(f"2 of 5 dataset(s) have zero sampling variance, which the {method} ")
    assert "'t2' (identical systems: zero variance); 't4' (identical systems" in text
    # from Python the keyword and the YAML key; the command line says --drop-degenerate
    assert "FE/DL/HS/PM" not in text and "--drop-degenerate" not in text
    assert "pass degenerate='drop' (YAML `meta: {degenerate: drop}`)" in text
    # SMD: the constant control has no defined effect; all three in one error
    with pytest.raises(EffectSizeError) as info:
        run_meta(path, tmp_path / "o", control="a", treatment="b", method=method, figures="none")
    text = str(info.value)
    assert "1 of 5 dataset(s) have no defined SMD effect: 't5' (the control scores" in text
    assert "'t2' (identical systems" in text and "'t4' (identical systems" in text
    assert "pass degenerate='drop' (YAML `meta: {degenerate: drop}`)" in text  # Python's words


def test_meta_drop_degenerate_warns_and_records_skipped(tmp_path):
    path = _degenerate_table(tmp_path)
    run = run_meta(path, tmp_path / "o", control="a", treatment="b", figures="none",
                   meta_degenerate="drop")
    assert run.result.result.names == ("t1", "t3")
    warned = [w for w in run.warnings if w.startswith("left out 3 of 5 dataset(s)")]
    assert len(warned) == 1 and all(f"'{t}'" in warned[0] for t in ("t2", "t4", "t5"))
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert list(summary["skipped"]) == ["t2", "t4", "t5"]
    assert summary["skipped"]["t5"].startswith("the control scores are constant")
    assert "Not analysed: t2 (identical systems: zero variance); t4" in \
        (tmp_path / "o" / "summary.md").read_text()
    # the same through the command line and through the YAML key
    result = CliRunner().invoke(app, ["meta", str(path), "--control", "a", "--treatment", "b",
                                      "--drop-degenerate", "--figures", "none",
                                      "--out", str(tmp_path / "o2")])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "o2" / "summary.json").read_text())["skipped"] == \
        summary["skipped"]
    yaml_path = tmp_path / "e.yaml"
    yaml_path.write_text("scores: scores.csv\nmeta: {control: a, treatment: b, degenerate: drop}\n")
    again = run_meta(yaml_path, tmp_path / "o3", figures="none")
    assert again.result.skipped == summary["skipped"]
    yaml_path.write_text("scores: scores.csv\nmeta: {control: a, treatment: b, degenerate: maybe}\n")
    with pytest.raises(ConfigError, match="degenerate"):
        run_meta(yaml_path, tmp_path / "o4", figures="none")


# ------------------------------------------------------------- `--metric` that some tasks lack
def _lm_eval_like(tmp_path):
    """boolq and cb have acc and f1, rte only acc, wic only mcc (as lm-eval tasks do)."""
    rng = np.random.default_rng(3)
    lines = ["dataset,system,metric,item,value"]
    for task, metrics in [("boolq", ["acc", "f1"]), ("rte", ["acc"]), ("wic", ["mcc"]),
                          ("cb", ["acc", "f1"])]:
        for m in metrics:
            for i in range(12):
                a, b = rng.integers(0, 2, size=2)
                lines += [f"{task},m1,{m},{i},{a}", f"{task},m2,{m},{i},{b}"]
    path = tmp_path / "lm.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_meta_metric_that_a_task_lacks_is_said_and_recorded(tmp_path):
    path = _lm_eval_like(tmp_path)
    run = run_meta(path, tmp_path / "o", control="m1", treatment="m2", metric="acc",
                   measure="MD", figures="none")
    assert run.result.result.names == ("boolq", "rte", "cb")
    assert "left out 1 of 4 dataset(s) without metric 'acc': wic (no metric 'acc' (its " \
           "metrics: mcc))" in run.warnings
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["skipped"] == {"wic": "no metric 'acc' (its metrics: mcc)"}
    assert "Not analysed: wic (no metric 'acc'" in (tmp_path / "o" / "summary.md").read_text()
    # no task has it: the error lists the metrics there are
    from ranger_eval.errors import RangerError

    with pytest.raises(RangerError, match=r"unknown metric 'bleu'; known: 'acc', 'f1', 'mcc'"):
        run_meta(path, tmp_path / "o2", control="m1", treatment="m2", metric="bleu",
                 measure="MD", figures="none")


def test_compare_and_rank_metrics_that_tasks_lack_are_said(tmp_path):
    from ranger_eval.errors import RangerError
    from ranger_eval.pipeline import run_rank

    path = _lm_eval_like(tmp_path)
    run = run_compare(path, tmp_path / "o", figures="none", metrics=["acc", "f1"])
    assert {str(d) for d in run.result.to_frame()["dataset"]} == {"boolq", "rte", "cb"}
    said = [w for w in run.warnings if w.startswith("left out 1 of 4 dataset(s) without metric")]
    assert len(said) == 1 and "wic (no metric 'acc', 'f1' (its metrics: mcc))" in said[0]
    assert "rte has no 'f1' (its metrics: acc)" in said[0]
    with pytest.raises(RangerError, match=r"unknown metric\(s\) 'bleu'; known: 'acc', 'f1', "
                       r"'mcc'"):
        run_compare(path, tmp_path / "o2", figures="none", metrics=["bleu"])
    # rank through a YAML's compare.metrics: the same warning
    (tmp_path / "e.yaml").write_text("scores: lm.csv\ncompare: {metrics: [acc]}\n")
    ranked = run_rank(tmp_path / "e.yaml", tmp_path / "o3", figures="none")
    assert any("left out 1 of 4 dataset(s) without metric 'acc': wic" in w
               for w in ranked.warnings)


# --------------------------------------------------------------- several logs of one model
INSPECT_SYSTEMS = Path(__file__).resolve().parents[1] / "oracles" / "inspect_systems"


def _mcnemar_oracle(a, b) -> float:
    """statsmodels' exact McNemar p-value of two paired 0/1 vectors."""
    from statsmodels.stats.contingency_tables import mcnemar

    a, b = np.asarray(a, bool), np.asarray(b, bool)
    table = [[int(np.sum(a & b)), int(np.sum(a & ~b))], [int(np.sum(~a & b)), int(np.sum(~a & ~b))]]
    return float(mcnemar(table, exact=True).pvalue)


def _log_values(name: str) -> pd.Series:
    from ranger_eval.io.adapters import read_adapter

    return read_adapter(INSPECT_SYSTEMS / "eval" / name).frame.set_index("item")["value"]


def test_cli_compare_a_folder_of_logs_of_one_model(tmp_path):
    """`ranger-eval compare logs/`: without naming the systems, an error naming both files and
    the option; with --system-from, the McNemar test of the two runs (statsmodels, 1e-12)."""
    folder = INSPECT_SYSTEMS / "eval"
    result = CliRunner().invoke(app, ["compare", str(folder), "--out", str(tmp_path / "o"),
                                      "--figures", "none"])
    assert result.exit_code == 2
    assert "cot.eval and" in result.output and "plain.eval both hold" in result.output
    assert "--system-from task_args.cot" in result.output
    assert not (tmp_path / "o" / "comparison.csv").exists()
    result = CliRunner().invoke(app, ["compare", str(folder), "--out", str(tmp_path / "o"),
                                      "--figures", "none", "--system-from", "task_args.cot"])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(tmp_path / "o" / "comparison.csv", comment="#")
    assert set(table[["system_a", "system_b"]].to_numpy().ravel()) == {"cot=true", "cot=false"}
    cot, plain = _log_values("cot.eval"), _log_values("plain.eval")
    plain = plain[cot.index]
    row = table.iloc[0]
    assert row["test"] == "mcnemar"
    assert row["pvalue"] == pytest.approx(_mcnemar_oracle(cot, plain), rel=1e-12)
    assert row["mean_a"] - row["mean_b"] == pytest.approx(
        abs(cot.mean() - plain.mean()), rel=1e-12)
    bad = CliRunner().invoke(app, ["compare", str(folder), "--out", str(tmp_path / "o2"),
                                   "--system-from", "temperature"])
    assert bad.exit_code == 2
    assert "option --system-from: unknown source 'temperature'" in bad.output


def test_yaml_names_the_systems_of_logs(tmp_path):
    """`systems: {name: log}`, `scores:` entries with `system:`, and `system_from:` give the
    same comparison; the meta-analysis of the two runs is their mean difference."""
    ev = INSPECT_SYSTEMS / "eval"
    variants = {
        "systems.yaml": f"systems: {{baseline: {ev}/plain.eval, cot: {ev}/cot.eval}}\n",
        "entries.yaml": f"scores:\n  - {{path: {ev}/plain.eval, system: baseline}}\n"
                        f"  - {{path: {ev}/cot.eval, system: cot}}\n",
        "folder.yaml": f"scores: {ev}\nsystem_from: file\n",
        "glob.yaml": f"scores: '{ev}/*.eval'\nsystem_from: [file]\n",
    }
    pvalues = set()
    for name, text in variants.items():
        (tmp_path / name).write_text(text + "compare: {test: paired-t}\n")
        run = run_compare(tmp_path / name, tmp_path / name.replace(".yaml", ""), figures="none")
        systems = set(run.result.table[["system_a", "system_b"]].to_numpy().ravel())
        assert systems in ({"baseline", "cot"}, {"plain", "cot"}), name
        pvalues.add(round(float(run.result.table["pvalue"].iloc[0]), 15))
    assert len(pvalues) == 1
    cfg = tmp_path / "meta.yaml"
    cfg.write_text(variants["systems.yaml"] + "meta: {control: baseline, treatment: cot, "
                   "measure: MD}\n")
    res = run_meta(cfg, tmp_path / "m", figures="none")
    cot, plain = _log_values("cot.eval"), _log_values("plain.eval")
    assert float(res.result.effects.yi[0]) == pytest.approx(cot.mean() - plain.mean(), rel=1e-12)
    # --system-from on the command line overrides the YAML's system_from
    run = run_compare(tmp_path / "folder.yaml", tmp_path / "o5", figures="none",
                      system_from="generate_config.temperature")
    assert set(run.result.table[["system_a", "system_b"]].to_numpy().ravel()) == {
        "temperature=0.0", "temperature=0.7"}


def test_yaml_logs_under_a_system_and_task(tmp_path):
    """An `.eval` listed as `systems.<id>.files.<task>` is read by the Inspect adapter (it was
    "unknown file type"): its rows of that task, named after the system."""
    ev = INSPECT_SYSTEMS / "eval"
    cfg = tmp_path / "e.yaml"
    cfg.write_text(f"tasks: [yn]\nsystems:\n  base: {{files: {{yn: {ev}/plain.eval}}}}\n"
                   f"  cot: {{files: {{yn: {ev}/cot.eval}}}}\nmeta: {{control: base, "
                   f"treatment: cot, measure: MD}}\n")
    res = run_meta(cfg, tmp_path / "m", figures="none")
    cot, plain = _log_values("cot.eval"), _log_values("plain.eval")
    assert list(res.result.scores.datasets) == ["yn"]
    assert float(res.result.effects.yi[0]) == pytest.approx(cot.mean() - plain.mean(), rel=1e-12)
    cfg.write_text(f"tasks: [yn]\nmetric: accuracy\nsystems:\n  base: {{files: {{yn: "
                   f"{ev}/plain.eval}}}}\n  cot: {{files: {{yn: {ev}/cot.eval}}}}\n")
    with pytest.raises(ConfigError, match=r"systems\.base\.files\.yn: .*plain\.eval has no "
                                          r"metric 'accuracy' \(its metrics: includes\)"):
        run_compare(cfg, tmp_path / "c", figures="none")
    cfg.write_text(f"tasks: [yn]\nsystems:\n  base: {{files: {{yn: {ev}/plain.eval}}, "
                   f"value_column: acc}}\n  cot: {{files: {{yn: {ev}/cot.eval}}}}\n")
    with pytest.raises(ConfigError, match=r"systems\.base\.value_column: not used for "
                                          r"plain\.eval, an evaluation log"):
        run_compare(cfg, tmp_path / "c", figures="none")


def test_yaml_log_naming_is_validated(tmp_path):
    ev = INSPECT_SYSTEMS / "eval"
    cases = {
        f"scores: {ev}\nsystem_from: temperature\n":
            r"system_from: unknown source 'temperature'",
        f"scores: [{{path: {ev}/plain.eval, sytem: a}}]\n": r"scores: entry 0: unknown key 'sytem' \(an entry is a path, or a mapping with path and system\)",
        f"systems: {{a: {ev}/plain.eval, b: {{files: {{t: x.txt}}}}}}\n":
            r"systems\.b: give every system its logs .* or every system its files per task",
        f"tasks: [t]\nsystems: {{a: {ev}/plain.eval, b: {ev}/cot.eval}}\n":
            r"tasks: not used when the systems name their logs",
        f"systems: {{a: {ev}/plain.eval, b: {ev}/cot.eval}}\nmeta: {{control: x, "
        f"treatment: b}}\n": r"control: system 'x' is not defined under `systems`",
        f"systems: {{a: '{ev}/*.eval', b: {ev}/cot.eval}}\n":
            r"systems\.b\.logs\[0\]: .*cot\.eval is given twice",
        f"systems: {{a: '{ev}/*.txt', b: {ev}/cot.eval}}\n":
            r"systems\.a\.logs\[0\]: pattern .* matches no file",
        f"systems: {{a: {ev}/plain.eval, b: {ev}/cot.eval}}\nsystem_from: run_id\n":
            r"system_from: not used, because every system is named in the file \(`systems: "
            r"\{name: logs\}`\)",
        f"scores: [{{path: {ev}/plain.eval, system: a}}]\nsystem_from: file\n":
            r"system_from: not used, because every system is named in the file \(`scores` "
            r"entries with `system`\)",
    }
    for i, (text, message) in enumerate(cases.items()):
        (tmp_path / f"{i}.yaml").write_text(text)
        with pytest.raises(ConfigError, match=message):
            load_experiment(tmp_path / f"{i}.yaml")
    # two entries of one system that hold the same rows: both files named
    (tmp_path / "dup.yaml").write_text(f"systems: {{a: [{ev}/plain.eval, "
                                       f"{INSPECT_SYSTEMS}/json/plain.json], b: {ev}/cot.eval}}\n")
    with pytest.raises(InputError, match=r"plain\.eval and .*plain\.json both hold .*system 'a'"):
        run_compare(tmp_path / "dup.yaml", tmp_path / "o", figures="none")


def test_meta_and_rank_read_a_folder_of_logs(tmp_path):
    from ranger_eval.pipeline import read_rank_input

    result = CliRunner().invoke(app, ["meta", str(INSPECT_SYSTEMS / "eval"), "--system-from",
                                      "file", "--control", "plain", "--treatment", "cot",
                                      "--measure", "MD", "--figures", "none", "--out",
                                      str(tmp_path / "m")])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "m" / "summary.json").read_text())
    cot, plain = _log_values("cot.eval"), _log_values("plain.eval")
    assert summary["result"]["estimate"] == pytest.approx(cot.mean() - plain.mean(), rel=1e-12)
    with pytest.raises(InputError, match="both hold"):
        read_rank_input(INSPECT_SYSTEMS / "eval")
    scores, _, _ = read_rank_input(INSPECT_SYSTEMS / "eval", "file")
    assert set(scores.systems) == {"plain", "cot"}
    result = CliRunner().invoke(app, ["rank", str(INSPECT_SYSTEMS / "eval"), "--system-from",
                                      "run_idd", "--out", str(tmp_path / "r")])
    assert result.exit_code == 2 and "option --system-from: unknown source" in result.output


# --------------------------------------------------------------------------- one run record
def test_every_command_returns_one_command_run_with_its_named_results(tmp_path, files):
    """compare, meta and report return the one run record (rank's: in
    test_each_command_uses_its_settings_and_accepts_the_others; trec's: below): the main result, its settings and
    command name, and the other results by name."""
    import ranger_eval as rg
    from ranger_eval.io import Experiment
    from ranger_eval.pipeline import CommandRun, ExperimentResult, run_report
    from ranger_eval.settings import CompareSettings, MetaSettings

    cfg = _yaml(tmp_path, "control: a\ntreatment: b\nmeasure: MD", files)
    comp = run_compare(cfg, tmp_path / "c", figures="none", n_resamples=50)
    assert isinstance(comp, CommandRun) and comp.command == "compare"
    assert isinstance(comp.result, rg.Comparison) and isinstance(comp.settings, CompareSettings)
    assert dict(comp.parts) == {} and comp.written[-1].name == "manifest.json"

    meta = run_meta(cfg, tmp_path / "m", figures="none")
    assert meta.command == "meta" and isinstance(meta.result, ExperimentResult)
    assert isinstance(meta.settings, MetaSettings) and meta.settings.measure == "MD"
    assert isinstance(meta.parts["experiment"], Experiment)

    report = run_report(tmp_path / "c")
    assert report.command == "report" and report.written == (report.result,)
    assert report.result == tmp_path / "c" / "report.html" and report.result.is_file()


def test_rank_summary_of_a_dataset_level_table_is_its_rank_test(tmp_path):
    from ranger_eval import report
    from ranger_eval.pipeline import rank_summary

    wide = pd.DataFrame({"dataset": ["d1", "d2", "d3"], "A": [0.1, 0.2, 0.3],
                         "B": [0.2, 0.3, 0.5], "C": [0.0, 0.1, 0.2]})
    wide.to_csv(tmp_path / "wide.csv", index=False)
    run = run_rank(tmp_path / "wide.csv", tmp_path / "w", figures="none", bradley_terry=False)
    assert run.parts["ranking"] is None and run.result is run.parts["rank_test"]
    assert rank_summary(run) == report.to_markdown(run.parts["rank_test"])


def test_trec_run_renders_what_the_command_prints(tmp_path):
    from ranger_eval.pipeline import run_trec

    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 2.0 sys\nq1 Q0 d2 2 1.0 sys\nq2 Q0 d9 1 3.0 sys\n")
    run = run_trec(tmp_path / "qrels", [tmp_path / "run"], ["AP", "NumRet"], per_query=True)
    assert run.command == "trec" and run.written == () and run.warnings == ()
    assert run.result.splitlines() == ["AP                    \tq1\t1.0000",
                                       "NumRet                \tq1\t2",
                                       "AP                    \tq2\t0.0000",
                                       "NumRet                \tq2\t1",
                                       "AP                    \tall\t0.5000",
                                       "NumRet                \tall\t3"]
    ((name, per_query, summary),) = run.parts["runs"]
    assert name == "sys" and len(per_query) == 4 and list(summary["measure"]) == ["AP", "NumRet"]
    with pytest.raises(ConfigError, match="option --format: unknown format 'xml'"):
        run_trec(tmp_path / "qrels", [tmp_path / "run"], format="xml")


def test_the_pipeline_namespace_is_lazy_and_complete():
    """Every public name of ``ranger_eval.pipeline`` resolves (from its command's module), and
    an unknown one is an AttributeError."""
    import ranger_eval.pipeline as pipeline

    assert all(getattr(pipeline, name) is not None for name in pipeline.__all__)
    assert set(pipeline.__all__) <= set(dir(pipeline))
    with pytest.raises(AttributeError, match="no attribute 'run_nothing'"):
        pipeline.run_nothing  # noqa: B018


def test_one_slug_names_compare_figures_and_the_html_report_finds_them():
    """compare's per-group figure names and the HTML report's lookup use the one slug."""
    from ranger_eval.formatting import slug
    from ranger_eval.pipeline import compare as compare_module
    from ranger_eval.report.html import compare as html_compare

    assert slug("nDCG@10 (dev)") == "nDCG@10_dev" and slug("a/b c") == "a_b_c"
    assert slug("  ") == "x"
    assert compare_module.slug is slug and html_compare._slug is slug
