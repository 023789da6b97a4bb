"""The HTML report in a real browser: headless Chromium driven by Playwright.

Skipped when the ``playwright`` package is not installed or no Chromium executable is found
(``$RANGER_CHROMIUM``, ``chromium``, ``chromium-browser``, ``/usr/bin/chromium``). Playwright
launches the system Chromium through ``executable_path``; it never downloads a browser.
Install: ``apt-get install -y chromium`` and ``pip install playwright``.
"""
from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ranger_eval.pipeline import run_compare
from ranger_eval.report.html import write_html_report
from ranger_eval.report.tables import df_text
from tests.helpers.outputs import demo_copy

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)


def _chromium() -> str | None:
    candidates = [os.environ.get("RANGER_CHROMIUM"), shutil.which("chromium"),
                  shutil.which("chromium-browser"), "/usr/bin/chromium"]
    return next((c for c in candidates if c and Path(c).is_file() and os.access(c, os.X_OK)),
                None)


CHROMIUM = _chromium()
# End-to-end tier, drives a headless Chromium: CI runs it (`pytest -m "slow or hypothesis"`);
# the default `pytest` leaves it out to stay under two minutes on two cores.
pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium executable (apt-get install chromium, or set RANGER_CHROMIUM)",
), pytest.mark.xdist_group("demo")]  # one process builds the shared demo run (conftest's demo_cli)


# --------------------------------------------------------------------------- reports
@pytest.fixture(scope="module")
def demo_report(tmp_path_factory: pytest.TempPathFactory, demo_run: Path) -> Path:
    out = demo_copy(demo_run, tmp_path_factory.mktemp("browser") / "demo")
    return write_html_report(out, command="ranger-eval report demo")


@pytest.fixture(scope="module")
def compare_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("browser")
    rng = np.random.default_rng(7)
    rows = []
    for dataset, shifts in (("d1", (0.0, 0.02, 0.15)), ("d2", (0.0, 0.0, 0.2))):
        item_base = rng.normal(0.5, 0.1, 40)
        for system, shift in zip(("alpha", "beta", "gamma"), shifts, strict=True):
            values = item_base + shift + rng.normal(0, 0.05, 40)
            rows += [{"dataset": dataset, "system": system, "metric": "acc", "item": f"q{i}",
                      "value": v} for i, v in enumerate(values)]
    pd.DataFrame(rows).to_csv(base / "scores.csv", index=False)
    # per-dataset figures are drawn only when asked: ask, so the browser sees them all
    run_compare(base / "scores.csv", base / "cmp", per_dataset_figures=True,
                command="ranger-eval compare scores.csv --per-dataset-figures")
    return write_html_report(base / "cmp")


