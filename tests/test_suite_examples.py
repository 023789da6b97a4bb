"""The default run's share of Hypothesis examples (tests/conftest.py): a quarter, at least 10,
never more than asked; RANGER_TEST_DEEP=1 runs them all."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import DEEP, fast_examples


@settings(max_examples=40, deadline=None)
@given(st.just(0))
def test_probe_with_40_examples(x: int) -> None:
    assert x == 0


def test_fast_examples_rule() -> None:
    if DEEP:
        assert [fast_examples(n) for n in (5, 40, 100)] == [5, 40, 100]
    else:
        assert [fast_examples(n) for n in (5, 12, 40, 60, 100)] == [5, 10, 10, 15, 25]


def test_collected_property_tests_run_the_fast_share(request: pytest.FixtureRequest) -> None:
    if not any(i.name == "test_probe_with_40_examples" for i in request.session.items):
        pytest.skip("the probe test is not selected in this run")
    own = test_probe_with_40_examples._hypothesis_internal_use_settings  # type: ignore[attr-defined]
    assert own.max_examples == fast_examples(40)
    assert own.deadline is None  # its other settings are kept
