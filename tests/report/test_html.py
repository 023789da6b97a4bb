"""The one-file HTML report (``report.html``) of real output folders made by the pipeline."""
from __future__ import annotations

import json
import math
import re
import shutil
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ranger_eval.errors import ReportError
from ranger_eval.formatting import format_percent, format_pvalue
from ranger_eval.pipeline import run_compare, run_rank
from ranger_eval.report.html import REPORT_FILE, render_html_report, write_html_report
from tests.helpers.outputs import demo_copy

# one test process builds the shared demo run (conftest's demo_cli) for every module using it
# (pytest-xdist's loadgroup, set in pyproject's addopts)
pytestmark = pytest.mark.xdist_group("demo")

BETA = "R&D <b>"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


# --------------------------------------------------------------------------- output folders
@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, demo_run: Path) -> Path:
    """``ranger-eval demo``: a meta-analysis folder with a ``ranking/`` subfolder (a copy of the
    shared demo run: the report tests write report.html into it)."""
    return demo_copy(demo_run, tmp_path_factory.mktemp("html") / "demo")


def _tidy(path: Path) -> Path:
    """Three systems on two datasets: gamma clearly best, alpha and "R&D <b>" close (a name
    with markup characters, to check the escaping)."""
    rng = np.random.default_rng(1)
    rows = []
    for dataset, shifts in (("d1", (0.0, 0.01, 0.15)), ("d2", (0.0, 0.0, 0.2))):
        base = rng.normal(0.5, 0.1, 40)
        for system, shift in zip(("alpha", BETA, "gamma"), shifts, strict=True):
            values = base + shift + rng.normal(0, 0.05, 40)
            rows += [{"dataset": dataset, "system": system, "metric": "acc", "item": f"q{i}",
                      "value": v} for i, v in enumerate(values)]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("html")
    scores = _tidy(base / "scores.csv")
    out = base / "cmp"
    run_compare(scores, out, command="ranger-eval compare scores.csv --out cmp "
                "--per-dataset-figures", per_dataset_figures=True)
    return out


@pytest.fixture(scope="module")
def ranked_table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``ranger-eval rank`` on a wide dataset-level table: the rank test only."""
    base = tmp_path_factory.mktemp("html")
    rng = np.random.default_rng(3)
    systems = ["A", "B", "C", "D"]
    table = pd.DataFrame(rng.normal(0, 0.02, (8, 4)) + np.array([0.8, 0.75, 0.7, 0.5]),
                         columns=systems)
    table.insert(0, "dataset", [f"ds{i}" for i in range(8)])
    table.to_csv(base / "wide.csv", index=False)
    out = base / "rank"
    run_rank(base / "wide.csv", out, command="ranger-eval rank wide.csv --out rank")
    return out


# --------------------------------------------------------------------------- helpers
class Page(HTMLParser):
    """Tags with their attributes, the scripts, the visible text, and nesting errors."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.text: list[str] = []
        self._script: dict[str, str | None] | None = None
        self._style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._script = dict(attrs)
        if tag == "style":
            self._style = True
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()
        if tag == "script":
            self._script = None
        if tag == "style":
            self._style = False

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self.scripts.append((self._script, data))
        elif not self._style:
            self.text.append(data)

    @property
    def visible(self) -> str:
        return " ".join(" ".join(self.text).split())


def parse(text: str) -> Page:
    page = Page()
    page.feed(text)
    page.close()
    assert not page.errors, page.errors[:5]
    assert page.stack == [], page.stack
    return page


def results(page: Page) -> dict:
    blocks = [data for attrs, data in page.scripts if attrs.get("id") == "ranger-results"]
    assert len(blocks) == 1
    assert [a.get("type") for a, d in page.scripts if a.get("id") == "ranger-results"] == \
        ["application/json"]
    return json.loads(blocks[0])


def csv_records(path: Path) -> list[dict]:
    frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
    return [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
            for row in frame.to_dict(orient="records")]


def assert_self_contained(text: str, page: Page) -> None:
    for tag, attrs in page.tags:
        for name in ("src", "href", "xlink:href", "action", "poster", "srcset", "data"):
            value = attrs.get(name)
            if value is not None:
                assert value.startswith(("#", "data:")), f"<{tag} {name}={value[:80]!r}>"
        assert tag not in ("link", "iframe", "object", "embed", "base"), tag
    assert not re.search(r"@import", text, re.I)
    assert not re.search(r"url\(\s*['\"]?(?!#)", text), "url() to something else than #id"
    assert not re.search(r"https?://", text), re.search(r".{60}https?://.{60}", text)
    assert "@font-face" not in text