# --------------------------------------------------------------------------- browser
class Session:
    """One page with every console error, page error and non-local request recorded."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        self.external: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        page.route("**/*", self._route)

    def _route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith(("file:", "data:")):
            route.continue_()
        else:
            self.external.append(url)
            route.abort()

    def open(self, path: Path) -> None:
        self.page.goto(path.resolve().as_uri(), wait_until="load")

    def check_clean(self) -> None:
        assert not self.errors, self.errors
        assert not self.external, self.external


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                               args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.fixture
def session(browser: Any) -> Iterator[Session]:
    context = browser.new_context(viewport={"width": 1366, "height": 800})
    yield Session(context.new_page())
    context.close()


def first_column(page: Any, table: str) -> list[str]:
    return page.eval_on_selector_all(
        f"#{table} tbody tr", "rows => rows.map(r => r.cells[0].textContent.trim())")


def header(page: Any, table: str, title: str) -> Any:
    exact = re.compile(rf"^\s*{re.escape(title)}\s*$")
    return page.locator(f"#{table} thead th").filter(has_text=exact).first


# --------------------------------------------------------------------------- tests
def test_demo_report_in_chromium(session: Session, demo_report: Path, tmp_path: Path) -> None:
    page = session.page
    session.open(demo_report)
    # every figure is shown, with a non-zero size, and its picture too
    figures = page.locator("figure")
    assert figures.count() == 4   # forest; CD diagram, ranking graph, Bradley–Terry ratings
    for i in range(figures.count()):
        fig = figures.nth(i)
        fig.scroll_into_view_if_needed()
        assert fig.is_visible()
        for part in ("svg, img", "figcaption"):
            box = fig.locator(part).first.bounding_box()
            assert box and box["width"] > 50 and box["height"] > 10, (i, part, box)
    assert page.eval_on_selector_all(
        "figure img", "imgs => imgs.every(i => i.complete && i.naturalWidth > 0)")

    # click a numeric header: rows follow the effect; click again: reversed
    effects = pd.read_csv(demo_report.parent / "effects.csv")
    by_effect = list(effects.sort_values("yi")["dataset"])
    before = first_column(page, "t0-effects")
    assert before == list(effects["dataset"])
    th = header(page, "t0-effects", "effect (SMD)")
    assert th.get_attribute("aria-sort") is None
    th.locator("button").click()
    assert th.get_attribute("aria-sort") == "ascending"
    assert first_column(page, "t0-effects") == by_effect != before
    th.locator("button").click()
    assert th.get_attribute("aria-sort") == "descending"
    assert first_column(page, "t0-effects") == by_effect[::-1]
    # numbers sort as numbers (277 < 1500), text as text; the summary row stays in the footer
    n = header(page, "t0-effects", "n")
    n.locator("button").click()
    assert th.get_attribute("aria-sort") is None and n.get_attribute("aria-sort") == "ascending"
    assert first_column(page, "t0-effects") == list(effects.sort_values("n")["dataset"])
    assert page.locator("#t0-effects tfoot tr").first.inner_text().startswith("summary")

    # the JSON is there for scripts
    data = page.evaluate("JSON.parse(document.getElementById('ranger-results').textContent)")
    assert [a["kind"] for a in data["analyses"]] == ["meta", "rank"]

    # a laptop screen: nothing wider than the window (wide tables scroll in their own box)
    page.set_viewport_size({"width": 1280, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
    page.screenshot(path="/tmp/report_screenshot.png", full_page=True)
    # a phone: figures shrink to the width
    page.set_viewport_size({"width": 390, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    widths = page.eval_on_selector_all("figure svg, figure img",
                                       "els => els.map(e => e.getBoundingClientRect().width)")
    assert widths and all(0 < w <= 390 for w in widths)
    page.screenshot(path=str(tmp_path / "report-phone.png"), full_page=True)

    # print: no interactive chrome
    page.set_viewport_size({"width": 1280, "height": 800})
    page.emulate_media(media="print")
    assert page.evaluate("getComputedStyle(document.querySelector('nav.toc')).display") == "none"
    assert page.evaluate(
        "getComputedStyle(document.querySelector('th button'), '::after').content") == "none"
    assert page.evaluate("getComputedStyle(document.querySelector('thead')).display") == \
        "table-header-group"
    page.pdf(path=str(tmp_path / "report.pdf"))
    assert (tmp_path / "report.pdf").stat().st_size > 10_000
    session.check_clean()


def test_compare_report_in_chromium(session: Session, compare_report: Path,
                                    tmp_path: Path) -> None:
    page = session.page
    session.open(compare_report)
    figures = page.locator("figure")
    assert figures.count() >= 4
    for i in range(figures.count()):
        fig = figures.nth(i)
        fig.scroll_into_view_if_needed()
        box = fig.locator("img, svg").first.bounding_box()
        assert fig.is_visible() and box and box["width"] > 50 and box["height"] > 50
    # sort the tests by system A (text), then reverse
    table = "t0-comparison"
    rows = lambda: page.eval_on_selector_all(  # noqa: E731
        f"#{table} tbody tr", "rows => rows.map(r => r.cells[2].textContent.trim())")
    before = rows()
    assert before != sorted(before)
    th = header(page, table, "system A")
    th.locator("button").click()
    assert rows() == sorted(before) and th.get_attribute("aria-sort") == "ascending"
    th.locator("button").click()
    assert rows() == sorted(before, reverse=True)
    assert th.get_attribute("aria-sort") == "descending"
    # p adj. sorts numerically, also across exponents
    p = header(page, table, "p adj.")
    p.locator("button").click()
    col = column_index(page, table, "p adj.")
    keys = page.eval_on_selector_all(
        f"#{table} tbody tr", f"rows => rows.map(r => Number(r.cells[{col}].dataset.sort))")
    assert keys == sorted(keys)
    # the paired t rows show their se and df (below the interval, so ten systems fit 1,400 px)
    ci = column_index(page, table, "95% CI")
    notes = page.eval_on_selector_all(
        f"#{table} tbody tr",
        f"rows => rows.map(r => r.cells[{ci}].querySelector('.note').textContent.trim())")
    assert len(notes) == 6 and all(n.startswith("se ") and n.endswith(", df 39") for n in notes)
    page.screenshot(path=str(tmp_path / "compare.png"), full_page=True)
    session.check_clean()


def column_index(page: Any, table: str, title: str) -> int:
    """The position of the column headed ``title``."""
    titles = page.eval_on_selector_all(f"#{table} thead th",
                                       "ths => ths.map(t => t.textContent.trim())")
    return [t.strip() for t in titles].index(title)


@pytest.fixture(scope="module")
def prompts_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A comparison of two systems on items crossed with prompts: the crossed model's se and
    Satterthwaite df in the report's table."""
    base = tmp_path_factory.mktemp("browser")
    rng = np.random.default_rng(3)
    items, prompts = 30, 5
    item_fx, prompt_fx = rng.normal(0, 0.3, items), rng.normal(0, 0.2, prompts)
    rows = []
    for system, shift in (("alpha", 0.0), ("beta", 0.1)):
        for i in range(items):
            for p in range(prompts):
                rows.append({"dataset": "qa", "metric": "acc", "system": system,
                             "item": f"q{i}", "prompt": f"p{p}",
                             "value": item_fx[i] + prompt_fx[p] * (1 + 5 * shift) + shift
                             + rng.normal(0, 0.2)})
    pd.DataFrame(rows).to_csv(base / "scores.csv", index=False)
    run_compare(base / "scores.csv", base / "cmp", command="ranger-eval compare scores.csv")
    return write_html_report(base / "cmp")


