"""A whole text planned and spoken in one blocking call: the warm-up that times the model, tests and the
benchmark's baseline.

The same two halves a request goes through, taken one after the other on the calling thread: the text's
plan (:class:`~kokoro_server.text.reading.Reading`, every step at once) and the engine's renders.
"""

from __future__ import annotations

import time

import numpy as np

from kokoro_server.engine.synthesizer import Synthesizer
from kokoro_server.engine.warm_up import WARM_UP_TEXT
from kokoro_server.text.chunks import Chunk
from kokoro_server.text.phonemes import ReadSlice
from kokoro_server.text.reading import Reading
from speech_protocol.framing import SAMPLE_RATE
from speech_protocol.pace import SpeechModel, Timing

# The short piece timed beside the warm-up text ("Thanks for asking,"): the length of an eager first piece.
SHORT_PIECE_WORDS = 3


def plan(synth: Synthesizer, read: ReadSlice, text: str, voice: str | None = None, speed: float = 1.0) -> list[Chunk]:
    """``text``'s chunks in ``voice`` (``synth``'s default for None), read with ``read`` all at once."""
    return Reading(text, synth.voice(voice), speed, read).whole()


def speak(synth: Synthesizer, read: ReadSlice, text: str, voice: str | None = None, speed: float = 1.0) -> np.ndarray:
    """The whole utterance in one array."""
    parts = [synth.render(c).audio for c in plan(synth, read, text, voice, speed)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)


def warm_up(synth: Synthesizer, read: ReadSlice, text: str = WARM_UP_TEXT, rounds: int = 3) -> SpeechModel:
    """The pace clients size their pieces by (:meth:`SpeechModel.measured`): ``text``'s first few words
    (the process's first call, which warms it), then ``text`` once for the real-time factor, then the
    short piece ``rounds - 1`` more times for its median, since its cost is a small difference of noisy
    figures (docs/decisions/088-piece-overhead.md). Timing the sentence once, not three times, halved
    the warm-up (docs/decisions/143-warm-up-times-the-sentence-once.md). A slowed backend
    (:mod:`kokoro_server.engine.slowed`) is timed as it runs."""
    if rounds < 1:
        raise ValueError("warm-up needs at least one round")

    def timed(piece: str) -> Timing:
        start = time.perf_counter()
        heard = sum(len(synth.render(c).audio) for c in plan(synth, read, piece)) / SAMPLE_RATE
        return Timing(time.perf_counter() - start, max(heard, 1e-3))

    short = " ".join(text.split()[:SHORT_PIECE_WORDS])
    first = timed(short)
    sentence = timed(text)
    shorts = sorted([first, *(timed(short) for _ in range(rounds - 1))], key=lambda t: t.synth_s)
    return SpeechModel.measured(short=shorts[len(shorts) // 2], sentence=sentence)
