"""The guard in front of misaki: long tokens become short ones, and no character is ever lost."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from kokoro_server.text.phonemes import LONG_DIGITS, LONG_SYMBOLS, LONG_TOKEN_CHARS, LONG_WORD_CHARS, bound_tokens

hostile_text = st.text(alphabet=st.sampled_from("aBZ7/-_&.#:?= \u00e9\u00b2\u0301\u65e5"), max_size=600)


@given(hostile_text)
def test_only_spaces_are_added(text):
    assert bound_tokens(text).replace(" ", "") == text.replace(" ", "")


@given(hostile_text)
def test_every_token_and_digit_run_is_short(text):
    out = bound_tokens(text)
    assert all(len(token) <= max(LONG_TOKEN_CHARS, LONG_WORD_CHARS + LONG_SYMBOLS) for token in out.split())
    assert all(len(run) <= LONG_DIGITS for run in re.findall(r"\d+", out))


def test_ordinary_text_is_untouched():
    text = "Antidisestablishmentarianism costs $3.50 at https://example.com/a/b on 2024-05-01, call 555-1234."
    assert bound_tokens(text) == text


def test_a_url_is_broken_after_its_separators():
    assert bound_tokens("https://example.com/" + "a/" * 4) == "https:// example. com/ a/ a/ a/ a/"
