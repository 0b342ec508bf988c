"""Chunks in, trimmed 24 kHz audio out: the voices' style vectors and the backend, together.

A text's chunks come from :class:`kokoro_server.text.reading.Reading`; ``render`` (the model, most of the
time) speaks one of them, so a scheduler can interleave sessions chunk by chunk. Blocking: run it in the
scheduler's worker thread, never on the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kokoro_server.audio import cut, speech_bounds
from kokoro_server.engine.backend import Backend, CancelToken, Inference, RenderCancelled
from kokoro_server.engine.batch import BatchBackend, BatchRow
from kokoro_server.engine.voices import VoiceBank
from kokoro_server.engine.word_timing import chunk_spans
from kokoro_server.text.chunks import Chunk


@dataclass(frozen=True)
class Rendered:
    """A chunk's audio, trimmed, and each word's ``(first, last)`` sample in it (see word_timing)."""

    audio: np.ndarray
    spans: dict[int, tuple[int, int]]


class Synthesizer:
    """One loaded model with its voices; create one per process, at start-up."""

    def __init__(self, backend: Backend, voices: VoiceBank, *, default_voice: str, trim: bool = True):
        self.backend = backend
        self.voices = voices
        self.default_voice = default_voice
        self.trim = trim
        voices.get(default_voice)  # fail at start-up, not on the first request

    def voice(self, name: str | None) -> str:
        """The voice (or blend) to speak for ``name``, the default for None; raises
        :class:`~kokoro_server.engine.voices.UnknownVoice` now for one this server cannot speak."""
        voice = name or self.default_voice
        self.voices.get(voice)  # cached: a blend is computed once
        return voice

    def style(self, chunk: Chunk) -> np.ndarray:
        """The style vector ``chunk`` is spoken with: its voice's row for its length."""
        return self.voices.get(chunk.voice).vector_for(len(chunk.phonemes))

    def render(self, chunk: Chunk, cancel: CancelToken | None = None) -> Rendered:
        """Speak one chunk; raises :class:`~kokoro_server.engine.backend.RenderCancelled` once ``cancel`` is."""
        return self._rendered(chunk, self.backend.infer(chunk.phonemes, self.style(chunk), chunk.speed, cancel))

    @property
    def can_batch(self) -> bool:
        """Whether the backend speaks several chunks in one pass (:meth:`render_batch`)."""
        return isinstance(self.backend, BatchBackend)

    def render_batch(self, chunks: list[Chunk], cancels: list[CancelToken]) -> list[Rendered | RenderCancelled]:
        """Speak ``chunks`` in one pass of a batching backend, each as :meth:`render` would alone
        (docs/decisions/125-batched-synthesis.md); a chunk whose token is cancelled gets
        :class:`~kokoro_server.engine.backend.RenderCancelled` instead."""
        if not isinstance(self.backend, BatchBackend):
            raise TypeError(f"the {self.backend.name} backend does not batch")
        rows = [BatchRow(c.phonemes, self.style(c), c.speed) for c in chunks]
        outs = self.backend.infer_batch(rows, cancels)
        return [
            out if isinstance(out, RenderCancelled) else self._rendered(c, out)
            for c, out in zip(chunks, outs, strict=True)
        ]

    def _rendered(self, chunk: Chunk, out: Inference) -> Rendered:
        start, stop = speech_bounds(out.audio) if self.trim else (0, len(out.audio))
        return Rendered(cut(out.audio, start, stop), chunk_spans(chunk.owners, out.frames, start, stop))