def mnum(x: float, decimals: int) -> str:
    return f"{x:.{decimals}f}".replace("-", "\u2212")


def sentence_decimals(*values: float) -> int:
    """3 decimals, more when the smallest magnitude would keep fewer than 2 digits."""
    smallest = min(abs(v) for v in values if v != 0)
    return min(max(3, 1 - math.floor(math.log10(smallest))), 6)


# --------------------------------------------------------------------------- meta (demo)
def test_demo_report_is_one_valid_self_contained_file(demo: Path) -> None:
    path = write_html_report(demo, command="ranger-eval report demo")
    assert path == demo / REPORT_FILE
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    page = parse(text)
    assert_self_contained(text, page)
    assert '<meta name="viewport"' in text and "Content-Security-Policy" in text
    assert "@media print" in text and "max-width" in text
    # nothing else was left in the folder (atomic write: no temporary files)
    assert not [p for p in demo.iterdir() if p.name.endswith(".part")]
    # same folder, same report (no time stamps)
    assert render_html_report(demo, command="ranger-eval report demo") == text


def test_demo_report_embeds_the_results_as_json(demo: Path) -> None:
    page = parse(render_html_report(demo))
    data = results(page)
    manifest = json.loads((demo / "manifest.json").read_text())
    assert data["signature"] == manifest["signature"]
    assert data["command"] == manifest["command"] == "ranger-eval demo --out demo"
    meta, rank = data["analyses"]
    assert (meta["folder"], meta["kind"], rank["folder"], rank["kind"]) == \
        (".", "meta", "ranking", "rank")
    assert meta["summary"] == json.loads((demo / "summary.json").read_text())
    assert meta["effects"] == csv_records(demo / "effects.csv")
    assert rank["ranking"] == json.loads((demo / "ranking" / "ranking.json").read_text())
    assert rank["signature"] == json.loads((demo / "ranking" / "manifest.json").read_text())[
        "signature"]


def test_demo_report_shows_signature_command_and_reading(demo: Path) -> None:
    page = parse(render_html_report(demo, command="ranger-eval report demo"))
    text = page.visible
    summary = json.loads((demo / "summary.json").read_text())
    res = summary["result"]
    rank_manifest = json.loads((demo / "ranking" / "manifest.json").read_text())
    assert summary["signature"] in text and rank_manifest["signature"] in text
    assert "ranger-eval demo --out demo" in text
    assert "Report written by: ranger-eval report demo" in text
    assert summary["title"] in text
    p = format_pvalue(res["pvalue"], 2, "unicode", prefix="p = ")
    significant = "significant" if res["pvalue"] < 0.05 else "not significant"
    dec = sentence_decimals(res["estimate"], res["ci_low"], res["ci_high"])
    expected = (f"Compressed vs Baseline: the summary effect (SMD, random effects REML) is "
                f"{mnum(res['estimate'], dec)} [{mnum(res['ci_low'], dec)}, "
                f"{mnum(res['ci_high'], dec)}], "
                f"{p}: {significant} at α = 0.05; Compressed scores lower than Baseline on "
                f"{sum(y < 0 for y in res['yi'])} of {res['k']} datasets")
    assert res["estimate"] < 0
    assert expected in text
    assert f"heterogeneity I² = {format_percent(res['I2'] / 100, 1)}" in text
    assert "prediction interval" in text
    # the ranking subfolder: Demšar's test and the IBM ranking in words
    rt = json.loads((demo / "ranking" / "ranking.json").read_text())["rank_test"]
    top = min(rt["average_ranks"], key=rt["average_ranks"].get)
    assert f"{top} ranks first (average rank {rt['average_ranks'][top]:.2f})" in text
    assert f"(Nemenyi, CD = {rt['critical_difference']:.2f})" in text
    assert "Friedman test over 4 datasets and 5 systems" in text
    assert "ranks first by standardized mean" in text
    # and the Bradley–Terry leaderboard of the same scores, each rank interval in words
    bt = json.loads((demo / "ranking" / "ranking.json").read_text())["bradley_terry"]
    board = bt["leaderboard"]
    assert f"Bradley–Terry maximum-likelihood ratings of {len(board)} models" in text
    for row in board:
        lo, hi = int(row["rank_low"]), int(row["rank_high"])
        ranks = f"{lo}" if lo == hi else f"{lo}–{hi}"
        assert f"{row['model']}: rank {ranks} of {len(board)} (95 % rank interval)" in text
    assert 'id="t1-bradley-terry"' in render_html_report(demo)


