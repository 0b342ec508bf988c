"""The adaptive first piece: long enough that its audio outlasts the next piece's synthesis, no longer."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voice_agent.segmenter import (
    ADAPTIVE_FIRST_WORDS,
    NEXT_PIECE_WORDS,
    PIECE_OVERHEAD_S,
    SPEECH_WORDS_PER_S,
    Segmenter,
    SegmentPolicy,
    SegmentPolicyError,
    adaptive_policy,
    first_piece_words,
)

ANSWER = "Well, as far as I can tell from the records, the museum opens at nine on weekdays. It closes at six."


def first_piece(policy: SegmentPolicy) -> str:
    segmenter = Segmenter(policy)
    pieces = [p for word in ANSWER.split(" ") for p in segmenter.feed(word + " ")] + segmenter.flush()
    return pieces[0]


@given(st.floats(min_value=0.001, max_value=100.0))
def test_the_first_piece_outlasts_the_next_pieces_synthesis(rtf: float) -> None:
    words = first_piece_words(rtf)
    low, high = ADAPTIVE_FIRST_WORDS
    assert low <= words <= high
    if low < words < high:  # not clamped: the inequality holds, and one word fewer breaks it
        next_ready_s = rtf * NEXT_PIECE_WORDS / SPEECH_WORDS_PER_S + PIECE_OVERHEAD_S
        assert words / SPEECH_WORDS_PER_S >= next_ready_s - 1e-9
        assert (words - 1) / SPEECH_WORDS_PER_S < next_ready_s


def test_a_slower_server_needs_a_longer_first_piece() -> None:
    sizes = [first_piece_words(rtf) for rtf in (0.03, 0.2, 0.36, 0.6, 1.0, 5.0)]
    assert sizes == sorted(sizes)
    assert sizes[0] == ADAPTIVE_FIRST_WORDS[0] and sizes[-1] == ADAPTIVE_FIRST_WORDS[1]


def test_the_policy_changes_only_the_first_piece_length_and_cuts_there() -> None:
    base = SegmentPolicy(max_chars=200)
    fast, slow = adaptive_policy(0.05, base), adaptive_policy(0.9, base)
    assert fast.max_chars == slow.max_chars == 200 and fast.first_piece_clause
    assert fast.first_piece_min_words < slow.first_piece_min_words
    assert first_piece(fast) == "Well, as far as I can tell from the records,"  # first clause with >= 2 words
    assert first_piece(slow) == "Well, as far as I can tell from the records, the museum opens at nine on weekdays."


def test_a_server_without_an_rtf_keeps_the_base_policy() -> None:
    base = SegmentPolicy(first_piece_min_words=7)
    assert adaptive_policy(None, base) is base


@pytest.mark.parametrize("rtf", [0, -0.5, math.nan, math.inf, -math.inf, True, "0.3", [0.3]])
def test_a_malformed_rtf_is_refused_with_a_typed_error(rtf) -> None:
    with pytest.raises(SegmentPolicyError, match="rtf"):
        adaptive_policy(rtf)
