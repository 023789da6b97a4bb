"""The HTML report of ``ranger-eval agree --judge … --html`` in a headless Chromium: the
coefficient and the alt-test verdict in words, the alt-test figure shown at a readable size, the
annotators' table sortable, no console error, no network request, nothing wider than a laptop or
a phone screen (the browser machinery is test_html_browser's)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ranger_eval.pipeline.agree import run_agree
from tests.report.test_html_browser import (
    CHROMIUM,
    Session,
    browser,  # noqa: F401 - fixture, found by its name
    first_column,
    header,
)
from tests.report.test_html_browser import session as page_session  # noqa: F401 - fixture

pytestmark = [pytest.mark.slow, pytest.mark.skipif(CHROMIUM is None, reason="no Chromium")]


@pytest.fixture(scope="module")
def agree_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Five raters (four people, one LLM judge) of 60 answers on a 1-5 scale."""
    base = tmp_path_factory.mktemp("browser")
    rng = np.random.default_rng(11)
    truth = rng.integers(1, 6, 60)
    rows = []
    for rater, noise in (("ann-1", 0.6), ("ann-2", 0.8), ("ann-3", 0.7), ("ann-4", 1.2),
                         ("llm-judge", 0.6)):
        values = np.clip(np.round(truth + rng.normal(0, noise, 60)), 1, 5)
        rows += [{"item": i, "rater": rater, "value": v} for i, v in enumerate(values)]
    pd.DataFrame(rows).to_csv(base / "ratings.csv", index=False)
    run_agree(base / "ratings.csv", base / "agree",
              "ranger-eval agree ratings.csv --judge llm-judge --html", figures="png",
              html=True, judge="llm-judge", scale="interval", metric="neg_rmse",
              n_resamples=200)
    return base / "agree" / "report.html"


def test_agree_page_in_chromium(page_session: Session, agree_page: Path,  # noqa: F811
                                tmp_path: Path) -> None:
    session = page_session
    page = session.page
    session.open(agree_page)
    figures = page.locator("figure")
    assert figures.count() == 1
    box = figures.first.locator("img").bounding_box()
    assert box and box["width"] > 200 and box["height"] > 100, box
    assert page.eval_on_selector_all(
        "figure img", "imgs => imgs.every(i => i.complete && i.naturalWidth > 0)")
    agreement = json.loads((agree_page.parent / "agreement.json").read_text())["result"]
    reading = page.locator(".reading").inner_text()
    assert f"Krippendorff's α (interval) = {agreement['estimate']:.3f}" in reading
    assert "alternative annotator test" in reading and "winning rate" in reading
    alt = pd.read_csv(agree_page.parent / "alt_test.csv")
    table = "t0-alt-test"
    assert first_column(page, table) == list(alt["annotator"])
    header(page, table, "p").locator("button").click()
    assert first_column(page, table) == list(alt.sort_values("p_value")["annotator"])
    data = page.evaluate("JSON.parse(document.getElementById('ranger-results').textContent)")
    assert [a["kind"] for a in data["analyses"]] == ["agreement"]
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(tmp_path / "agree.png"), full_page=True)
    session.check_clean()
