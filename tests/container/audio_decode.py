"""Decode what the OpenAI routes send with FFmpeg's decoders (through PyAV), not with the server's code:
any format in, PCM16 mono at 24 kHz out, ready for :func:`speech.transcribe`."""

from __future__ import annotations

import io

import av
import numpy as np

RATE = 24_000


def decode(data: bytes, fmt: str) -> bytes:
    """PCM16 mono 24 kHz from ``data`` in OpenAI's ``response_format`` ``fmt`` (``pcm`` is that already)."""
    if fmt == "pcm":
        return data
    resampler = av.AudioResampler(format="s16", layout="mono", rate=RATE)
    out: list[np.ndarray] = []
    with av.open(io.BytesIO(data)) as container:
        for frame in container.decode(audio=0):
            out += [f.to_ndarray().reshape(-1) for f in resampler.resample(frame)]
    out += [f.to_ndarray().reshape(-1) for f in resampler.resample(None)]
    return np.concatenate(out).astype("<i2").tobytes() if out else b""


def container_name(data: bytes) -> str:
    """The container FFmpeg finds when it probes ``data`` (``mp3``, ``ogg``, ``aac``, ``flac``, ``wav``)."""
    with av.open(io.BytesIO(data)) as container:
        return container.format.name
