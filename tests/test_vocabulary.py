"""One vocabulary (issue 19): renamed keywords are errors that name their replacement."""
from __future__ import annotations

import inspect

import pytest

from ranger_eval.errors import RangerError, RenamedKeywordError, reject_renamed, renamed_keywords


def test_renamed_keyword_error_names_the_replacement() -> None:
    @renamed_keywords(alpha="level", method="correction")
    def f(p: float, *, level: float = 0.95, correction: str = "holm") -> tuple[float, str]:
        """A documented function."""
        return level, correction

    assert f(0.5, level=0.9, correction="bonferroni") == (0.9, "bonferroni")
    assert str(inspect.signature(f)) == str(inspect.signature(f.__wrapped__))  # type: ignore[attr-defined]
    assert f.__doc__ == "A documented function."
    with pytest.raises(RenamedKeywordError, match=r"f\(\) has no keyword 'alpha': it is called "
                       r"'level' now .*alpha=0\.05 is level=0\.95"):
        f(0.5, alpha=0.05)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="'method': it is called 'correction'"):
        f(0.5, method="holm")  # type: ignore[call-arg]
    with pytest.raises(RangerError):
        reject_renamed({"alpha": "x"}, {"alpha": "level"}, where="rank_test")
    reject_renamed({"level": 0.9}, {"alpha": "level"}, where="rank_test")  # nothing renamed: no error


def test_renamed_direction_flips_the_value() -> None:
    with pytest.raises(RenamedKeywordError, match="lower_is_better=True is higher_is_better=False"):
        reject_renamed({"lower_is_better": True}, {"lower_is_better": "higher_is_better"},
                       where="forest_plot")
