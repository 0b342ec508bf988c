"""The one speech-pace model: its bounds, the server's warm-up measurement, the benchmark's fit, the meter."""

from __future__ import annotations

import math
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from speech_protocol.pace import (
    MAX_PIECE_OVERHEAD_S,
    PaceError,
    PaceMeter,
    SpeechModel,
    Timing,
    usable_overhead,
    usable_rtf,
    word_count,
)


@pytest.mark.parametrize(
    ("short", "sentence", "expected"),
    [
        # a 1 s piece in 0.9 s beside a 4 s sentence in 1.6 s: rtf 0.4, and 0.5 s the short piece cost beyond it
        (Timing(0.9, 1.0), Timing(1.6, 4.0), SpeechModel(rtf=0.4, overhead_s=0.5)),
        # a short piece cheaper than its share never gives a negative cost
        (Timing(0.2, 1.0), Timing(1.6, 4.0), SpeechModel(rtf=0.4, overhead_s=0.0)),
        # a GPU faster than the advertised resolution still advertises a usable rtf
        (Timing(0.01, 1.0), Timing(0.001, 4.0), SpeechModel(rtf=0.001, overhead_s=0.01)),
        # a warm-up stalled past the bound advertises the bound, not a figure every client would drop
        (Timing(30.0, 1.0), Timing(1.6, 4.0), SpeechModel(rtf=0.4, overhead_s=MAX_PIECE_OVERHEAD_S)),
    ],
)
def test_the_warm_up_pace_is_the_sentences_rtf_and_what_a_short_piece_cost_beyond_it(short, sentence, expected):
    assert SpeechModel.measured(short, sentence) == expected


def test_the_fit_finds_the_rtf_and_the_cost_per_piece() -> None:
    model = SpeechModel.fitted([Timing(0.05 + 0.4 * a, a) for a in (1.0, 2.0, 4.0)], words_per_s=3.6)
    assert model.rtf == pytest.approx(0.4) and model.overhead_s == pytest.approx(0.05)
    assert model.words_per_s == 3.6


def test_one_piece_slowed_by_the_machine_does_not_move_the_fit() -> None:
    """As in a benchmark run: eleven pieces on one line, and the first, longest one 65 % slower."""
    audio = [6.0, 2.5, 4.2, 4.0, 3.3, 4.0, 1.1, 1.4, 1.6, 1.7, 1.5, 1.3]
    timings = [Timing(0.1 + 0.2 * a, a) for a in audio]
    timings[0] = Timing(1.65 * timings[0].synth_s, audio[0])
    model = SpeechModel.fitted(timings, words_per_s=3.6)
    assert model.rtf == pytest.approx(0.2) and model.overhead_s == pytest.approx(0.1)


def test_noisy_pieces_fall_back_to_a_pure_ratio() -> None:
    # longer pieces cheaper than short ones: a negative slope is no speed; the ratio of the means is
    model = SpeechModel.fitted([Timing(1.0, 1.0), Timing(0.5, 3.0)], words_per_s=3.0)
    assert model.rtf == pytest.approx(1.5 / 4.0) and model.overhead_s == 0.0


@pytest.mark.parametrize("timings", [[], [Timing(0.4, 1.0)], [Timing(0.4, 1.0), Timing(0.1, 0.0)]])
def test_too_few_pieces_to_fit_is_a_typed_error(timings) -> None:
    with pytest.raises(PaceError, match="too few timed pieces"):
        SpeechModel.fitted(timings, words_per_s=3.6)


@pytest.mark.parametrize("rtf", [0, -1.0, math.nan, math.inf, True, "fast", None])
def test_an_rtf_out_of_bounds_is_refused(rtf) -> None:
    assert usable_rtf(rtf) is None
    with pytest.raises(PaceError, match="rtf must be a positive number"):
        SpeechModel(rtf)


@pytest.mark.parametrize("overhead", [-0.01, math.nan, math.inf, 10.5, True, "0.2", [0.2]])
def test_an_overhead_out_of_bounds_is_refused(overhead) -> None:
    assert usable_overhead(overhead) is None
    with pytest.raises(PaceError, match="piece_overhead_s must be a number from 0 to 10"):
        SpeechModel(0.4, overhead_s=overhead)


