"""Text in, trimmed 24 kHz audio chunks out: G2P, chunking, voice styles and the backend, together.

Work is split in two steps so a scheduler can interleave sessions at chunk granularity: ``plan`` (G2P,
milliseconds) turns an utterance into chunks; ``render`` (the model, most of the time) speaks one chunk.
Both are blocking: run them in the scheduler's worker thread, never on the event loop.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from kokoro_server.audio import cut, speech_bounds
from kokoro_server.engine.backend import Backend, CancelToken, Inference, RenderCancelled
from kokoro_server.engine.batch import BatchBackend, BatchRow
from kokoro_server.engine.normalize import Normalized
from kokoro_server.engine.normalize import normalize as normalize_text
from kokoro_server.engine.phonemes import ReadSlice, Token, chunk_phonemes, g2p_slices, joined
from kokoro_server.engine.voices import VoiceBank, VoiceStyle
from kokoro_server.engine.warm_up import WARM_UP_TEXT
from kokoro_server.engine.word_timing import chunk_owners, chunk_spans, phoneme_owners, written_words
from speech_protocol.messages import SAMPLE_RATE
from speech_protocol.pace import SpeechModel, Timing

if TYPE_CHECKING:
    from misaki.en import MToken

# The short piece timed beside the warm-up text ("Thanks for asking,"): the length of an eager first piece.
SHORT_PIECE_WORDS = 3


class NothingToSay(ValueError):
    """The text holds nothing speakable (only symbols or whitespace after G2P)."""


@dataclass(frozen=True)
class Chunk:
    """One model call's worth of an utterance. ``owners``: the written word (an index into ``words``,
    the utterance's written words) each phoneme character belongs to, -1 for none."""

    phonemes: str
    style: VoiceStyle
    speed: float
    owners: tuple[int, ...] = ()
    words: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rendered:
    """A chunk's audio, trimmed, and each word's ``(first, last)`` sample in it (see word_timing)."""

    audio: np.ndarray
    spans: dict[int, tuple[int, int]]


class Synthesizer:
    """One loaded model with its G2P and voices; create one per process, at start-up.

    ``read`` is the G2P: the server's process pool (so the server process loads no misaki of its own), or a
    :class:`~kokoro_server.engine.phonemes.Phonemizer`'s ``read`` (tests, the benchmark).
    """

    def __init__(self, backend: Backend, read: ReadSlice, voices: VoiceBank, *, default_voice: str, trim: bool = True):
        self.backend = backend
        self.read = read
        self.voices = voices
        self.default_voice = default_voice
        self.trim = trim
        voices.get(default_voice)  # fail at start-up, not on the first request

    def plan(self, text: str, voice: str | None, speed: float, *, normalize: bool = True) -> list[Chunk]:
        """All of a text's chunks at once, its slices read one after the other (a request's
        :class:`~kokoro_server.engine.reading.Reading` reads the same slices one step at a time).
        ``normalize=False`` gives G2P the text as written (no "$3.50" -> "three dollars fifty")."""
        style = self.voices.get(voice or self.default_voice)
        spoken = normalize_text(text, enabled=normalize)
        slices = g2p_slices(spoken.spoken)
        phonemes, tokens = joined(slices, [self.read(piece.text, style.lang) for piece in slices])
        return self.chunks(spoken, style, speed, phonemes, tokens)

    def chunks(
        self, spoken: Normalized, style: VoiceStyle, speed: float, phonemes: str, tokens: Sequence[Token | MToken]
    ) -> list[Chunk]:
        """The chunks of a text read as ``phonemes`` and ``tokens`` (whole, or slice by slice:
        :mod:`kokoro_server.engine.reading`), each phoneme tied to its written word."""
        spans = written_words(spoken.written)
        words = tuple(spoken.written[a:b] for a, b in spans)
        pieces = chunk_phonemes(phonemes)
        owners = chunk_owners(phonemes, phoneme_owners(spoken, tokens, spans), pieces)
        # A chunk of bare punctuation would be "spoken" as silence: only chunks with a phoneme count.
        chunks = [
            Chunk(ps, style, speed, own, words) for ps, own in zip(pieces, owners) if any(c.isalpha() for c in ps)
        ]
        if not chunks:
            raise NothingToSay("the text has nothing to speak")
        return chunks

    def render(self, chunk: Chunk, cancel: CancelToken | None = None) -> Rendered:
        """Speak one chunk; raises :class:`~kokoro_server.engine.backend.RenderCancelled` once ``cancel`` is."""
        style = chunk.style.vector_for(len(chunk.phonemes))
        return self._rendered(chunk, self.backend.infer(chunk.phonemes, style, chunk.speed, cancel))

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
        rows = [BatchRow(c.phonemes, c.style.vector_for(len(c.phonemes)), c.speed) for c in chunks]
        outs = self.backend.infer_batch(rows, cancels)
        return [
            out if isinstance(out, RenderCancelled) else self._rendered(c, out)
            for c, out in zip(chunks, outs, strict=True)
        ]

    def _rendered(self, chunk: Chunk, out: Inference) -> Rendered:
        start, stop = speech_bounds(out.audio) if self.trim else (0, len(out.audio))
        return Rendered(cut(out.audio, start, stop), chunk_spans(chunk.owners, out.frames, start, stop))

    def speak(self, text: str, voice: str | None = None, speed: float = 1.0) -> np.ndarray:
        """The whole utterance in one array: for warm-up, tests and the benchmark's baseline."""
        parts = [self.render(c).audio for c in self.plan(text, voice, speed)]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)

    def warm_up(self, text: str = WARM_UP_TEXT, rounds: int = 3) -> SpeechModel:
        """The pace clients size their pieces by (:meth:`SpeechModel.measured`): ``text``'s first few words
        (the process's first call, which warms it), then ``text`` once for the real-time factor, then the
        short piece ``rounds - 1`` more times for its median, since its cost is a small difference of noisy
        figures (docs/decisions/088-piece-overhead.md). Timing the sentence once, not three times, halved
        the warm-up (docs/decisions/143-warm-up-times-the-sentence-once.md). A slowed backend
        (:mod:`.slowed`) is timed as it runs."""
        if rounds < 1:
            raise ValueError("warm-up needs at least one round")
        short = " ".join(text.split()[:SHORT_PIECE_WORDS])
        first = self._timed(short)
        sentence = self._timed(text)
        shorts = sorted([first, *(self._timed(short) for _ in range(rounds - 1))], key=lambda t: t.synth_s)
        return SpeechModel.measured(short=shorts[len(shorts) // 2], sentence=sentence)

    def _timed(self, text: str) -> Timing:
        start = time.perf_counter()
        parts = [self.render(c) for c in self.plan(text, None, 1.0)]
        heard = sum(len(part.audio) for part in parts) / SAMPLE_RATE
        return Timing(time.perf_counter() - start, max(heard, 1e-3))
