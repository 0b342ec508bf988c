"""The plan of a text, written once: normalization, G2P one bounded slice per step, then the chunks.

A request's text is read a step at a time, each step a separate job in the server's G2P queue ordered by
its session's deadline, so another session's text waits for one slice at most
(docs/decisions/130-fair-g2p-slices.md). The warm-up, the tests and the benchmark take the same steps one
after the other (:meth:`Reading.whole`), so there is one way from a text to its chunks.
"""

from __future__ import annotations

from kokoro_server.text.chunks import Chunk, chunks_of
from kokoro_server.text.languages import language_letter
from kokoro_server.text.normalize import Normalized, normalize
from kokoro_server.text.phonemes import ReadSlice, Token
from kokoro_server.text.slices import Slice, g2p_slices, joined


class Reading:
    """``text`` being read with ``read`` (the server's G2P processes, or a Phonemizer's ``read``) for
    ``voice`` (a name or blend the engine can speak) at ``speed``, in ``language`` (a code or letter; None:
    the voice's own). :meth:`step` is blocking: run it on a G2P thread. ``normalize=False`` gives G2P the text as written (no "$3.50" -> "three dollars fifty");
    written forms are rewritten in every language, each by its own rules (text/normalize/, its locales/)."""

    def __init__(
        self,
        text: str,
        voice: str,
        speed: float,
        read: ReadSlice,
        *,
        normalize: bool = True,
        language: str | None = None,
    ):
        self._text, self._voice, self._speed, self._read = text, voice, speed, read
        self._lang = language_letter(language, voice)  # UnknownLanguage now, before any G2P
        self._normalize = normalize
        self._spoken: Normalized | None = None
        self._slices: list[Slice] = []
        self._read_slices: list[list[Token]] = []

    def step(self) -> list[Chunk] | None:
        """Read the next slice (normalizing first, on the first step); the chunks once every slice is read."""
        if self._spoken is None:
            self._spoken = normalize(self._text, enabled=self._normalize, language=self._lang)
            self._slices = g2p_slices(self._spoken.spoken)
        if len(self._read_slices) < len(self._slices):
            unread = self._slices[len(self._read_slices)]
            self._read_slices.append(self._read(unread.text, self._lang))
        if len(self._read_slices) < len(self._slices):
            return None
        phonemes, tokens = joined(self._slices, self._read_slices)
        return chunks_of(self._spoken, self._voice, self._speed, phonemes, tokens)

    def whole(self) -> list[Chunk]:
        """Every step at once: the chunks of the whole text (warm-up, tests, the benchmark)."""
        while (chunks := self.step()) is None:
            pass
        return chunks
