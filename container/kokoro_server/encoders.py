"""Streaming audio encoders for the OpenAI speech formats: float32 audio in, a chunk at a time, container bytes out at once.

Compressed formats go through PyAV (FFmpeg's libmp3lame, libopus, native AAC and FLAC; the wheel bundles
them) into a sink that cannot seek, so every muxer writes its container front to back and nothing is held
for a header to be rewritten at the end: MP3 frames, Ogg pages (one at most every 100 ms of audio), ADTS
frames and FLAC frames leave as each chunk's audio is encoded (docs/decisions/105-openai-speech-encoding.md).
``wav`` and ``pcm`` are the model server's own streamed WAV and raw PCM16, no codec involved.

An encoder is used by one request, one call at a time; calls may run on a worker thread. ``close`` takes
the same lock as ``encode``, so a request cancelled while a chunk's audio is being encoded on a thread frees the
codec only once that call has returned.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Protocol

import av
import numpy as np

from kokoro_server.audio import streaming_wav_header, to_pcm16
from speech_protocol.framing import SAMPLE_RATE

FORMATS = ("mp3", "opus", "aac", "flac", "wav", "pcm")
MEDIA_TYPES = {
    "mp3": "audio/mpeg",
    "opus": "audio/ogg",  # Ogg Opus, as OpenAI's opus
    "aac": "audio/aac",  # ADTS
    "flac": "audio/flac",
    "wav": "audio/wav",
    "pcm": f"audio/pcm;rate={SAMPLE_RATE};encoding=signed-int;bits=16",
}
# (container, codec, bit rate or None, muxer options). Bit rates for 24 kHz mono speech: decision 105.
_CODECS: dict[str, tuple[str, str, int | None, dict[str, str]]] = {
    "mp3": ("mp3", "libmp3lame", 64_000, {}),
    "opus": ("ogg", "libopus", 32_000, {"page_duration": "100000"}),  # µs; the default 1 s holds the start back
    "aac": ("adts", "aac", 64_000, {}),
    "flac": ("flac", "flac", None, {}),
}


class Encoder(Protocol):
    def encode(self, audio: np.ndarray) -> bytes:
        """The bytes ready after one more block of float32 mono audio at 24 kHz (may be empty)."""
        ...

    def finish(self) -> bytes:
        """The rest of the stream: what the codec still held, and the container's end."""
        ...

    def close(self) -> None:
        """Free the codec (idempotent; after ``finish`` or instead of it, when the client left)."""
        ...


class _Sink:
    """A write-only file for PyAV: no ``seek``, so muxers never go back over bytes already sent."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def write(self, data: bytes) -> int:
        self._buf += data
        return len(data)

    def take(self) -> bytes:
        out = bytes(self._buf)
        self._buf.clear()
        return out


class RawEncoder:
    """PCM16 little-endian, after a streamed WAV header for ``wav``."""

    def __init__(self, wav: bool):
        self._header = streaming_wav_header() if wav else b""

    def encode(self, audio: np.ndarray) -> bytes:
        out, self._header = self._header + to_pcm16(audio), b""
        return out

    def finish(self) -> bytes:
        out, self._header = self._header, b""
        return out

    def close(self) -> None:
        pass


class CodecEncoder:
    """One PyAV output container with one mono 24 kHz audio stream."""

    def __init__(self, fmt: str):
        container, codec, bit_rate, options = _CODECS[fmt]
        self._sink = _Sink()
        self._lock = threading.Lock()
        self._container: av.container.OutputContainer | None = av.open(
            self._sink, "w", format=container, options=options
        )
        stream = self._container.add_stream(codec, rate=SAMPLE_RATE, layout="mono")
        if not isinstance(stream, av.audio.stream.AudioStream):
            raise TypeError(f"{codec} gave a {type(stream).__name__}, not an audio stream")
        self._stream = stream
        if bit_rate:
            self._stream.bit_rate = bit_rate

    def _mux(self, frame: av.AudioFrame | None) -> bytes:
        assert self._container is not None, "encoder used after close"
        for packet in self._stream.encode(frame):
            self._container.mux(packet)
        return self._sink.take()

    def encode(self, audio: np.ndarray) -> bytes:
        samples = np.clip(np.asarray(audio, dtype=np.float32), -1.0, 1.0).reshape(1, -1)
        frame = av.AudioFrame.from_ndarray(samples, format="flt", layout="mono")
        frame.sample_rate = SAMPLE_RATE
        with self._lock:
            return self._mux(frame)

    def finish(self) -> bytes:
        with self._lock:
            out = self._mux(None)
            self._close()
            return out + self._sink.take()

    def close(self) -> None:
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._container is not None:
            container, self._container = self._container, None
            container.close()  # writes the trailer into the sink


def open_encoder(fmt: str) -> Encoder:
    """An encoder for one of :data:`FORMATS`."""
    if fmt in ("wav", "pcm"):
        return RawEncoder(wav=fmt == "wav")
    if fmt not in _CODECS:
        raise ValueError(f"no encoder for {fmt!r}; formats: {', '.join(FORMATS)}")
    return CodecEncoder(fmt)


async def encoded(blocks: AsyncIterator[np.ndarray], encoder: Encoder) -> AsyncIterator[bytes]:
    """The container's bytes as each block of audio arrives, then its end; encoding runs on a thread, off
    the event loop. The caller closes ``encoder`` (also when the client leaves before the end)."""
    async for audio in blocks:
        data = await asyncio.to_thread(encoder.encode, audio)
        if data:
            yield data
    tail = await asyncio.to_thread(encoder.finish)
    if tail:
        yield tail
