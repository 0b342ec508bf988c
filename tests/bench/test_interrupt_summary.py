"""kokoro_bench.studies.interrupt's summary: the next turn's first audio after an interrupt against a fresh turn's."""

from __future__ import annotations

from kokoro_bench.studies.interrupt import summarize


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
