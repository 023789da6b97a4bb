"""Properties of the effect axis shared by the forest plots (ranger_eval.plots._axis): the range
holds what must be shown, ticks stay inside it, the scale note and the direction flag."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranger_eval.errors import PlotError
from ranger_eval.plots._axis import (
    auto_xlim,
    axis_ticks,
    check_xlim,
    effect_axis,
    favours_label,
    scale_exponent,
)

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(core=st.lists(finite, min_size=1, max_size=8), wide=st.lists(finite, max_size=8))
def test_auto_range_holds_the_core_values(core: list[float], wide: list[float]) -> None:
    """Point estimates, the summary and 0 are always inside; study CIs may be clipped."""
    c = np.array(core + [0.0])
    lo, hi = auto_xlim(c, np.array(wide))
    assert lo < hi
    assert lo <= c.min() and hi >= c.max()


@settings(max_examples=60, deadline=None)
@given(lo=finite, span=st.floats(min_value=1e-3, max_value=1e6), width=st.floats(1.2, 8.0),
       fixed=st.booleans())
def test_ticks_inside_a_range_that_holds_the_given_one(lo: float, span: float, width: float,
                                                       fixed: bool) -> None:
    hi = lo + span
    ticks, new_lo, new_hi = axis_ticks(lo, hi, width, fixed=fixed)
    if fixed:
        assert (new_lo, new_hi) == (lo, hi)
    eps = 1e-9 * (new_hi - new_lo)  # a snapped end is a tick, computed to within rounding
    assert new_lo <= lo + eps and new_hi >= hi - eps
    assert np.all((ticks >= new_lo - eps) & (ticks <= new_hi + eps))
    assert ticks.size >= 1 and np.all(np.diff(ticks) > 0)


@settings(max_examples=60, deadline=None)
@given(magnitude=st.floats(min_value=1e-300, max_value=1e300))
def test_scale_exponent_only_outside_the_readable_range(magnitude: float) -> None:
    exponent, note = scale_exponent(magnitude)
    e = math.floor(math.log10(magnitude))
    assert exponent == (0 if -3 <= e <= 4 else e)
    assert (note == "") == (exponent == 0)
    if exponent:
        assert note.startswith(" (×10") and note.endswith(")")


def test_scale_note_and_direction_in_the_label() -> None:
    assert scale_exponent(2.5e-6) == (-6, " (×10⁻⁶)")
    assert scale_exponent(0.0) == (0, "")
    assert favours_label("SMD", "BERT", "DistilBERT") == "Favours BERT ← SMD → Favours DistilBERT"
    assert favours_label("SMD", "BERT", "DistilBERT", higher_is_better=False) == (
        "Favours DistilBERT ← SMD → Favours BERT")
    assert favours_label("SMD", None, "DistilBERT") == "SMD"
    axis = effect_axis(np.array([1e-6, 3e-6, 0.0]), np.array([-1e-6, 5e-6]), None, None, "MD",
                       ("a", "b"), higher_is_better=False)
    assert axis.label == "Favours b ← MD (×10⁻⁶) → Favours a" and not axis.fixed
    given_axis = effect_axis(np.array([0.1]), np.array([0.2]), (-1.0, 1.0), "Effect", "MD",
                             ("a", "b"))
    assert (given_axis.lo, given_axis.hi, given_axis.label, given_axis.fixed) == (
        -1.0, 1.0, "Effect", True)
    with pytest.raises(PlotError, match="xlim must be two finite numbers"):
        check_xlim((1.0, float("nan")))
