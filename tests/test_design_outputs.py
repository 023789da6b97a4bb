"""Every output a command writes honours the design, or says why it need not.

Each command runs twice on the same scores: with a cluster column (``--cluster passage``;
clusters with a strong shared effect, ICC ≈ 0.85) and without it. Every file of the output
folder (the manifest's list, and whatever else is in the folder) must match a declared
:class:`Output` of that command: either a check that the clustered file changed the way the
design says (its signature names the clusters, its intervals are cluster-robust and wider, it
counts the clusters, its resampling unit is ``cluster(passage)``), or a reason why the file is
design-free. A file no entry declares fails the test, so a new output cannot skip the design.

To add a command (``rank``, ``arena`` …): add a :class:`Command` to :data:`COMMANDS` with its
arguments and one :class:`Output` per file it writes.
"""
from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ranger_eval.cli import app
from ranger_eval.signature import parse_signature

runner = CliRunner()
CLUSTER_FIELD = "passage"


# --------------------------------------------------------------------------- the two runs
@dataclass(frozen=True)
class Run:
    """One command's output folder."""

    out: Path

    def manifest(self) -> dict:
        return json.loads((self.out / "manifest.json").read_text(encoding="utf-8"))

    def files(self) -> list[str]:
        """The manifest's files, the manifest, and anything else in the folder."""
        listed = [f["file"] for f in self.manifest()["files"]]
        on_disk = sorted(p.relative_to(self.out).as_posix() for p in self.out.rglob("*")
                         if p.is_file())
        return sorted(set(listed) | set(on_disk))

    def signature(self, name: str) -> dict[str, str]:
        """The signature the manifest records for ``name`` (the run's for the manifest)."""
        m = self.manifest()
        if name == "manifest.json":
            return parse_signature(m["signature"])
        (entry,) = [f for f in m["files"] if f["file"] == name]
        return parse_signature(entry["signature"])

    def text(self, name: str) -> str:
        return (self.out / name).read_text(encoding="utf-8")


Check = Callable[[Run, Run, str], None]  # (clustered run, plain run, file name)


@dataclass(frozen=True)
class Output:
    """Files of a command matching ``pattern`` (fnmatch): ``check`` asserts that the clustered
    file honours the design, or ``design_free`` says why the file does not depend on it."""

    pattern: str
    check: Check | None = None
    design_free: str = ""

    def __post_init__(self) -> None:
        assert (self.check is None) != (not self.design_free), self.pattern


@dataclass(frozen=True)
class Command:
    """A command run on the clustered and on the plain table (``{scores}``, ``{out}``)."""

    args: tuple[str, ...]
    outputs: tuple[Output, ...]
    cluster_args: tuple[str, ...] = ("--cluster", CLUSTER_FIELD)


# --------------------------------------------------------------------------- checks
def from_clustered_tests(c: Run, p: Run, name: str) -> None:
    """Drawn from (or holding) the clustered tests: the signature names the cluster field."""
    assert c.signature(name).get("cluster") == CLUSTER_FIELD, (name, c.signature(name))
    assert "cluster" not in p.signature(name), name


def resamples_clusters(c: Run, p: Run, name: str) -> None:
    """A bootstrap over the scores: its signature's unit is cluster(passage), else item."""
    assert c.signature(name).get("resample") == f"cluster({CLUSTER_FIELD})", name
    assert p.signature(name).get("resample") == "item", name


def text_names_clusters(c: Run, p: Run, name: str) -> None:
    """A text output printing its signature: ``cluster:passage`` in it, and not without."""
    from_clustered_tests(c, p, name)
    report_names_clusters(c, p, name)


def report_names_clusters(c: Run, p: Run, name: str) -> None:
    """The HTML report (not in the manifest: written after it) prints the run's signature."""
    assert f"cluster:{CLUSTER_FIELD}" in c.text(name), name
    assert f"cluster:{CLUSTER_FIELD}" not in p.text(name), name


