"""The settings contract every analysis entry point keeps (one settings object per analysis).

``check_entry_point(func, cls)``: ``func`` takes ``settings=None`` (last keyword), every other
keyword that names a field of ``cls`` has that field's default as its own default (one place),
and at least one keyword is such a field. ``check_result_settings(result, cls)``: the result
records the settings object of its call.
"""
from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from typing import Any


def _defaults_equal(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def check_entry_point(func: Callable[..., Any], cls: type,
                      differ: Mapping[str, Any] | None = None) -> list[str]:
    """The keywords of ``func`` that are fields of ``cls`` (asserting the contract).

    ``differ``: parameters whose default differs from the field's on purpose (documented in
    ``func``'s docstring), each with the default it must have (``inspect.Parameter.empty``: a
    required parameter, e.g. data named like a field); checked, not skipped."""
    params = inspect.signature(func).parameters
    assert "settings" in params, f"{func.__name__} takes no settings="
    assert params["settings"].default is None
    assert params["settings"].kind is inspect.Parameter.KEYWORD_ONLY
    default = cls()
    fields = {f.name for f in dataclasses.fields(cls)}
    shared = [name for name in params if name in fields]
    assert shared, f"{func.__name__} shares no keyword with {cls.__name__}"
    for name, want in (differ or {}).items():
        assert name in shared, f"{func.__name__} has no keyword {name} shared with {cls.__name__}"
        assert _defaults_equal(params[name].default, want), (name, params[name].default, want)
        assert not _defaults_equal(want, getattr(default, name)), f"{name}: no difference"
    for name in shared:
        if name in (differ or {}):
            continue
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
