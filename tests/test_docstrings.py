"""Every public function has a numpydoc docstring: Parameters, Returns and an Examples section.

"Public": in the ``__all__`` of ``ranger_eval`` or of one of its public packages and modules
(:data:`PUBLIC`). The examples themselves run in ``tests/test_doctests.py``; this test checks that
each function has them, so a new public function without them fails here, by name.
"""
from __future__ import annotations

import importlib
import inspect

PUBLIC = ("ranger_eval", "ranger_eval.stats", "ranger_eval.plots", "ranger_eval.verdicts",
          "ranger_eval.llm", "ranger_eval.budget",
          "ranger_eval.io", "ranger_eval.ir", "ranger_eval.aggregate", "ranger_eval.meta",
          "ranger_eval.comparison", "ranger_eval.effects", "ranger_eval.lazy", "ranger_eval.report",
          "ranger_eval.settings", "ranger_eval.scores", "ranger_eval.design",
          "ranger_eval.errors", "ranger_eval.signature", "ranger_eval.formatting",
          "ranger_eval.pairing", "ranger_eval.setmetrics", "ranger_eval.pipeline",
          "ranger_eval.output")


def _dispatcher(obj: object) -> bool:
    """A ``functools.singledispatch`` function (the report registry's renderers)."""
    return inspect.isfunction(obj) is False and callable(obj) and hasattr(obj, "registry")


def _public_functions() -> dict[str, object]:
    found: dict[str, object] = {}
    for name in PUBLIC:
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr, None)
            if inspect.isfunction(obj) or _dispatcher(obj):
                found.setdefault(f"{obj.__module__}.{obj.__qualname__}", obj)  # type: ignore[union-attr]
    return found


def _missing(obj: object) -> list[str]:
    doc = inspect.getdoc(obj) or ""
    missing = [section for section in ("Returns", "Examples")
               if f"{section}\n---" not in doc]
    takes = {} if _dispatcher(obj) else inspect.signature(obj).parameters  # type: ignore[arg-type]
    if len(takes) > 1 and "Parameters\n---" not in doc:
        missing.insert(0, "Parameters")
    if ">>> " not in doc and "Examples" not in missing:
        missing.append("a runnable example")
    return missing


def test_every_public_function_has_a_numpydoc_docstring_with_an_example():
    functions = _public_functions()
    assert len(functions) > 150  # the walk sees the package
    bad = {name: _missing(obj) for name, obj in sorted(functions.items()) if _missing(obj)}
    assert bad == {}, "\n".join(f"{name}: no {', '.join(what)}" for name, what in bad.items())
