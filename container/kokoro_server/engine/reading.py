"""One text's way to chunks in bounded steps, so that G2P can be shared fairly between listeners.

misaki reads a whole text in one call; a 4 KB URL-like text takes seconds, and a listener whose "Hello."
waited behind it waited that long (docs/decisions/130-fair-g2p-slices.md). A :class:`Reading` does the
same work one step at a time: normalization and the first slice, then one slice per step, the last step
also building the chunks. Each step is a separate job in the G2P queue, ordered by its session's deadline,
so another session's text waits for one slice at most. The slices' phonemes equal the whole text's
(tests/container/test_fair_g2p.py), so what is heard does not change.
"""

from __future__ import annotations

from kokoro_server.engine.normalize import Normalized
from kokoro_server.engine.normalize import normalize as normalize_text
from kokoro_server.engine.phonemes import Slice, Token, g2p_slices, joined
from kokoro_server.engine.synthesizer import Chunk, Synthesizer


class Reading:
    """A text being read with ``synth``'s G2P; call :meth:`step` (blocking, on a G2P thread) until it returns
    the chunks."""

    def __init__(self, synth: Synthesizer, text: str, voice: str | None, speed: float, *, normalize: bool):
        self._synth = synth
        self._text, self._normalize, self._speed = text, normalize, speed
        self._style = synth.voices.get(voice or synth.default_voice)
        self._spoken: Normalized | None = None
        self._slices: list[Slice] = []
        self._read_slices: list[list[Token]] = []

    def step(self) -> list[Chunk] | None:
        """Read the next slice (normalizing first, on the first step); the chunks once every slice is read."""
        if self._spoken is None:
            self._spoken = normalize_text(self._text, enabled=self._normalize)
            self._slices = g2p_slices(self._spoken.spoken)
        if len(self._read_slices) < len(self._slices):
            self._read_slices.append(self._synth.read(self._slices[len(self._read_slices)].text, self._style.lang))
        if len(self._read_slices) < len(self._slices):
            return None
        phonemes, tokens = joined(self._slices, self._read_slices)
        return self._synth.chunks(self._spoken, self._style, self._speed, phonemes, tokens)
