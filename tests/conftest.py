"""Shared fixtures: where the reference corpus (../shared/corpus) lives, skipping when absent."""
from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

# With PYTHONDONTWRITEBYTECODE=1 (common in containers and CI images) every run compiles the
# package again and pytest rewrites the asserts of every test module again: about 11 s of each
# test process's collection (25 s → 14 s measured on 2 cores). The suite therefore keeps its
# bytecode, in a cache outside the checkout (the user's PYTHONPYCACHEPREFIX if set), so that the
# tree stays free of __pycache__ as the variable intends; test subprocesses inherit the choice.
if sys.dont_write_bytecode:
    sys.dont_write_bytecode = False
    sys.pycache_prefix = sys.pycache_prefix or os.path.join(
        tempfile.gettempdir(), f"ranger-eval-pycache-{os.getuid() if hasattr(os, 'getuid') else 0}")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix

import matplotlib  # noqa: E402
import pytest  # noqa: E402

matplotlib.use("Agg")

# The suite runs in parallel test processes (pytest-xdist, `-n auto` in pyproject): each one
# drawing figures in further worker processes would only oversubscribe the cores, so figures are
# drawn in the test process (the tests of the figure pool set the variable themselves).
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("RANGER_EVAL_FIGURE_WORKERS", "1")

# Property tests (Hypothesis) are not in the default run (`-m 'not slow and not hypothesis'` in
# pyproject.toml), so that `pytest` stays under two minutes on two cores; CI runs them with every
# example each test asks for (`RANGER_TEST_DEEP=1 pytest -m "slow or hypothesis"`, .ci/run). Run
# without RANGER_TEST_DEEP (`pytest -m hypothesis`), each runs a quarter of its examples (≥ 10).
DEEP = os.environ.get("RANGER_TEST_DEEP", "") not in ("", "0")
FAST_SHARE, FAST_FLOOR = 4, 10


def fast_examples(n: int) -> int:
    """The examples a property test that asks for ``n`` runs in the default (not deep) run."""
    return n if DEEP else min(n, max(FAST_FLOOR, -(-n // FAST_SHARE)))


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects: the measured tier's marks must be on
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests of the measured slow tier (tests/slow_tier.txt, see tests/slow_tier.py) get the
    ``slow`` mark unless RANGER_TEST_TIER=all; outside a deep run, every Hypothesis test runs
    :func:`fast_examples` of its examples (its own settings otherwise unchanged; Hypothesis reads
    them when the test is called)."""
    if os.environ.get("RANGER_TEST_TIER", "") != "all":
        from tests.slow_tier import read_tier

        tier = read_tier()
        for item in items:
            if item.nodeid in tier:
                item.add_marker(pytest.mark.slow)
    if DEEP:
        return
    from hypothesis import settings

    done: set[int] = set()
    for item in items:
        fn = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
        own = getattr(fn, "_hypothesis_internal_use_settings", None)
        if own is None or not getattr(fn, "is_hypothesis_test", False) or id(fn) in done:
            continue
        done.add(id(fn))
        fn._hypothesis_internal_use_settings = settings(  # type: ignore[union-attr]
            own, max_examples=fast_examples(own.max_examples))


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



@dataclass(frozen=True)
class DemoCli:
    """One ``ranger-eval demo`` run through the command line: its folder, exit code and output."""

    out: Path
    exit_code: int
    output: str


@pytest.fixture(scope="session")
def demo_cli(tmp_path_factory: pytest.TempPathFactory) -> DemoCli:
    """``ranger-eval demo --out demo`` (default figures), run once per test process in-process
    (typer's CliRunner) and shared by every test that only reads a demo run (the meta folder,
    ``ranking/``, ``example/``). It must not be written to: a test that adds or changes files
    copies it first (``tests.helpers.outputs.demo_copy``). The command recorded in the manifests
    is the one a user would type (``sys.argv`` is set to it while the command runs)."""
    import sys

    from typer.testing import CliRunner

    from ranger_eval.cli import app

    out = tmp_path_factory.mktemp("demo-run") / "demo"
    argv = sys.argv
    sys.argv = ["ranger-eval", "demo", "--out", "demo"]
    try:
        result = CliRunner().invoke(app, ["demo", "--out", str(out)])
    finally:
        sys.argv = argv
    return DemoCli(out, result.exit_code, result.output)


@pytest.fixture(scope="session")
def demo_run(demo_cli: DemoCli) -> Path:
    """The folder of the shared :func:`demo_cli` run (only to be read; see there)."""
    assert demo_cli.exit_code == 0, demo_cli.output
    return demo_cli.out


def pytest_collection_finish(session: pytest.Session) -> None:
    """Move every object alive after collection (imported modules, parametrize values) out of
    the garbage collector's reach (:func:`gc.freeze`): the full collections that the tests'
    allocations trigger then scan only what the tests made, not the whole heap again."""
    import gc

    gc.collect()
    gc.freeze()
