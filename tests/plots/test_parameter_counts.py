"""The figures are built from parts small enough to read alone, so no function or
method defined in :mod:`ranger_eval.plots` takes more than a dozen parameters (the options travel
in small frozen objects such as :class:`ranger_eval.plots.ForestStyle`)."""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator
from typing import Any

import ranger_eval.plots as plots

MAX_PARAMETERS = 12

#: Functions of figures not yet split (name → parameter count); each entry must still exceed the
#: limit, so the list can only shrink.
KNOWN_EXCEPTIONS: dict[str, int] = {}


def _defined_in_plots() -> Iterator[tuple[str, Callable[..., Any]]]:
    """Every function and method whose code lives in a module of ranger_eval.plots (the
    ``__init__`` that ``dataclasses`` writes for a record is its fields, not a function's
    parameters)."""
    names = [plots.__name__] + [m.name for m in pkgutil.walk_packages(plots.__path__, plots.__name__ + ".")]
    for module_name in names:
        module = importlib.import_module(module_name)
        for obj in vars(module).values():
            if inspect.isfunction(obj) and obj.__module__ == module_name:
                yield f"{module_name}.{obj.__qualname__}", obj
            elif inspect.isclass(obj) and obj.__module__ == module_name:
                for attr, member in vars(obj).items():
                    fn = member.fget if isinstance(member, property) else member
                    if attr == "__init__" and dataclasses.is_dataclass(obj):
                        continue
                    if inspect.isfunction(fn):
                        yield f"{module_name}.{fn.__qualname__}", fn


def _parameter_count(fn: Callable[..., Any]) -> int:
    # inspect.signature follows __wrapped__: a function behind @renamed_keywords counts its own
    return len(inspect.signature(fn).parameters)


def test_no_plotting_function_takes_more_than_a_dozen_parameters() -> None:
    counts = dict(_defined_in_plots())
    assert "ranger_eval.plots.forest.plot.forest_plot" in counts  # the walk reaches the packages
    too_many = {name: _parameter_count(fn) for name, fn in counts.items()
                if _parameter_count(fn) > MAX_PARAMETERS and name not in KNOWN_EXCEPTIONS}
    assert not too_many, f"more than {MAX_PARAMETERS} parameters: {too_many}"
    stale = {name: n for name, n in KNOWN_EXCEPTIONS.items()
             if name not in counts or _parameter_count(counts[name]) <= MAX_PARAMETERS}
    assert not stale, f"no longer above the limit, remove from KNOWN_EXCEPTIONS: {stale}"


def test_public_plots_take_the_data_then_keywords_only() -> None:
    """One positional argument, the data; everything after it is keyword-only."""
    for name in ("forest_plot", "multi_forest_plot", "funnel_plot"):
        params = list(inspect.signature(getattr(plots, name)).parameters.values())
        assert params[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, name
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[1:]), name


def test_option_objects_are_public() -> None:
    import ranger_eval as rg

    for name in ("PlotStyle", "ForestColumns", "ForestStyle", "MultiForestColumns",
                 "MultiForestStyle", "FunnelStyle"):
        cls = getattr(plots, name)
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, name  # type: ignore[attr-defined]
        assert name in plots.__all__, name
        assert not hasattr(rg, name), name  # style objects live in rg.plots, not at the top level
    assert issubclass(plots.ForestStyle, plots.PlotStyle)