def test_prompts_report_shows_the_crossed_se_and_df(session: Session, prompts_report: Path,
                                                     tmp_path: Path) -> None:
    page = session.page
    session.open(prompts_report)
    table = "t0-comparison"
    cells = page.eval_on_selector_all(
        f"#{table} tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent.trim()))")
    comp = pd.read_csv(prompts_report.parent / "comparison.csv")
    ci = column_index(page, table, "95% CI")
    assert cells[0][ci].endswith(f"se {comp['se'][0]:.4f}, df {df_text(comp['df'][0])}")
    assert "standard error se and degrees of freedom df below it" in page.inner_text("body")
    page.set_viewport_size({"width": 1280, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(tmp_path / "prompts.png"), full_page=True)
    page.screenshot(path="/tmp/i30v2_prompts_report.png", full_page=True)
    session.check_clean()


def test_external_request_would_be_caught(session: Session, tmp_path: Path) -> None:
    """The request guard works: a page that loads an external image is reported."""
    page_file = tmp_path / "bad.html"
    page_file.write_text('<!DOCTYPE html><img src="http://example.invalid/x.png">')
    session.open(page_file)
    assert session.external == ["http://example.invalid/x.png"]


@pytest.fixture(scope="module")
def arena_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``ranger-eval arena --html`` on the oracle's 6-model battles with PNG figures: its
    report.html."""
    import json

    from ranger_eval.pipeline.arena import run_arena

    base = tmp_path_factory.mktemp("browser")
    fixture = Path(__file__).resolve().parents[1] / "oracles" / "bradley_terry_oracle.json"
    battles = pd.DataFrame(json.loads(fixture.read_text())["fixtures"]["ties_6"]["battles"])
    battles.to_csv(base / "battles.csv", index=False)
    run_arena(base / "battles.csv", base / "arena", "ranger-eval arena battles.csv --html",
              figures="png", html=True, n_resamples=200)
    return base / "arena" / "report.html"


def test_arena_page_in_chromium(session: Session, arena_page: Path, tmp_path: Path) -> None:
    page = session.page
    session.open(arena_page)
    # the two figures (PNG data URIs) are shown at a readable size
    figures = page.locator("figure")
    assert figures.count() == 2
    for i in range(2):
        box = figures.nth(i).locator("img").bounding_box()
        assert box and box["width"] > 200 and box["height"] > 100, (i, box)
    assert page.eval_on_selector_all(
        "figure img", "imgs => imgs.every(i => i.complete && i.naturalWidth > 0)")
    # the verdicts in words and the leaderboard, sortable by rating (numbers, not text)
    reading = page.locator(".reading").inner_text()
    assert "rank interval" in reading and "has the highest rating" in reading
    table = "t0-bradley-terry"
    board = pd.read_csv(arena_page.parent / "arena.csv")
    assert first_column(page, table) == list(board["model"])
    header(page, table, "rating").locator("button").click()
    assert first_column(page, table) == list(board.sort_values("rating")["model"])
    data = page.evaluate("JSON.parse(document.getElementById('ranger-results').textContent)")
    assert [a["kind"] for a in data["analyses"]] == ["arena"]
    page.set_viewport_size({"width": 390, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(tmp_path / "arena.png"), full_page=True)
    session.check_clean()


@pytest.fixture(scope="module")
def style_arena_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``ranger-eval arena --covariate length --covariate bold --html`` on 2,000 seeded
    battles among 6 models whose answers' lengths move the outcome: its report.html."""
    from ranger_eval.pipeline.arena import run_arena

    base = tmp_path_factory.mktemp("browser")
    rng = np.random.default_rng(5)
    n, names = 2000, np.array([f"model-{k}" for k in range(6)])
    a = rng.integers(0, 6, n)
    b = (a + rng.integers(1, 6, n)) % 6
    la, lb = rng.integers(50, 900, n), rng.integers(50, 900, n)
    s = np.linspace(-0.6, 0.6, 6)[a] - np.linspace(-0.6, 0.6, 6)[b] + 1.2 * (la - lb) / (la + lb)
    winner = np.where(rng.random(n) < 1 / (1 + np.exp(-s)), "model_a", "model_b")
    pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner, "length_a": la,
                  "length_b": lb, "bold_a": rng.poisson(1.0, n), "bold_b": rng.poisson(1.0, n)}
                 ).to_csv(base / "battles.csv", index=False)
    run_arena(base / "battles.csv", base / "arena", "ranger-eval arena battles.csv --html",
              figures="png", html=True, n_resamples=200, covariates=("length", "bold"))
    return base / "arena" / "report.html"