def comparison_csv(c: Run, p: Run, name: str) -> None:
    from_clustered_tests(c, p, name)
    tc, tp = pd.read_csv(c.out / name), pd.read_csv(p.out / name)
    assert (tc["n_clusters"] == N_CLUSTERS).all()
    assert "n_clusters" not in tp.columns or tp["n_clusters"].isna().all()
    assert tc["ci_method"].str.contains("cluster-robust").all()
    assert not tp["ci_method"].astype(str).str.contains("cluster").any()


def comparison_json(c: Run, p: Run, name: str) -> None:
    from_clustered_tests(c, p, name)
    jc, jp = json.loads(c.text(name)), json.loads(p.text(name))
    assert parse_signature(jc["signature"]).get("cluster") == CLUSTER_FIELD
    assert "cluster" not in parse_signature(jp["signature"])


_INTERVAL = re.compile(r"\[\s*(-?[\d.]+),\s*(-?[\d.]+)\s*\]")


def _widths(text: str) -> list[float]:
    plain = text.replace("$-$", "-").replace("−", "-")  # LaTeX and typographic minus
    return [float(b) - float(a) for a, b in _INTERVAL.findall(plain)]


def leaderboard_intervals_are_wider(c: Run, p: Run, name: str) -> None:
    """The means' intervals are cluster-robust: wider with a strong cluster effect."""
    from_clustered_tests(c, p, name)
    wc, wp = _widths(c.text(name)), _widths(p.text(name))
    assert wc and len(wc) == len(wp), (name, wc, wp)
    assert all(a > 1.5 * b for a, b in zip(wc, wp, strict=True)), (name, wc, wp)
    assert "cluster-robust" in c.text(name) and "cluster-robust" not in p.text(name)


def leaderboard_json(c: Run, p: Run, name: str) -> None:
    """leaderboard.json (what the HTML report reads): the cluster-robust caption, each mean's
    cluster count and its wider interval."""
    from_clustered_tests(c, p, name)
    jc, jp = json.loads(c.text(name)), json.loads(p.text(name))
    assert "cluster-robust" in jc["caption"] and "cluster-robust" not in jp["caption"]
    cells_c = [x for r in jc["rows"] for x in r["cells"]]
    cells_p = [x for r in jp["rows"] for x in r["cells"]]
    assert cells_c and all(x["n_clusters"] == N_CLUSTERS for x in cells_c)
    assert all(x["ci_high"] - x["ci_low"] > 1.5 * (y["ci_high"] - y["ci_low"])
               for x, y in zip(cells_c, cells_p, strict=True))


def leaderboard_csv(c: Run, p: Run, name: str) -> None:
    """Each mean's n, n_clusters and se (rg.describe's: cluster-robust with clusters), its
    interval: the clusters counted and the se larger with a strong cluster effect."""
    from_clustered_tests(c, p, name)
    tc, tp = pd.read_csv(c.out / name), pd.read_csv(p.out / name)
    col = lambda t, what: [k for k in t.columns if k.endswith(f" {what}")]  # noqa: E731
    assert col(tc, "se") and col(tc, "n_clusters") and col(tc, "interval"), list(tc.columns)
    for k in col(tc, "n_clusters"):
        assert (tc[k] == N_CLUSTERS).all(), (k, tc[k].tolist())
    for k in col(tp, "n_clusters"):  # without clusters each item is its own
        assert (tp[k] == tp[k.replace("n_clusters", "n")]).all()
    for k in col(tc, "se"):
        assert (tc[k] > 1.5 * tp[k]).all(), (k, tc[k].tolist(), tp[k].tolist())


def meta_effects_csv(c: Run, p: Run, name: str) -> None:
    """Each dataset's effect variance is cluster-robust: the same yi, another vi."""
    from_clustered_tests(c, p, name)
    tc, tp = pd.read_csv(c.out / name), pd.read_csv(p.out / name)
    np.testing.assert_allclose(tc["yi"], tp["yi"], rtol=1e-12)
    assert (np.abs(tc["vi"] / tp["vi"] - 1) > 1e-3).all()


