"""A namespace a newcomer can scan: every class a public function returns is exported where the
function is.

For the top level ``ranger_eval`` (its lazy export table) and for every subpackage (its
``__all__``), each public function's return annotation is parsed and every ``ranger_eval`` class
named in it must be exported by the same namespace, so ``rg.rank_test(...)`` returns an
``rg.RankTest`` and ``rg.aggregate.rank_test`` an ``rg.aggregate.RankTest``.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from types import ModuleType

import pytest

import ranger_eval as rg


def _subpackages() -> list[str]:
    return sorted(
        f"ranger_eval.{m.name}" for m in pkgutil.iter_modules(rg.__path__)
        if m.ispkg and not m.name.startswith("_")
    )


def _public_functions(namespace: ModuleType, names: list[str]) -> list[tuple[str, object]]:
    found = []
    for name in names:
        if name.startswith("_"):
            continue
        value = getattr(namespace, name)
        if inspect.isfunction(value):
            found.append((name, value))
    return found


def _annotation_names(func: object) -> set[str]:
    """Every bare or dotted name in the function's return annotation (a string under
    ``from __future__ import annotations``)."""
    annotation = inspect.get_annotations(func).get("return")  # type: ignore[arg-type]
    if annotation is None:
        return set()
    if not isinstance(annotation, str):
        annotation = getattr(annotation, "__name__", repr(annotation))
    tree = ast.parse(annotation, mode="eval")
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names |= {n.id for n in ast.walk(ast.parse(node.value, mode="eval"))
                      if isinstance(n, ast.Name)}
    return names


def _module_of(func: object) -> ModuleType:
    return importlib.import_module(func.__module__)  # type: ignore[attr-defined]


def _resolve(module: ModuleType, name: str) -> type | None:
    """The ``ranger_eval`` class ``name`` means in ``module``: a module global, or a name imported
    under ``TYPE_CHECKING`` only (found in the module's source, then imported)."""
    value = getattr(module, name, None)
    if value is None:
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if isinstance(node, ast.ImportFrom) and any(a.name == name for a in node.names):
                if node.level:
                    package = module.__name__ if (module.__file__ or "").endswith("__init__.py") \
                        else module.__name__.rsplit(".", 1)[0]
                    source = importlib.import_module("." * node.level + (node.module or ""), package)
                else:
                    source = importlib.import_module(node.module or "")
                value = getattr(source, name, None)
                break
    if inspect.isclass(value) and value.__module__.startswith("ranger_eval"):
        return value
    return None


def _returned_classes(func: object) -> set[type]:
    """The ``ranger_eval`` classes a function's return annotation names."""
    module = _module_of(func)
    found = (_resolve(module, name) for name in _annotation_names(func))
    return {c for c in found if c is not None}


def _exported_anywhere(cls: type) -> bool:
    """A class is exported by its home: the subpackage that defines it, or the top level."""
    if cls.__name__ in rg._EXPORTS:
        return True
    parts = cls.__module__.split(".")
    home = importlib.import_module(".".join(parts[:2]))
    return cls.__name__ in getattr(home, "__all__", ())


def _missing(namespace: ModuleType, exported: list[str]) -> dict[str, set[str]]:
    """For each public function of ``namespace``, the returned classes it does not export.

    At the top level every returned class must be exported. A subpackage must export the classes
    it defines; a class it returns from elsewhere (``Scores``, ``Comparison``) must be exported by
    its own home."""
    top = namespace is rg
    missing = {}
    for name, func in _public_functions(namespace, exported):
        absent = set()
        for cls in _returned_classes(func):
            if cls.__name__ in exported:
                continue
            if top or cls.__module__.startswith(namespace.__name__ + ".") \
                    or not _exported_anywhere(cls):
                absent.add(cls.__name__)
        if absent:
            missing[name] = absent
    return missing


def test_top_level_exports_every_returned_class() -> None:
    assert _missing(rg, list(rg._EXPORTS)) == {}


@pytest.mark.parametrize("package", _subpackages())
def test_subpackage_exports_every_returned_class(package: str) -> None:
    module = importlib.import_module(package)
    exported = list(getattr(module, "__all__", []))
    assert _missing(module, exported) == {}


def test_the_walk_sees_return_annotations() -> None:
    """The check above would pass on nothing if annotations were not read."""
    assert rg.MetaResult in _returned_classes(rg.meta_analysis)
    assert rg.Comparison in _returned_classes(rg.compare)
    assert _missing(rg, ["meta_analysis", "MetaResult"]) == {"meta_analysis": {"MetaRegressionResult"}}