def test_style_arena_page_in_chromium(session: Session, style_arena_page: Path,
                                      tmp_path: Path) -> None:
    page = session.page
    session.open(style_arena_page)
    # ratings (both sets), the coefficients and the heatmap, each shown at a readable size
    figures = page.locator("figure")
    assert figures.count() == 3
    for i in range(3):
        box = figures.nth(i).locator("img").bounding_box()
        assert box and box["width"] > 200 and box["height"] > 80, (i, box)
    captions = page.locator("figcaption").all_inner_texts()
    assert any("without" in c and "open square" in c for c in captions)
    assert any("Style control" in c and "Elo points" in c for c in captions)
    # the leaderboard holds both rating sets side by side, as arena.csv does
    table = "t0-bradley-terry"
    board = pd.read_csv(style_arena_page.parent / "arena.csv")
    heads = page.locator(f"#{table} thead th").all_inner_texts()
    assert any("rating (no style control)" in h for h in heads)
    cells = page.locator(f"#{table} tbody tr").first.locator("td").all_inner_texts()
    assert float(cells[1]) == pytest.approx(board["rating"][0], abs=0.051)
    assert float(cells[5]) == pytest.approx(board["rating_uncontrolled"][0], abs=0.051)
    # the coefficient table: one row per covariate, length's effect positive and significant
    coef = page.locator("#t0-style-coefficients tbody tr")
    assert coef.count() == 2
    first = coef.first.locator("td").all_inner_texts()
    assert first[0] == "length" and float(first[3]) > 0 and float(first[6]) < 0.01
    page.set_viewport_size({"width": 390, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(tmp_path / "style_arena.png"), full_page=True)
    session.check_clean()
