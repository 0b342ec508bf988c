"""kokoro_bench.studies.interrupt: its summary (the next turn's first audio after an interrupt against a fresh
turn's), and the answer whose pieces are long."""

from __future__ import annotations

import pytest

from kokoro_bench.studies.interrupt import LONG_SENTENCES, summarize
from speech_protocol.pieces.segmenter import Segmenter


def _round(kind: str, next_first_audio_s: float) -> dict:
    return {"next_turn": kind, "next_first_audio_s": next_first_audio_s, "to_last_audio_s": 0.0, "to_turn_end_s": 0.01}


def test_the_after_interrupt_turns_are_compared_with_the_fresh_turns_median() -> None:
    rounds = [_round("after_interrupt", s) for s in (0.6, 0.9)] + [_round("fresh", s) for s in (0.5, 0.6, 0.7)]
    figures = summarize(rounds, 0.5)
    assert figures["first_audio_after_interrupt_s"]["turns"] == 2 and figures["first_audio_fresh_turn_s"]["p50"] == 0.6
    assert figures["after_interrupt_over_fresh_p50"]["max"] == 1.5


def test_without_fresh_turns_there_is_no_ratio() -> None:
    figures = summarize([_round("after_interrupt", 0.8)], None)
    assert "first_audio_fresh_turn_s" not in figures and "after_interrupt_over_fresh_p50" not in figures


@pytest.mark.parametrize("rtf", [0.2, 0.5])
def test_the_long_sentences_answer_ends_in_pieces_of_nearly_300_characters(rtf: float) -> None:
    """What ``--long-sentences`` is for: after the first sentence's ramp, the agent sends each sentence whole."""
    segmenter = Segmenter()
    segmenter.adapt_to(rtf, 0.15)
    pieces = [piece for word in LONG_SENTENCES.split(" ") for piece in segmenter.feed(word + " ")]
    pieces += segmenter.flush()
    assert [len(piece) >= 290 for piece in pieces[-3:]] == [False, True, True], [len(piece) for piece in pieces]