def meta_summary_json(c: Run, p: Run, name: str) -> None:
    from_clustered_tests(c, p, name)
    jc, jp = json.loads(c.text(name)), json.loads(p.text(name))
    assert parse_signature(jc["signature"]).get("cluster") == CLUSTER_FIELD
    assert jc["result"]["se"] != jp["result"]["se"]


def setmetric_effects_csv(c: Run, p: Run, name: str) -> None:
    """A set-level metric's bootstrap draws whole clusters: resample:cluster(passage), and its
    variance grows with the shared cluster effect."""
    from_clustered_tests(c, p, name)
    resamples_clusters(c, p, name)
    tc, tp = pd.read_csv(c.out / name), pd.read_csv(p.out / name)
    np.testing.assert_allclose(tc["yi"], tp["yi"], rtol=1e-12)
    assert (tc["vi"] != tp["vi"]).all()


def setmetric_summary(c: Run, p: Run, name: str) -> None:
    from_clustered_tests(c, p, name)
    resamples_clusters(c, p, name)


def resample_is(clustered: str, plain: str) -> Check:
    """A bootstrap whose signature names its unit in its own vocabulary: the win rate's
    ``datasets+cluster(passage)`` / ``datasets+items``, Bradley–Terry's ``cluster(passage)`` /
    ``items``."""
    def check(c: Run, p: Run, name: str) -> None:
        assert c.signature(name).get("resample") == clustered, (name, c.signature(name))
        assert p.signature(name).get("resample") == plain, (name, p.signature(name))
    check.__doc__ = f"resample:{clustered} with clusters, resample:{plain} without"
    return check


BT_RESAMPLES = resample_is(f"cluster({CLUSTER_FIELD})", "items")
WIN_RATE_RESAMPLES = resample_is(f"datasets+cluster({CLUSTER_FIELD})", "datasets+items")


def bradley_terry_text(c: Run, p: Run, name: str) -> None:
    """The leaderboard's text says the unit (caption) and its signature; the cluster-robust
    sandwich se differs from the item-clustered one."""
    BT_RESAMPLES(c, p, name)
    assert f"resample:cluster({CLUSTER_FIELD})" in c.text(name), name
    assert "resample:items" in p.text(name), name
    if name.endswith(".md"):
        assert f"clusters ({CLUSTER_FIELD})" in c.text(name)
        assert "clusters" not in p.text(name)


def bradley_terry_csv(c: Run, p: Run, name: str) -> None:
    BT_RESAMPLES(c, p, name)
    tc, tp = pd.read_csv(c.out / name), pd.read_csv(p.out / name)
    pd.testing.assert_series_equal(tc["rating"], tp["rating"])   # same fit, another unit
    assert (np.abs(tc["se"] / tp["se"] - 1) > 1e-3).all()


def winrate_text(c: Run, p: Run, name: str) -> None:
    WIN_RATE_RESAMPLES(c, p, name)
    assert f"resample:datasets+cluster({CLUSTER_FIELD})" in c.text(name), name
    assert "resample:datasets+items" in p.text(name), name


def ranking_json(c: Run, p: Run, name: str) -> None:
    """ranking.json: the ranking's signature names the clusters of its tests, and the
    Bradley–Terry and win-rate results inside it their resampling unit."""
    jc, jp = json.loads(c.text(name)), json.loads(p.text(name))
    assert parse_signature(jc["signature"]).get("cluster") == CLUSTER_FIELD
    assert "cluster" not in parse_signature(jp["signature"])
    assert jc["bradley_terry"]["resample"] == f"cluster({CLUSTER_FIELD})"
    assert jp["bradley_terry"]["resample"] == "items"
    assert jc["win_rate"]["resample"] == f"datasets+cluster({CLUSTER_FIELD})"
    assert jp["win_rate"]["resample"] == "datasets+items"


def arena_json(c: Run, p: Run, name: str) -> None:
    BT_RESAMPLES(c, p, name)
    jc, jp = json.loads(c.text(name))["result"], json.loads(p.text(name))["result"]
    assert jc["resample"] == f"cluster({CLUSTER_FIELD})" and jp["resample"] == "items"
    assert [r["se"] for r in jc["leaderboard"]] != [r["se"] for r in jp["leaderboard"]]


