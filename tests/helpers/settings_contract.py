"""The settings contract every analysis entry point keeps (one settings object per analysis).

``check_entry_point(func, cls)``: ``func`` takes ``settings=None`` (last keyword), every other
keyword that names a field of ``cls`` has that field's default as its own default (one place),
and at least one keyword is such a field. ``check_result_settings(result, cls)``: the result
records the settings object of its call.
"""
from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any


def _defaults_equal(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def check_entry_point(func: Callable[..., Any], cls: type) -> list[str]:
    """The keywords of ``func`` that are fields of ``cls`` (asserting the contract)."""
    params = inspect.signature(func).parameters
    assert "settings" in params, f"{func.__name__} takes no settings="
    assert params["settings"].default is None
    assert params["settings"].kind is inspect.Parameter.KEYWORD_ONLY
    default = cls()
    fields = {f.name for f in dataclasses.fields(cls)}
    shared = [name for name in params if name in fields]
    assert shared, f"{func.__name__} shares no keyword with {cls.__name__}"
    for name in shared:
        got = params[name].default
        want = getattr(default, name)
        assert _defaults_equal(got, want), (
            f"{func.__name__}({name}={got!r}) but {cls.__name__}().{name} = {want!r}")
    return shared


def check_result_settings(result: Any, cls: type, **expected: Any) -> None:
    """``result.settings`` is a ``cls`` whose fields include ``expected``."""
    settings = result.settings
    assert isinstance(settings, cls), type(settings)
    for name, value in expected.items():
        assert getattr(settings, name) == value, (name, getattr(settings, name), value)
