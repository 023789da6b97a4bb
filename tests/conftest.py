"""Shared fixtures: where the reference corpus (../shared/corpus) lives, skipping when absent."""
from __future__ import annotations

import os
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

# The suite runs in parallel test processes (pytest-xdist, `-n auto` in pyproject): each one
# drawing figures in further worker processes would only oversubscribe the cores, so figures are
# drawn in the test process (the tests of the figure pool set the variable themselves).
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("RANGER_EVAL_FIGURE_WORKERS", "1")

REPO_ROOT = Path(__file__).resolve().parents[1]
ORACLES = REPO_ROOT / "tests" / "oracles"


def corpus_root() -> Path:
    """The reference corpus: $RANGER_CORPUS, else ../shared/corpus beside the repository."""
    env = os.environ.get("RANGER_CORPUS")
    return Path(env) if env else REPO_ROOT.parent / "shared" / "corpus"


@pytest.fixture(scope="session")
def corpus() -> Path:
    root = corpus_root()
    if not root.is_dir():
        pytest.skip(f"reference corpus not found at {root} (set RANGER_CORPUS or place shared/ beside the repo)")
    return root


@pytest.fixture(scope="session")
def oracles() -> Path:
    return ORACLES
