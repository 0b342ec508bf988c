"""Audio shaping and encoding: float32 model output to PCM16, silence trimming, streamed WAV.

Why trim: every chunk Kokoro renders opens with about 0.3 s of near-silence and ends with some (005-latency-and-first-piece.md).
Sent as is, speech starts 0.3 s after the first audio byte and every sentence seam becomes a gap. We cut
each chunk's audio down to a natural pause and fade the cut edges over a few milliseconds so no click is heard.
"""

from __future__ import annotations

import struct

import numpy as np

from speech_protocol.framing import SAMPLE_RATE

SILENCE_DBFS = -40.0  # "audible": the first 10 ms window whose peak is above this level
WINDOW = SAMPLE_RATE // 100  # 10 ms analysis windows
LEAD_PAUSE_S = 0.02  # kept before the first audible window of a chunk
TRAIL_PAUSE_S = 0.12  # kept after the last audible window: a sentence pause, not a gap
FADE_S = 0.005


def _audible_windows(audio: np.ndarray, threshold_dbfs: float) -> np.ndarray:
    usable = len(audio) // WINDOW * WINDOW
    if usable == 0:
        return np.zeros(0, dtype=bool)
    peaks = np.abs(audio[:usable]).reshape(-1, WINDOW).max(axis=1)
    return peaks > 10 ** (threshold_dbfs / 20)


def first_audible_sample(audio: np.ndarray, threshold_dbfs: float = SILENCE_DBFS) -> int | None:
    """Index of the first 10 ms window above ``threshold_dbfs``, or None if it is all silence."""
    loud = np.flatnonzero(_audible_windows(audio, threshold_dbfs))
    return int(loud[0]) * WINDOW if loud.size else None


def speech_bounds(
    audio: np.ndarray,
    *,
    lead_s: float = LEAD_PAUSE_S,
    trail_s: float = TRAIL_PAUSE_S,
    threshold_dbfs: float = SILENCE_DBFS,
) -> tuple[int, int]:
    """``(start, stop)``: the samples that trimming keeps, leading/trailing near-silence cut to a short
    pause. Anything timed against the untrimmed audio moves ``start`` samples earlier (word timing).

    All-silent input keeps everything: trimming it to nothing would hide a model failure.
    """
    loud = np.flatnonzero(_audible_windows(audio, threshold_dbfs))
    if loud.size == 0:
        return 0, len(audio)
    start = max(0, int(loud[0]) * WINDOW - int(lead_s * SAMPLE_RATE))
    stop = min(len(audio), (int(loud[-1]) + 1) * WINDOW + int(trail_s * SAMPLE_RATE))
    return start, stop


def cut(audio: np.ndarray, start: int, stop: int) -> np.ndarray:
    """``audio[start:stop]`` with the cut edges faded over a few milliseconds (no clicks)."""
    if (start, stop) == (0, len(audio)):
        return audio
    out = np.array(audio[start:stop], dtype=np.float32)
    fade = min(int(FADE_S * SAMPLE_RATE), len(out) // 2)
    if fade:
        ramp = np.linspace(0.0, 1.0, fade, dtype=np.float32)
        if start > 0:
            out[:fade] *= ramp
        if stop < len(audio):
            out[-fade:] *= ramp[::-1]
    return out


def trim_silence(audio: np.ndarray, **bounds) -> np.ndarray:
    """Cut leading/trailing near-silence to a short pause (:func:`speech_bounds`), fading the cuts."""
    return cut(audio, *speech_bounds(audio, **bounds))


def to_pcm16(audio: np.ndarray) -> bytes:
    """float32 in [-1, 1] to little-endian PCM16 bytes (clipped, not wrapped)."""
    return (np.clip(audio, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()


def streaming_wav_header(sample_rate: int = SAMPLE_RATE) -> bytes:
    """A WAV header for audio whose length is not known yet.

    The RIFF and data sizes are 0xFFFFFFFF, which players and Python's ``wave`` read as "until the end";
    ``wave`` rejects 0 (011-streamed-wav-header.md). ``wave``/soundfile cannot write a header before the data exists,
    hence these 44 bytes by hand.
    """
    unknown = 0xFFFFFFFF
    byte_rate = sample_rate * 2
    return (
        b"RIFF"
        + struct.pack("<I", unknown)
        + b"WAVE"
        + b"fmt "
        + struct.pack("<IHHIIHH", 16, 1, 1, sample_rate, byte_rate, 2, 16)
        + b"data"
        + struct.pack("<I", unknown)
    )
