"""The context Reader: what counts as a value, and hostile input that must fail with the key's name."""

from __future__ import annotations

import pytest

from kokoro_stacks.settings.context_values import Reader, SettingsError

DEFAULTS = {"name": "fallback", "count": "2", "absent": None}


def test_missing_none_and_blank_values_read_as_the_default():
    for context in ({}, {"name": None}, {"name": ""}, {"name": "   "}):
        assert Reader(context, DEFAULTS).raw("name") == "fallback"
    assert Reader({}, DEFAULTS).raw("absent") is None


@pytest.mark.parametrize("value", [True, 1.5, ["a"], {"a": 1}, b"bytes"])
def test_values_that_are_not_strings_or_integers_are_refused(value: object):
    with pytest.raises(SettingsError, match="context key 'name': expected a string or an integer"):
        Reader({"name": value}, DEFAULTS).raw("name")


@pytest.mark.parametrize("value", ["a" * 257, "line\nbreak", "nul\x00byte", "esc\x1b[31m"])
def test_oversized_and_unprintable_values_are_refused_and_echoed_short(value: str):
    with pytest.raises(SettingsError, match="printable characters") as caught:
        Reader({"name": value}, DEFAULTS).raw("name")
    assert len(str(caught.value)) < 250  # the message quotes at most 80 characters of the value


def test_integer_bounds():
    reader = Reader({"count": "7"}, DEFAULTS)
    assert reader.integer("count", low=1) == 7
    with pytest.raises(SettingsError, match="between 1 and 5"):
        reader.integer("count", low=1, high=5)
    assert Reader({}, DEFAULTS).integer("count", low=1) == 2


def test_choice_returns_the_declared_literal():
    assert Reader({"name": "b"}, DEFAULTS).choice("name", ("a", "b")) == "b"
    with pytest.raises(SettingsError, match="expected one of a, b, got 'c'"):
        Reader({"name": "c"}, DEFAULTS).choice("name", ("a", "b"))
