"""What a listener hears: play the audio in real time from its first byte, and find where it starves.

Everything here is arithmetic on arrival times, so it is exact and testable without a server. Times are
seconds since the request. "Audible" is the first 10 ms window whose peak is above ``AUDIBLE_DBFS``
(-40 dBFS, the level the server's silence trimming uses): the moment the *player* reaches that sample,
so the near-silence a piece opens with counts against it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kokoro_server.audio import SILENCE_DBFS, first_audible_sample
from speech_protocol.framing import SAMPLE_RATE, SAMPLE_WIDTH

from ..errors import BenchError

AUDIBLE_DBFS = SILENCE_DBFS
STALL_TOLERANCE_S = 0.02  # one 10 ms window either side: scheduling noise, not a starved player


@dataclass(frozen=True)
class AudioArrival:
    """One audio chunk as it reached the client: when, and its PCM16 bytes."""

    t_s: float
    pcm: bytes


@dataclass(frozen=True)
class Span:
    """An interval of the playback lane: audio playing, or the player starved (a stall)."""

    start_s: float
    duration_s: float


@dataclass(frozen=True)
class Playback:
    ttfa_s: float  # first audio byte
    audible_s: float | None  # first audible sample played; None if everything was silence
    last_audio_s: float  # last audio byte
    end_s: float  # last sample played
    stall_s: float  # total time the player waited for audio after it started
    audio_s: float
    playing: tuple[Span, ...]
    stalls: tuple[Span, ...]


def samples_of(pcm: bytes) -> np.ndarray:
    if len(pcm) % SAMPLE_WIDTH:
        raise BenchError(f"an audio chunk of {len(pcm)} bytes is not whole PCM16 samples")
    return np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0


def play(arrivals: list[AudioArrival], sample_rate: int = SAMPLE_RATE) -> Playback:
    """Replay ``arrivals`` (in arrival order) through a real-time player that starts at the first byte."""
    chunks = [a for a in arrivals if a.pcm]
    if not chunks:
        raise BenchError("no audio arrived")
    if any(later.t_s < earlier.t_s for earlier, later in zip(chunks, chunks[1:])):
        raise BenchError("audio arrivals are not in time order")
    clock = chunks[0].t_s  # where the player is
    playing: list[Span] = []
    stalls: list[Span] = []
    audible_s: float | None = None
    for chunk in chunks:
        if chunk.t_s > clock:
            stalls.append(Span(clock, chunk.t_s - clock))
            clock = chunk.t_s
        samples = samples_of(chunk.pcm)
        if audible_s is None:
            index = first_audible_sample(samples)
            if index is not None:
                audible_s = clock + index / sample_rate
        duration = len(samples) / sample_rate
        playing.append(Span(clock, duration))
        clock += duration
    return Playback(
        ttfa_s=chunks[0].t_s,
        audible_s=audible_s,
        last_audio_s=chunks[-1].t_s,
        end_s=clock,
        stall_s=sum(s.duration_s for s in stalls),
        audio_s=sum(s.duration_s for s in playing),
        playing=tuple(playing),
        stalls=tuple(stalls),
    )