def test_demo_report_figures_and_tables(demo: Path) -> None:
    text = render_html_report(demo)
    page = parse(text)
    tags = [t for t, _ in page.tags]
    # forest, and from ranking/ the CD diagram, the ranking graph and the Bradley–Terry
    # ratings: all inline SVG
    assert tags.count("figure") == tags.count("figcaption") == 4
    assert tags.count("svg") == 4
    assert '<img src="data:image/png;base64,' not in text  # SVG inline: text stays text
    assert "<?xml" not in text and "<!DOCTYPE svg" not in text and "<metadata" not in text
    ids = [a["id"] for _, a in page.tags if a.get("id")]
    assert len(ids) == len(set(ids)), "duplicate ids"
    # every style rule inside a figure is scoped to that figure
    for svg_id, css in re.findall(r'<svg id="([^"]+)".*?<style[^>]*>(.*?)</style>', text, re.S):
        rules = [r.strip() for r in re.findall(r"([^{}]+)\{", css)]
        assert rules and all(r.startswith(f"#{svg_id} ") or r == f"#{svg_id}" for r in rules)
    # every #id reference points at an element of the page
    refs = re.findall(r'href="#([^"]+)"|url\(#([^)]+)\)', text)
    assert refs and all((a or b) in ids for a, b in refs)
    # tables: header cells with scope="col" and a sort button; numeric sort keys
    ths = [a for t, a in page.tags if t == "th"]
    assert ths and all(a.get("scope") == "col" for a in ths)
    assert text.count('<table class="sortable"') >= 4  # effects, ranking, pairs, rank test
    for _, attrs in page.tags:
        if "data-sort" in attrs and attrs["data-sort"]:
            float(attrs["data-sort"])  # Infinity, -Infinity, numbers
    assert 'id="t0-effects"' in text and "<tfoot>" in text


# --------------------------------------------------------------------------- compare
def test_compare_report(compared: Path) -> None:
    path = write_html_report(compared)
    text = path.read_text(encoding="utf-8")
    page = parse(text)
    assert_self_contained(text, page)
    data = results(page)
    (comp,) = data["analyses"]
    assert comp["kind"] == "compare"
    assert comp["comparison"] == csv_records(compared / "comparison.csv")
    board = comp["leaderboard"]
    assert [r["system"] for r in board["rows"]] == ["alpha", BETA, "gamma"]
    assert "<b>" not in text and "R&amp;D &lt;b&gt;" in text  # names are escaped
    assert board["rows"][2]["cells"][0]["best"] is True and board["rows"][2]["cells"][0]["beats"]
    visible = page.visible
    manifest = json.loads((compared / "manifest.json").read_text())
    assert manifest["signature"] in visible and "ranger-eval compare scores.csv --out cmp" in visible
    table = pd.read_csv(compared / "comparison.csv")
    n_sig = int(table["significant"].sum())
    assert "3 systems compared pairwise on 2 datasets × metrics (6 tests" in visible
    assert f"{n_sig} significant after Holm–Šídák (α = 0.05)" in visible
    assert "gamma beats alpha on 2 of 2 datasets × metrics (significant after Holm–Šídák)" \
        in visible
    assert f"gamma beats {BETA} on 2 of 2 datasets × metrics" in visible
    # figures: every figure is written as PDF, SVG and PNG; the page inlines the SVG (text stays
    # text), once per figure, and no PNG copy of it
    assert not re.findall(r'<img src="data:image/png;base64,', text)
    unique = {f["sha256"] for f in manifest["files"] if f["file"].endswith(".svg")}
    assert unique and text.count('class="figure-svg"') == len(unique)
    assert "<h3>d1 · acc</h3>" in text and "<h3>d2 · acc</h3>" in text
    assert "<sup>" in text and "<strong>" in text  # leaderboard letters and best means


