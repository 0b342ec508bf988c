"""The suite's Hypothesis profile (tests/conftest.py): a property test draws the same examples on every run,
so its verdict says something about the code, not about the run's random seed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st


def examples_drawn() -> list[tuple[int, str]]:
    """What one run of a property test is given, in order."""
    drawn: list[tuple[int, str]] = []

    @given(st.integers(), st.text())
    def property_test(number: int, text: str) -> None:
        drawn.append((number, text))

    property_test()
    return drawn


def test_every_run_of_a_property_test_draws_the_same_examples():
    first = examples_drawn()
    assert len(first) > 10 and examples_drawn() == first


def test_no_run_replays_what_an_earlier_one_saved():
    assert settings.default.database is None
