"""One p-value formatter everywhere: ``formatting.format_pvalue`` writes every
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


def test_a_zero_pvalue_reads_the_same_in_the_forest_footer_summary_and_terminal() -> None:
    """p = 0 (an underflow) was 'p = 0' in the forest footer and summary.md,
    '< .0001' in the terminal summary and '< 10⁻³⁰⁰' in the CD diagram."""
    import matplotlib

    matplotlib.use("Agg")
    import ranger_eval as rg
    from ranger_eval.report import to_markdown

    res = rg.meta_analysis([5.0, 5.1, 5.2], [1e-6, 1e-6, 1e-6], names=["a", "b", "c"])
    assert res.pvalue == 0.0
    fig = rg.forest_plot(res)
    texts = [t.get_text() for t in fig.findobj(matplotlib.text.Text)]
    assert any("p < 10⁻³⁰⁰" in t for t in texts)
    assert not any("p = 0" in t for t in texts if "p = 0." not in t)
    summary = to_markdown(res)
    assert "p < 1e-300" in summary and "p = 0;" not in summary
    terminal = res.summary()
    assert "< 1e-300" in terminal and ".0001" not in terminal
