"""Every figure and report page of ``compare``, ``rank`` and ``arena`` at 2, 10 and 50 systems.

Makes synthetic data the project generates itself (no download):

* ``compare``: per-item scores of N systems on three datasets (40 items each, accuracy-like
  values in [0, 1], systems spread so that neighbours are hard to separate and distant ones easy);
* ``rank``: a datasets × systems table (20 datasets, one column per system);
* ``arena``: pairwise battles between N models (Bradley–Terry strengths on a line, 60 battles
  per pair for 2 models, fewer per pair as N grows but every model in about 600 battles).

Runs ``ranger-eval compare/rank/arena`` with PNG figures and the HTML report for each N, then
opens every report page in headless Chromium (Playwright with the system Chromium, no browser
download) at 1,400 px and saves screenshots of the top of the page and of every table and
figure beside the figures::

    python examples/scale/gallery.py --out /tmp/gallery            # all of 2, 10, 50
    python examples/scale/gallery.py --out /tmp/gallery --systems 10 --commands arena

The point is to *look* at every PNG (figures and screenshots) at each size: overlapping or
clipped labels, unreadable numbers, empty half-canvases, tables that cut off a column.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

SIZES = (2, 10, 50)
COMMANDS = ("compare", "rank", "arena")
WIDTH = 1400


def names(n: int) -> list[str]:
    """System names of mixed lengths, as real leaderboards have."""
    stems = ["gpt-4o", "llama-3.1-8b-instruct", "qwen2.5-7b", "mistral-large-2407", "bm25",
             "colbert-v2", "phi-3-mini", "gemma-2-27b-it", "claude-3.5-sonnet", "deepseek-v2"]
    return [f"{stems[i % len(stems)]}" + (f"-v{i // len(stems)}" if i >= len(stems) else "")
            for i in range(n)]


def compare_scores(n: int, rng: np.random.Generator) -> pd.DataFrame:
    systems = names(n)
    rows = []
    for dataset in ("squad-v2", "boolq", "natural-questions"):
        difficulty = rng.normal(0.0, 0.12, 40)
        for s, system in enumerate(systems):
            skill = 0.45 + 0.3 * s / max(n - 1, 1)
            values = np.clip(skill + difficulty + rng.normal(0, 0.08, 40), 0, 1)
            rows += [{"dataset": dataset, "system": system, "metric": "F1", "item": f"q{i}",
                      "value": float(v)} for i, v in enumerate(values)]
    return pd.DataFrame(rows)


def rank_table(n: int, rng: np.random.Generator) -> pd.DataFrame:
    systems = names(n)
    data = {"dataset": [f"task-{d:02d}" for d in range(20)]}
    base = rng.uniform(0.4, 0.8, 20)
    for s, system in enumerate(systems):
        data[system] = np.round(base + 0.15 * s / max(n - 1, 1) + rng.normal(0, 0.03, 20), 4)
    return pd.DataFrame(data)


def battles(n: int, rng: np.random.Generator) -> pd.DataFrame:
    models = names(n)
    strength = np.linspace(-1.5, 1.5, n)
    per_pair = max(4, 600 // max(n - 1, 1)) if n > 2 else 60
    rows = []
    for i in range(n):
        for j in range(i + 1, n):
            p = 1 / (1 + np.exp(-(strength[i] - strength[j])))
            for _ in range(per_pair):
                u = rng.uniform()
                winner = "tie" if abs(u - p) < 0.05 else ("model_a" if u < p else "model_b")
                rows.append({"model_a": models[i], "model_b": models[j], "winner": winner})
    return pd.DataFrame(rows)


def cli() -> list[str]:
    exe = shutil.which("ranger-eval")
    return [exe] if exe else [sys.executable, "-m", "ranger_eval.cli"]


def has_html_option(command: str) -> bool:
    out = subprocess.run([*cli(), command, "--help"], capture_output=True, text=True,
                         env={**os.environ, "COLUMNS": "200"}, check=True).stdout
    return "--html" in out


def run(command: str, n: int, base: Path) -> Path:
    rng = np.random.default_rng(n)
    folder = base / f"{command}-{n}"
    data = base / "data"
    data.mkdir(parents=True, exist_ok=True)
    if command == "compare":
        source = data / f"scores-{n}.csv"
        compare_scores(n, rng).to_csv(source, index=False)
        extra = ["--per-dataset-figures"]
    elif command == "rank":
        source = data / f"table-{n}.csv"
        rank_table(n, rng).to_csv(source, index=False)
        extra = []
    else:
        source = data / f"battles-{n}.csv"
        battles(n, rng).to_csv(source, index=False)
        extra = ["--n-resamples", "200"]
    html = ["--html"] if has_html_option(command) else []
    args = [*cli(), command, str(source), "--out", str(folder), "--figures", "png", *html, *extra]
    print("$", " ".join(args[1:]) if len(args) == 2 else " ".join(args), flush=True)
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return folder


def report_pages(folder: Path) -> list[Path]:
    """The report pages of an output folder (whole HTML documents, not table fragments such as
    compare's ``comparison.html``)."""
    return [p for p in sorted(folder.glob("*.html"))
            if p.read_text(encoding="utf-8")[:200].lstrip().lower().startswith("<!doctype")]


#: Per page: how far the page overflows horizontally, and each table wider than its box that
#: cannot be scrolled (none is expected).
CHECK_JS = """() => ({
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
  clipped: Array.from(document.querySelectorAll("table")).filter(t => {
    const box = t.parentElement;
    const scrolls = ["auto", "scroll"].includes(getComputedStyle(box).overflowX);
    return t.scrollWidth > box.clientWidth + 1 && !scrolls;
  }).map(t => t.id),
  scrolling: Array.from(document.querySelectorAll("table")).filter(
    t => t.scrollWidth > t.parentElement.clientWidth + 1).map(t => t.id),
})"""


def screenshot(pages: list[Path], width: int = WIDTH) -> None:
    """Screenshots of each report page at ``width`` CSS px, beside it: the top of the page
    (``shot-<page>-<width>-top.png``) and every table and figure as the page shows it
    (``shot-<page>-<width>-NN-table.png`` / ``-figure.png``, at most 1,200 px of a long
    table). A full-page shot of a 50-system report is too tall to look at (and to take).
    Prints any horizontal overflow of the page and any table wider than its box."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("playwright is not installed: no screenshots (pip install playwright)")
        return
    chromium = os.environ.get("RANGER_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True,
                                     args=["--no-sandbox", "--disable-gpu"])
        context = browser.new_context(viewport={"width": width, "height": 1000})
        page = context.new_page()
        for path in pages:
            page.goto(path.resolve().as_uri(), wait_until="load")
            check = page.evaluate(CHECK_JS)
            print(f"  {path} at {width} px: page overflow {check['overflow']} px; tables "
                  f"scrolling in their box: {check['scrolling'] or 'none'}; clipped: "
                  f"{check['clipped'] or 'none'}")
            stem = f"shot-{path.stem}-{width}"
            page.screenshot(path=str(path.parent / f"{stem}-top.png"))
            parts = page.query_selector_all("figure, .table-wrap")
            for i, part in enumerate(parts):
                part.scroll_into_view_if_needed()
                kind = "figure" if part.evaluate("e => e.tagName") == "FIGURE" else "table"
                top = page.evaluate("e => e.getBoundingClientRect().top + window.scrollY", part)
                height = part.evaluate("e => e.getBoundingClientRect().height")
                clip = {"x": 0, "y": max(0.0, top - 40), "width": width,
                        "height": min(height + 60, 1200)}
                page.screenshot(path=str(path.parent / f"{stem}-{i:02d}-{kind}.png"),
                                clip=clip, full_page=True)
        browser.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("gallery-output"))
    parser.add_argument("--systems", type=int, nargs="*", default=list(SIZES))
    parser.add_argument("--commands", nargs="*", default=list(COMMANDS), choices=COMMANDS)
    parser.add_argument("--width", type=int, default=WIDTH, help="screenshot width (CSS px)")
    parser.add_argument("--shots-only", action="store_true",
                        help="only take the screenshots of folders already written")
    args = parser.parse_args(argv)
    pages: list[Path] = []
    for n in args.systems:
        for command in args.commands:
            folder = (args.out / f"{command}-{n}" if args.shots_only
                      else run(command, n, args.out))
            pages += report_pages(folder)
    screenshot(pages, args.width)
    for png in sorted(args.out.rglob("*.png")):
        print(png)


if __name__ == "__main__":
    main()