def test_identical_figures_are_shown_once(compared: Path, tmp_path: Path) -> None:
    """A plain-name copy of the first dataset's figure (graph.* = graph-d1-acc.*)."""
    case = _copy(compared, tmp_path / "dup")
    manifest = json.loads((case / "manifest.json").read_text())
    for ext in ("pdf", "svg", "png"):
        shutil.copyfile(case / f"graph-d1-acc.{ext}", case / f"graph.{ext}")
        entry = next(f for f in manifest["files"] if f["file"] == f"graph-d1-acc.{ext}")
        manifest["files"].append({**entry, "file": f"graph.{ext}"})
    (case / "manifest.json").write_text(json.dumps(manifest))
    before = render_html_report(compared)
    after = render_html_report(case)
    assert after.count("<figure") == before.count("<figure")


# --------------------------------------------------------------------------- rank test only
def test_rank_table_report(ranked_table: Path) -> None:
    text = render_html_report(ranked_table)
    page = parse(text)
    assert_self_contained(text, page)
    payload = json.loads((ranked_table / "ranking.json").read_text())
    assert payload["ranking"] is None
    assert results(page)["analyses"][0]["ranking"] == payload
    visible = page.visible
    assert "A ranks first (average rank" in visible
    assert "Friedman test over 8 datasets and 4 systems" in visible
    assert "The plain mean over datasets would rank A first too." in visible
    assert "naive mean" in visible and "<svg" in text  # cd.svg


# --------------------------------------------------------------------------- bad folders
def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("ranking", "example", REPORT_FILE))
    return dst


def test_missing_folder_and_manifest(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="nowhere: not a folder"):
        write_html_report(tmp_path / "nowhere")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ReportError, match=r"empty: no manifest\.json"):
        write_html_report(empty)
    assert not (empty / REPORT_FILE).exists()


def test_malformed_contents(demo: Path, tmp_path: Path) -> None:
    bad = _copy(demo, tmp_path / "bad")
    (bad / "manifest.json").write_text("{not json")
    with pytest.raises(ReportError, match=r"bad/manifest\.json: not valid JSON"):
        render_html_report(bad)
    (bad / "manifest.json").write_text(json.dumps({"files": []}))
    with pytest.raises(ReportError, match=r"manifest\.json: no \"signature\""):
        render_html_report(bad)

    for name, content, message in [
        ("summary.json", None, r"summary\.json: listed in manifest\.json but missing"),
        ("summary.json", "[1, 2]", r"summary\.json: expected a JSON object"),
        ("summary.json", '{"title": null}', r"summary\.json: missing key 'result'"),
        ("effects.csv", "# sig\nfoo,bar\n1,2\n", r"effects\.csv: missing column\(s\) dataset, yi"),
        ("forest.svg", "<html>no figure</html>", r"forest\.svg: not an SVG file"),
        ("forest.svg", '<svg><image href="http://x.org/a.png"/></svg>',
         r"forest\.svg: refers to an external resource"),
    ]:
        case = _copy(demo, tmp_path / f"case-{name}-{len(message)}")
        if content is None:
            (case / name).unlink()
        else:
            (case / name).write_text(content)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "changed since the run": tested below
            with pytest.raises(ReportError, match=message):
                write_html_report(case)
        assert not (case / REPORT_FILE).exists()


def test_changed_file_is_reported(demo: Path, tmp_path: Path) -> None:
    case = _copy(demo, tmp_path / "changed")
    csv = case / "effects.csv"
    csv.write_text(csv.read_text() + "\n")
    with pytest.warns(UserWarning, match=r"effects\.csv: changed since the run"):
        write_html_report(case)


def test_unrecognised_folder(tmp_path: Path) -> None:
    folder = tmp_path / "other"
    folder.mkdir()
    (folder / "notes.txt").write_text("x")
    (folder / "manifest.json").write_text(json.dumps(
        {"signature": "ranger-eval:0.1.0|kind:ir", "command": None,
         "files": [{"file": "notes.txt"}]}))
    with pytest.raises(ReportError, match="lists no result the report can show"):
        write_html_report(folder)
    (folder / "manifest.json").write_text(json.dumps(
        {"signature": "x", "files": [{"file": "../etc/passwd"}]}))
    with pytest.raises(ReportError, match="bad entry in \"files\""):
        write_html_report(folder)