def arena_html(c: Run, p: Run, name: str) -> None:
    """report.html of the arena folder (--html; written after the manifest) prints the
    leaderboard's signature."""
    assert f"resample:cluster({CLUSTER_FIELD})" in c.text(name), name
    assert f"resample:cluster({CLUSTER_FIELD})" not in p.text(name), name


DATASET_LEVEL = ("Demšar's rank test (Friedman/Nemenyi) and its CD diagram rank the "
                 "per-dataset means: the datasets are its units, and clusters nested within "
                 "a dataset change no dataset's mean")


# --------------------------------------------------------------------------- the commands
COMPARE = Command(
    args=("compare", "{scores}", "--out", "{out}", "--n-resamples", "200", "--html"),
    outputs=(
        Output("comparison.csv", comparison_csv),
        Output("comparison.json", comparison_json),
        Output("comparison.md", text_names_clusters),
        Output("comparison.tex", text_names_clusters),
        Output("comparison.html", text_names_clusters),
        Output("leaderboard.md", leaderboard_intervals_are_wider),
        Output("leaderboard.tex", leaderboard_intervals_are_wider),
        Output("leaderboard.csv", leaderboard_csv),
        Output("leaderboard.json", leaderboard_json),
        Output("report.html", report_names_clusters),
        Output("graph*.*", from_clustered_tests),
        Output("pvalues*.*", from_clustered_tests),
        Output("heatmap.*", from_clustered_tests),
        Output("boxplots*.*", resamples_clusters),
        Output("manifest.json", from_clustered_tests),
    ),
)
META = Command(
    args=("meta", "{scores}", "--treatment", "A", "--control", "B", "--out", "{out}", "--html"),
    outputs=(
        Output("effects.csv", meta_effects_csv),
        Output("summary.json", meta_summary_json),
        Output("summary.md", text_names_clusters),
        Output("summary.tex", text_names_clusters),
        Output("report.html", report_names_clusters),
        Output("forest.*", from_clustered_tests),
        Output("manifest.json", from_clustered_tests),
    ),
)
META_SETMETRIC = Command(
    args=("meta", "{scores}", "--treatment", "A", "--control", "B", "--metric-fn",
          "upper_median", "--out", "{out}", "--html"),
    outputs=(
        Output("effects.csv", setmetric_effects_csv),
        Output("summary.json", setmetric_summary),
        Output("summary.md", text_names_clusters),
        Output("summary.tex", text_names_clusters),
        Output("report.html", report_names_clusters),
        Output("forest.*", setmetric_summary),
        Output("manifest.json", setmetric_summary),
    ),
)
RANK = Command(
    args=("rank", "{scores}", "--out", "{out}", "--html"),
    outputs=(
        Output("ranking.md", text_names_clusters),
        Output("ranking.tex", text_names_clusters),
        Output("ranking.csv", from_clustered_tests),
        Output("ranking.json", ranking_json),
        Output("ranktest.*", design_free=DATASET_LEVEL),
        Output("cd.*", design_free=DATASET_LEVEL),
        Output("graph.*", from_clustered_tests),
        Output("bradley_terry.md", bradley_terry_text),
        Output("bradley_terry.tex", bradley_terry_text),
        Output("bradley_terry.csv", bradley_terry_csv),
        Output("bradley_terry_ratings.*", BT_RESAMPLES),
        Output("winrate.md", winrate_text),
        Output("winrate.tex", winrate_text),
        Output("winrate.csv", WIN_RATE_RESAMPLES),
        Output("report.html", report_names_clusters),
        Output("manifest.json", from_clustered_tests),
    ),
)
ARENA = Command(
    args=("arena", "{scores}", "--out", "{out}", "--n-resamples", "200", "--html"),
    outputs=(
        Output("arena.md", bradley_terry_text),
        Output("arena.tex", bradley_terry_text),
        Output("arena.csv", bradley_terry_csv),
        Output("arena.json", arena_json),
        Output("arena_ratings.*", BT_RESAMPLES),
        Output("arena_win_probability.*", BT_RESAMPLES),
        Output("report.html", arena_html),
        Output("manifest.json", BT_RESAMPLES),
    ),
)
#: Every command whose outputs are checked.
COMMANDS: dict[str, Command] = {
    "compare": COMPARE, "meta": META, "meta --metric-fn": META_SETMETRIC,
    "rank": RANK, "arena": ARENA,
}

