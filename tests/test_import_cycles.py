"""No import cycles, found with grimp, import-linter's engine.

The graph is built once from the installed ``ranger_eval`` with every import counted: those
inside functions and those under ``if TYPE_CHECKING:`` too (they never run, but a reader, a code
map and the type checker follow them, so a circle through them is still a circle to understand).
A module that needs an annotation from a module above it types against a ``typing.Protocol`` of
what it reads instead (docs/architecture.md, "Imports"). A cycle is a strongly connected component of more than one module (or a module
importing itself) among the modules of ``CHECKED`` (each entry a package and all its modules, or
one module). To check more of the package, add it to ``CHECKED`` (``("ranger_eval",)`` checks
everything).
"""
from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

grimp = pytest.importorskip("grimp", reason="grimp (import-linter's engine) is not installed")

#: packages (or modules) in which no import cycle may exist: the whole package; the only upward
#: imports are the ``.plot()`` conveniences, inside functions, which close no circle because the
#: plot modules never import the result classes back (``plots.condition`` reads a
#: ``ConditionResult`` protocol)
CHECKED: tuple[str, ...] = ("ranger_eval",)


def _inside(module: str, packages: Iterable[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def import_cycles(graph: object, packages: Iterable[str]) -> list[list[str]]:
    """The import cycles among the modules of ``packages`` in a grimp ``ImportGraph``: each
    strongly connected component of two or more modules, or one module that imports itself,
    sorted (Tarjan's algorithm, iterative)."""
    packages = tuple(packages)
    nodes = sorted(m for m in graph.modules if _inside(m, packages))  # type: ignore[attr-defined]
    members = set(nodes)
    edges: Mapping[str, list[str]] = {
        m: sorted(n for n in graph.find_modules_directly_imported_by(m)  # type: ignore[attr-defined]
                  if n in members)
        for m in nodes
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    component.append(m)
                    if m == node:
                        break
                if len(component) > 1 or node in edges[node]:
                    found.append(sorted(component))
    return sorted(found)


@pytest.fixture(scope="module")
def graph() -> object:
    """Every import, ``TYPE_CHECKING`` ones included."""
    return grimp.build_graph("ranger_eval", exclude_type_checking_imports=False, cache_dir=None)


def test_no_import_cycles(graph: object) -> None:
    cycles = import_cycles(graph, CHECKED)
    assert cycles == [], ("import cycles (TYPE_CHECKING imports included; type against a "
                          "Protocol defined below both modules instead): "
                          + "; ".join(" ↔ ".join(c) for c in cycles))


def test_the_graph_holds_type_checking_imports(graph: object) -> None:
    """The check above covers annotation-only imports: ``lazy._dask`` imports ``lazy._protocol``
    under ``TYPE_CHECKING`` only, and the graph has that edge."""
    imported = graph.find_modules_directly_imported_by("ranger_eval.lazy._dask")  # type: ignore[attr-defined]
    assert "ranger_eval.lazy._protocol" in imported
    text = (SRC / "lazy" / "_dask.py").read_text(encoding="utf-8")
    top = text.split("\nif TYPE_CHECKING:", 1)[0]
    assert "_protocol" not in top and "from ._protocol import LazyTable" in text


def test_checked_packages_exist(graph: object) -> None:
    """A misspelt or moved entry of CHECKED would make the check above pass on nothing."""
    for package in CHECKED:
        assert any(_inside(m, (package,)) for m in graph.modules), package  # type: ignore[attr-defined]


def test_the_finder_sees_cycles_and_only_inside_the_packages() -> None:
    g = grimp.ImportGraph()
    for a, b in (("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d"),
                 ("q.x", "q.x"), ("p.d", "r.y"), ("r.y", "p.d"), ("p.e", "p.d")):
        g.add_import(importer=a, imported=b)
    assert import_cycles(g, ("p", "q")) == [["p.a", "p.b", "p.c"], ["q.x"]]
    assert import_cycles(g, ("p", "r")) == [["p.a", "p.b", "p.c"], ["p.d", "r.y"]]
    assert import_cycles(g, ("p.d", "p.e")) == []


# --------------------------------------------------------------------------- imports at the top
SRC = Path(__file__).resolve().parents[1] / "src" / "ranger_eval"
ARCHITECTURE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
_INDENTED_IMPORT = re.compile(r"^[ \t]+(?:from \.|from ranger_eval|import ranger_eval)", re.M)
_PAIR = re.compile(r"`(ranger_eval[\w.]*)`\s*→\s*`(ranger_eval[\w.]*)`")


def kept_lazy(text: str) -> list[tuple[str, str]]:
    """The importer → imported prefix pairs of the "Imports" section of architecture.md: the one
    list of function-level imports of ``ranger_eval`` modules."""
    section = text.split("\n## Imports\n", 1)[1].split("\n## ", 1)[0]
    return _PAIR.findall(section)


def _module_name(path: Path) -> tuple[str, str]:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        name = ".".join(parts[:-1])
        return name, name
    name = ".".join(parts)
    return name, name.rsplit(".", 1)[0]


def function_level_imports(path: Path) -> list[tuple[str, str, int]]:
    """(importer, imported, line) of every import of a ``ranger_eval`` module inside a function
    of the file at ``path``."""
    module, package = _module_name(path)
    text = path.read_text(encoding="utf-8")
    if not _INDENTED_IMPORT.search(text):  # no indented import at all: nothing to parse
        return []
    found = []
    for fn in ast.walk(ast.parse(text)):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    targets = [".".join(base + ([node.module] if node.module else []))]
                    if node.module is None:  # from . import x: the submodules
                        targets = [f"{targets[0]}.{a.name}" for a in node.names]
                else:
                    targets = [node.module or ""]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            found += [(module, t, node.lineno) for t in targets
                      if t == "ranger_eval" or t.startswith("ranger_eval.")]
    return sorted(set(found))


def _inside_one(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def test_function_level_imports_are_the_listed_ones() -> None:
    allowed = kept_lazy(ARCHITECTURE.read_text(encoding="utf-8"))
    assert len(allowed) >= 5
    stray = [
        f"{importer}:{line} imports {imported}"
        for path in sorted(SRC.rglob("*.py"))
        for importer, imported, line in function_level_imports(path)
        if not any(_inside_one(importer, a) and _inside_one(imported, b) for a, b in allowed)
    ]
    assert stray == [], ("move these imports to the top of their module, or add the pair with "
                         "its measured reason to the Imports section of docs/architecture.md: "
                         + "; ".join(stray))


def test_the_import_walk_finds_function_level_imports() -> None:
    assert kept_lazy("x\n## Imports\n- `ranger_eval.a` → `ranger_eval.b`: why\n## Next\n"
                     "- `ranger_eval.c` → `ranger_eval.d`\n") == [("ranger_eval.a", "ranger_eval.b")]
    found = function_level_imports(SRC / "aggregate" / "ranking.py")
    assert ("ranger_eval.aggregate.ranking", "ranger_eval.plots.graph") in [f[:2] for f in found]
    assert all(imported != "ranger_eval.aggregate.metrics" for _, imported, _ in found)
