"""The HTML report of ``ranger-eval estimate --html`` in a headless Chromium: the estimate and
the plain subset mean in words and in a sortable table, the sentence of its worth, the figure
shown at a readable size, no console error, no network request, nothing wider than a laptop or a
phone screen (the browser machinery is test_html_browser's)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ranger_eval.pipeline.estimate import run_estimate
from tests.report.test_html_browser import (
    CHROMIUM,
    Session,
    browser,  # noqa: F401 - fixture, found by its name
    first_column,
)
from tests.report.test_html_browser import session as page_session  # noqa: F401 - fixture

pytestmark = [pytest.mark.slow, pytest.mark.skipif(CHROMIUM is None, reason="no Chromium")]


@pytest.fixture(scope="module")
def estimate_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """30 past systems on 300 items; a new one run on 80 random items."""
    base = tmp_path_factory.mktemp("browser")
    rng = np.random.default_rng(5)
    b, theta = rng.normal(0, 1.5, 300), rng.normal(size=31)
    x = (rng.random((31, 300)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(int)
    pd.DataFrame([{"system": f"m{s}", "item": f"q{i}", "value": x[s, i]}
                  for s in range(30) for i in range(300)]).to_csv(base / "history.csv",
                                                                  index=False)
    pick = rng.choice(300, 80, replace=False)
    pd.DataFrame({"item": [f"q{i}" for i in pick], "value": x[30, pick]}).to_csv(
        base / "responses.csv", index=False)
    run_estimate(base / "history.csv", base / "responses.csv", base / "estimate",
                 "ranger-eval estimate --history history.csv --responses responses.csv --html",
                 figures="png", html=True, full_mean=float(x[30].mean()))
    return base / "estimate" / "report.html"


def test_estimate_page_in_chromium(page_session: Session, estimate_page: Path,  # noqa: F811
                                   tmp_path: Path) -> None:
    session = page_session
    page = session.page
    session.open(estimate_page)
    figures = page.locator("figure")
    assert figures.count() == 1
    box = figures.first.locator("img").bounding_box()
    assert box and box["width"] > 300 and box["height"] > 120, box
    result = json.loads((estimate_page.parent / "estimate.json").read_text())["result"]
    reading = page.locator(".reading").inner_text()
    assert f"{result['estimate']:.4f}" in reading and result["worth"] in reading
    table = "t0-estimate"
    assert first_column(page, table) == ["cross-fitted difference (rasch)",
                                         "plain subset mean (Wilson)"]
    data = page.evaluate("JSON.parse(document.getElementById('ranger-results').textContent)")
    assert [a["kind"] for a in data["analyses"]] == ["subset"]
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(tmp_path / "estimate.png"), full_page=True)
    session.check_clean()