N_CLUSTERS = 8


def _scores(tmp_path: Path) -> tuple[Path, Path]:
    """Three datasets × systems A, B, C × 8 passages of 4 questions; a passage effect shared by
    the systems (sd 1) over item noise (sd 0.4): the clustered and the plain table."""
    rng = np.random.default_rng(27)
    rows = []
    for d in ("d1", "d2", "d3"):
        effect = rng.normal(0.0, 1.0, N_CLUSTERS)
        for s, shift in (("A", 0.3), ("B", 0.15), ("C", 0.0)):
            for k in range(N_CLUSTERS):
                for i in range(4):
                    rows.append((d, s, f"q{k}-{i}", f"p{k}",
                                 shift + effect[k] + 0.4 * rng.normal()))
    frame = pd.DataFrame(rows, columns=["dataset", "system", "item", CLUSTER_FIELD, "value"])
    clustered, plain = tmp_path / "clustered.csv", tmp_path / "plain.csv"
    frame.to_csv(clustered, index=False)
    frame.drop(columns=CLUSTER_FIELD).to_csv(plain, index=False)
    return clustered, plain


def _run(cmd: Command, scores: Path, out: Path, extra: Sequence[str]) -> Run:
    argv = [a.format(scores=scores, out=out) for a in cmd.args] + list(extra)
    result = runner.invoke(app, argv)
    assert result.exit_code == 0, (argv, result.output)
    return Run(out)


def _check_every_output(name: str, tmp_path: Path, figures: Sequence[str]) -> set[str]:
    cmd = COMMANDS[name]
    clustered, plain = _scores(tmp_path)
    c = _run(cmd, clustered, tmp_path / "c", [*figures, *cmd.cluster_args])
    p = _run(cmd, plain, tmp_path / "p", figures)
    assert c.files() == p.files()
    matched = {file: next((o for o in cmd.outputs if fnmatch.fnmatch(file, o.pattern)), None)
               for file in c.files()}
    undeclared = [file for file, o in matched.items() if o is None]
    assert not undeclared, (
        f"{name} wrote {undeclared}, which no Output of tests/test_design_outputs.py declares: "
        "say how the file honours the design (clusters, resampling unit) or why it is "
        "design-free")
    for file, o in matched.items():
        assert o is not None
        if o.check is not None:
            o.check(c, p, file)
    return {o.pattern for o in matched.values() if o is not None}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_table_output_honours_the_design(name: str, tmp_path: Path) -> None:
    """Without figures (fast): every table, text and JSON file."""
    _check_every_output(name, tmp_path, ["--figures", "none"])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_output_with_figures_honours_the_design(name: str, tmp_path: Path) -> None:
    """With every figure (one format) and every declared pattern used (no stale entries)."""
    extra = ["--figures", "png"] + (["--per-dataset-figures"] if name == "compare" else [])
    used = _check_every_output(name, tmp_path, extra)
    declared = {o.pattern for o in COMMANDS[name].outputs}
    assert used == declared, declared - used


def test_an_undeclared_output_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard itself: a command whose outputs lack one declaration fails the check."""
    partial = Command(COMPARE.args, tuple(o for o in COMPARE.outputs
                                          if o.pattern != "leaderboard.md"))
    monkeypatch.setitem(COMMANDS, "compare", partial)
    with pytest.raises(AssertionError, match=r"leaderboard\.md"):
        _check_every_output("compare", tmp_path, ["--figures", "none"])
