"""One p-value formatter everywhere (issue 19 point 8): ``formatting.format_pvalue`` writes every
p-value, with one rule for values below the smallest printable number (``< 1e-300``, never ``0``)."""
from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ranger_eval.formatting import P_FLOOR, format_pvalue


@pytest.mark.parametrize(("p", "style", "prefix", "expected"), [
    (0.0, "text", "", "< 1e-300"),
    (0.0, "text", "p = ", "p < 1e-300"),
    (0.0, "unicode", "p = ", "p < 10⁻³⁰⁰"),
    (5e-324, "text", "", "< 1e-300"),
    (1e-300, "text", "", "1e-300"),
    (0.0, "latex", "", "< $10^{-300}$"),
    (0.0, "html", "", "< 10<sup>-300</sup>"),
    (math.nan, "text", "p = ", "p = NA"),
    (0.034, "text", "p = ", "p = 0.034"),
    (5.933e-06, "unicode", "", "5.933×10⁻⁶"),
])
def test_one_rule_below_the_floor(p: float, style: str, prefix: str, expected: str) -> None:
    assert format_pvalue(p, 4, style, prefix=prefix) == expected


@given(st.floats(min_value=0.0, max_value=1.0))
def test_never_prints_zero(p: float) -> None:
    text = format_pvalue(p, 2)
    assert text.startswith("< ") == (p < P_FLOOR)
    if p < P_FLOOR:
        assert text == "< 1e-300"
    else:
        assert float(text) == pytest.approx(p, rel=0.05)