@given(st.floats(0.01, 5.0), st.floats(0, MAX_PIECE_OVERHEAD_S), st.integers(1, 40), st.integers(1, 40))
def test_a_cut_stalls_exactly_when_its_audio_ends_before_the_next_piece_is_ready(
    rtf: float, overhead: float, words: int, following: int
) -> None:
    model = SpeechModel(rtf, words_per_s=3.0, overhead_s=overhead)
    assert model.synth_s(following) == pytest.approx(overhead + rtf * following / 3.0)
    assert model.cut_stalls(words, following) == (words / 3.0 < model.synth_s(following))
    assert not model.cut_stalls(words, following, lead_s=model.synth_s(following))


def test_a_word_starts_with_a_letter_or_digit_and_ends_at_a_space_or_dash() -> None:
    assert word_count("- The cathedral, which opens at 8.") == 6  # the list marker is not spoken
    assert word_count("well—yes – no - maybe **") == 4
    assert word_count("") == word_count(" \n ") == 0


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("好的，我们走吧。", 3),  # 好的， / 我们 / 走吧。: two characters and the marks after them
        ("今日は晴れです。", 4),  # kana and kanji alike
        ("我用iPhone打电话", 4),  # a Latin word among them is one word
        ("3个苹果", 3),
        ("好的，" * 40, 40),  # counted in characters, not as one word up to the next space
    ],
)
def test_in_scripts_without_spaces_a_word_is_two_characters(text: str, words: int) -> None:
    assert word_count(text) == words


def test_the_meter_is_the_ratio_over_its_window_and_the_baseline_before_any() -> None:
    meter = PaceMeter(window=2)
    assert meter.rtf is None
    meter.baseline = SpeechModel(0.5)
    assert meter.rtf == 0.5
    meter.observe(Timing(2.0, 0.0))  # nothing heard: counted, not averaged
    assert meter.rtf == 0.5 and meter.observed == 1
    for timing in (Timing(9.0, 1.0), Timing(1.0, 2.0), Timing(3.0, 2.0)):
        meter.observe(timing)
    assert meter.rtf == pytest.approx(4.0 / 4.0) and meter.observed == 4


def test_the_running_model_is_the_baseline_scaled_by_what_the_window_took() -> None:
    meter = PaceMeter(window=3)
    assert meter.model() is None  # no warm-up yet: nothing to advertise
    base = SpeechModel(0.5, overhead_s=0.2)
    meter.baseline = base
    assert meter.model() == base
    # twice as slow as the baseline predicts, on a short and a long piece alike: both figures double
    for audio_s in (0.5, 4.0):
        meter.observe(Timing(2 * base.synth_s(base.words_per_s * audio_s), audio_s))
    assert meter.model() == SpeechModel(1.0, overhead_s=0.4)
    # the mix does not bias it: three short pieces that run as predicted read as the baseline again
    for _ in range(3):
        meter.observe(Timing(base.overhead_s + base.rtf * 0.5, 0.5))
    assert meter.model() == base


def test_the_running_model_stays_within_the_bounds_clients_accept() -> None:
    meter = PaceMeter(window=1)
    meter.baseline = SpeechModel(0.5, overhead_s=2.0)
    meter.observe(Timing(1000.0, 1.0))  # a render held up for minutes
    held = meter.model()
    assert held is not None and held.overhead_s == MAX_PIECE_OVERHEAD_S
    meter.observe(Timing(0.0, 1.0))  # a clock that did not move
    assert meter.model() == SpeechModel(0.001, overhead_s=0.0)


def test_the_meter_counts_every_observation_from_many_threads() -> None:
    meter = PaceMeter()

    def observe() -> None:
        for _ in range(1000):
            meter.observe(Timing(0.4, 1.0))

    threads = [threading.Thread(target=observe) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert meter.observed == 4000 and meter.rtf == pytest.approx(0.4)
