"""A module imported on first attribute access (``scipy.stats`` costs half a second to import,
the whole budget of a quick command that never uses it)."""
from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

__all__ = ["lazy_module"]


class _LazyModule:
    """Stands in for the module ``name`` until an attribute is read, then imports it."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


def lazy_module(name: str) -> Any:
    """``stats = lazy_module("scipy.stats")`` then ``stats.norm`` imports scipy.stats on first use."""
    return _LazyModule(name)
