"""The Examples sections of the package's docstrings run as doctests, in the one test command.

Every module of ``src/ranger_eval`` whose source contains ``>>>`` is one test: the module is
imported (which must have no side effect beyond defining names) and every example in it runs
with ``NORMALIZE_WHITESPACE`` and ``ELLIPSIS``; a failing example fails the test with doctest's
report (the expected and the actual output). Modules are found on disk, without importing, so
collection stays cheap in every test process; the tests run in the ordinary ``pytest`` run
(``-n auto`` spreads the modules over the processes).

Why a test file rather than ``--doctest-modules``: the package is imported here by its installed
name (``ranger_eval.x``), so the modules the doctests see are the ones the other tests see (the
``--import-mode=importlib`` of pyproject would import ``src/`` files a second time under other
names), and the default tier's ``-m`` selection and timeouts apply unchanged.
"""
from __future__ import annotations

import doctest
import importlib
import io
from pathlib import Path

import pytest

import ranger_eval

PACKAGE = Path(ranger_eval.__file__).parent
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules_with_examples() -> list[str]:
    """The dotted names of the package's modules whose source has a doctest prompt, sorted."""
    return sorted(_module_name(p) for p in PACKAGE.rglob("*.py")
                  if ">>> " in p.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", modules_with_examples())
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    report = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    tests = [t for t in finder.find(module, name) if t.examples]
    # only the docstrings written in this module (a re-exported function runs in its own module)
    tests = [t for t in tests if t.filename and Path(t.filename).resolve() == Path(
        module.__file__ or "").resolve()]
    assert tests, f"{name} has '>>> ' in its source but no docstring example doctest can find"
    for test in tests:
        runner.run(test, out=report.write)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, report.getvalue()


def test_examples_are_found() -> None:
    """The search finds the modules with examples (a broken search would pass vacuously)."""
    names = modules_with_examples()
    assert "ranger_eval.stats.tests" in names
    assert "ranger_eval.formatting" in names
