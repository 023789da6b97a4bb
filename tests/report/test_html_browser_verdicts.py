"""The HTML reports of ``ranger-eval aso`` and ``bayes`` in a headless Chromium: the verdicts,
the figures shown at a non-zero size, sortable matrices, no console error, no network request,
nothing wider than a laptop or a phone screen (the browser machinery is test_html_browser's)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ranger_eval.pipeline.aso import run_aso
from ranger_eval.pipeline.bayes import run_bayes
from tests.report.test_html_browser import (
    CHROMIUM,
    Session,
    browser,  # noqa: F401 - fixture, found by its name
    first_column,
    header,
)
from tests.report.test_html_browser import session as page_session  # noqa: F401 - fixture

pytestmark = [pytest.mark.slow, pytest.mark.skipif(CHROMIUM is None, reason="no Chromium")]


def _check_page(session: Session, page_path: Path, n_figures: int) -> None:
    page = session.page
    session.open(page_path)
    figures = page.locator("figure")
    assert figures.count() == n_figures
    for i in range(n_figures):
        fig = figures.nth(i)
        fig.scroll_into_view_if_needed()
        box = fig.locator("svg, img").first.bounding_box()
        assert box and box["width"] > 50 and box["height"] > 50, (i, box)
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    session.check_clean()


def test_aso_report_in_chromium(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    session: Session = request.getfixturevalue("page_session")
    rng = np.random.default_rng(4)
    rows = [(d, s, str(k), mu + rng.normal(0, 0.01)) for d in ("mnli", "qnli")
            for s, mu in (("base", 0.80), ("large", 0.83), ("tiny", 0.70)) for k in range(6)]
    src = tmp_path / "runs.csv"
    pd.DataFrame(rows, columns=["dataset", "system", "seed", "value"]).to_csv(src, index=False)
    run = run_aso(src, tmp_path / "aso", "ranger-eval aso runs.csv --html", figures="svg",
                  html=True, n_resamples=200)
    page_path = tmp_path / "aso" / "report.html"
    assert page_path in run.written
    _check_page(session, page_path, 2)
    page = session.page
    text = page.inner_text("div.reading")
    assert "large almost stochastically dominates base (ε_min = " in text
    assert "Bonferroni's correction for the 3 pairs of 3 systems" in text
    assert [h.inner_text() for h in page.locator("figure").locator("xpath=preceding::h3[1]")
            .all()] == ["mnli · score", "qnli · score"]
    th = header(page, "t0-aso-0", "base")
    th.locator("button").click()   # ε_min over base, ascending: large (small ε) before tiny
    assert first_column(page, "t0-aso-0")[:2] == ["large (6 runs)", "tiny (6 runs)"]


def test_bayes_report_in_chromium(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    session: Session = request.getfixturevalue("page_session")
    rng = np.random.default_rng(5)
    rows = [("cv", s, f"fold{f}", mu + rng.normal(0, 0.004)) for s, mu in
            (("logreg", 0.80), ("svm", 0.801), ("forest", 0.84)) for f in range(10)]
    src = tmp_path / "folds.csv"
    pd.DataFrame(rows, columns=["dataset", "system", "item", "value"]).to_csv(src, index=False)
    run_bayes(src, tmp_path / "bayes", "ranger-eval bayes folds.csv --rope 0.01 --html",
              figures="png", html=True, rope=0.01)
    _check_page(session, tmp_path / "bayes" / "report.html", 3)
    text = session.page.inner_text("div.reading")
    assert "logreg is practically equivalent to svm (P(rope) " in text
    assert "forest is better than logreg by more than the ROPE" in text
