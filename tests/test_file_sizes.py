"""No source file of 1,200 lines or more (a newcomer reads a module whole).

Every ``src/ranger_eval/**/*.py`` is counted from the checkout (not the installed package); the
failure names each long file and its length, longest first. A file that grows past the limit is
split by what a reader looks for (see docs/architecture.md), with the old import path
re-exporting the moved names.
"""
from __future__ import annotations

from pathlib import Path

#: The first length that fails: files must stay below it.
LIMIT = 1200
SRC = Path(__file__).resolve().parents[1] / "src" / "ranger_eval"


def line_count(path: Path) -> int:
    """Lines of ``path`` as an editor numbers them (a last line without newline counts)."""
    return len(path.read_text(encoding="utf-8").splitlines())


def long_files(root: Path, limit: int = LIMIT) -> list[tuple[str, int]]:
    """``(path relative to root's parent, lines)`` of every ``.py`` under ``root`` with at least
    ``limit`` lines, longest first."""
    found = [(p.relative_to(root.parent).as_posix(), line_count(p)) for p in root.rglob("*.py")]
    return sorted(((name, n) for name, n in found if n >= limit), key=lambda t: (-t[1], t[0]))


def test_the_source_tree_is_found() -> None:
    files = list(SRC.rglob("*.py"))
    assert (SRC / "__init__.py").is_file() and len(files) > 50, SRC


def test_long_files_are_named(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "short.py").write_text("x = 1\n" * 1199, encoding="utf-8")
    (pkg / "sub" / "long.py").write_text("x = 1\n" * 1199 + "x = 2", encoding="utf-8")
    (pkg / "longer.py").write_text("x = 1\n" * 1300, encoding="utf-8")
    assert long_files(pkg) == [("pkg/longer.py", 1300), ("pkg/sub/long.py", 1200)]


def test_no_source_file_reaches_the_limit() -> None:
    long = long_files(SRC)
    assert not long, f"source files of {LIMIT} lines or more (split them): " + ", ".join(
        f"{name} ({n} lines)" for name, n in long)
