"""The computed policy sweep: the agent's real segmenter on the scripted LLM timeline, timed by the model."""

from __future__ import annotations

from kokoro_bench.measuring.lower_bound import lower_bound, natural_cuts, word_ready_times
from kokoro_bench.measuring.policy_sweep import (
    cpu_piece_overhead_s,
    first_audio_and_stall,
    llm_timeline,
    pieces_of,
    sweep,
)
from kokoro_bench.texts import TEXTS
from speech_protocol.pace import SpeechModel
from speech_protocol.pieces.cuts import weak_cut_before
from speech_protocol.pieces.first_piece import SegmentPolicy


def test_the_timeline_is_the_scripted_llms_and_the_pieces_the_segmenters() -> None:
    deltas = llm_timeline("Yes, of course. The museum is open.", tokens_per_s=10)
    assert deltas[0] == (0.1, "Yes, ") and deltas[-1][1] == "open."
    assert [words for _t, words in pieces_of(deltas, SegmentPolicy(first_piece_min_words=2))] == [3, 4]


def test_stall_is_the_listeners_wait_after_the_first_audio() -> None:
    model = SpeechModel(rtf=1.0, words_per_s=1.0, overhead_s=0.0)
    # 1 word ready at 0, synthesized by 1 s, plays 1 s; the 3-word piece is done at 4 s: a 2-s wait.
    assert first_audio_and_stall([(0.0, 1), (0.0, 3)], model) == (1.0, 2.0)
    assert first_audio_and_stall([(0.0, 3), (0.0, 1)], model) == (3.0, 0.0)


def _bound_over_the_segmenters_cuts(text: str, rtf: float) -> float:
    """The lower bound over every cut the segmenter may make: natural ones and, with weak cuts, weak ones."""
    words, ready = word_ready_times(llm_timeline(TEXTS[text]))
    cuts = natural_cuts(words) | {k for k in range(1, len(words)) if weak_cut_before(words[k - 1], words[k])}
    return lower_bound(words, ready, SpeechModel(rtf, overhead_s=cpu_piece_overhead_s(rtf)), cuts).first_audio_s


def test_the_policy_never_stalls_more_than_the_threshold_it_replaced_and_never_beats_a_bound() -> None:
    for row in sweep():
        assert row["policy_stall_s"] <= row["threshold_stall_s"] + 1e-9, row
        assert row["natural_only_first_s"] >= row["bound_natural_s"] - 1e-3 or row["natural_only_stall_s"] > 0, row
        if row["policy_stall_s"] == 0:
            segmenters = _bound_over_the_segmenters_cuts(row["text"], row["rtf"])
            assert row["policy_first_s"] >= segmenters - 1e-3 >= row["bound_any_s"] - 2e-3, row


def test_weak_cuts_add_no_stall_and_bring_first_audio_no_later_up_to_rtf_0_6() -> None:
    """Against the same policy with natural cuts only (docs/decisions/165-weak-cuts.md). Past rtf 0.6 a first
    piece may wait a little to learn whether a weak cut's next piece would be ready: 0.10 s at rtf 0.7."""
    for row in sweep():
        assert row["policy_stall_s"] <= row["natural_only_stall_s"] + 1e-9, row
        if row["rtf"] <= 0.6:
            assert row["policy_first_s"] <= row["natural_only_first_s"] + 1e-9, row
