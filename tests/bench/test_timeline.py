"""The listener's playback, computed from arrival times: exact figures for hand-made arrivals."""

from __future__ import annotations

import numpy as np
import pytest

from kokoro_bench.errors import BenchError
from kokoro_bench.measuring.timeline import AudioArrival, Span, play

RATE = 24_000


def pcm(silent_s: float, loud_s: float = 0.0) -> bytes:
    """``silent_s`` of digital silence, then ``loud_s`` of a half-scale tone, as PCM16."""
    t = np.arange(int(loud_s * RATE)) / RATE
    tone = (0.5 * np.sin(2 * np.pi * 220 * t) * 32767).astype("<i2")
    return np.zeros(int(silent_s * RATE), dtype="<i2").tobytes() + tone.tobytes()


def test_audio_that_keeps_ahead_of_the_player_never_stalls() -> None:
    playback = play([AudioArrival(1.0, pcm(0.0, 2.0)), AudioArrival(2.5, pcm(0.0, 1.0))])
    assert playback.ttfa_s == 1.0 and playback.last_audio_s == 2.5
    assert playback.stall_s == 0 and playback.stalls == ()
    assert playback.end_s == pytest.approx(4.0) and playback.audio_s == pytest.approx(3.0)


def test_every_starved_moment_is_added_up_and_marked() -> None:
    playback = play(
        [
            AudioArrival(1.0, pcm(0.0, 0.5)),  # plays 1.0-1.5
            AudioArrival(2.0, pcm(0.0, 0.5)),  # starved 1.5-2.0, plays 2.0-2.5
            AudioArrival(2.2, pcm(0.0, 0.5)),  # arrived early, plays 2.5-3.0
            AudioArrival(3.25, pcm(0.0, 0.5)),  # starved 3.0-3.25
        ]
    )
    assert playback.stall_s == pytest.approx(0.75)
    assert [(round(s.start_s, 6), round(s.duration_s, 6)) for s in playback.stalls] == [(1.5, 0.5), (3.0, 0.25)]
    assert playback.end_s == pytest.approx(3.75)
    assert playback.playing[2] == Span(pytest.approx(2.5), pytest.approx(0.5))


def test_audible_is_when_the_player_reaches_the_first_loud_sample() -> None:
    # 0.3 s of silence opens the first chunk (as an untrimmed Kokoro piece does); an all-silent chunk first.
    playback = play([AudioArrival(0.5, pcm(0.2)), AudioArrival(0.6, pcm(0.3, 1.0))])
    assert playback.ttfa_s == 0.5
    assert playback.audible_s == pytest.approx(0.5 + 0.2 + 0.3, abs=0.011)  # 10 ms analysis windows


def test_silence_only_has_no_audible_moment() -> None:
    assert play([AudioArrival(0.1, pcm(1.0))]).audible_s is None


@pytest.mark.parametrize(
    "arrivals, message",
    [
        ([], "no audio"),
        ([AudioArrival(0.1, b"")], "no audio"),
        ([AudioArrival(0.1, b"\x00\x01\x02")], "whole PCM16"),
        ([AudioArrival(2.0, pcm(0.1)), AudioArrival(1.0, pcm(0.1))], "time order"),
    ],
)
def test_unusable_arrivals_are_refused_with_a_typed_error(arrivals, message) -> None:
    with pytest.raises(BenchError, match=message):
        play(arrivals)
