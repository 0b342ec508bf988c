"""When each written word is heard: the model's per-phoneme durations mapped back to the client's words.

Each phoneme character of a chunk already names its written word (:mod:`kokoro_server.text.owners`, the
text side of the path). The model gives each phoneme character a number of 600-sample frames (backend
:class:`~kokoro_server.engine.backend.Inference`), and silence trimming removes a known number of samples
at the front. The decoder sounds each phoneme about two frames before its aligned frames start (measured:
speech onset 20-110 ms, median 55 ms, before the first phoneme's frame over 27 sentence-voice pairs;
kokoro's own timestamps shift by three frames), so spans are moved :data:`AUDIO_LEAD_FRAMES` earlier
(docs/decisions/061-word-spans.md). Only a word's speech sounds count toward its span, so a word made only
of punctuation has no span and no entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from kokoro_server.engine.backend import FRAME_SAMPLES
from kokoro_server.text.owners import NO_WORD
from speech_protocol.framing import SAMPLE_RATE
from speech_protocol.server_events import WordSpan

AUDIO_LEAD_FRAMES = 2


def chunk_spans(owners: Sequence[int], frames: np.ndarray, start: int, stop: int) -> dict[int, tuple[int, int]]:
    """Each word's ``(first, last)`` sample in one chunk's audio after it was cut to ``[start, stop)``.

    ``frames`` are the backend's (pads included); positions are clipped to the kept audio."""
    spans: dict[int, tuple[int, int]] = {}
    pos = (int(frames[0]) - AUDIO_LEAD_FRAMES) * FRAME_SAMPLES
    for word, count in zip(owners, frames[1:-1]):
        end = pos + int(count) * FRAME_SAMPLES
        if word != NO_WORD and count > 0:
            a, b = (min(max(x - start, 0), stop - start) for x in (pos, end))
            first, last = spans.get(word, (a, b))
            spans[word] = (min(first, a), max(last, b))
        pos = end
    return spans


@dataclass
class WordTimeline:
    """The word spans of one utterance, chunk by chunk as its audio is produced."""

    words: tuple[str, ...]
    samples: int = 0
    _spans: dict[int, tuple[int, int]] = field(default_factory=dict)

    def add(self, spans: dict[int, tuple[int, int]], samples: int) -> None:
        """One more chunk of ``samples`` samples, with its word spans counted from its own start."""
        for word, (a, b) in spans.items():
            first, last = self._spans.get(word, (self.samples + a, self.samples + b))
            self._spans[word] = (min(first, self.samples + a), max(last, self.samples + b))
        self.samples += samples

    def spans(self) -> list[WordSpan]:
        return [
            WordSpan(self.words[w], round(a / SAMPLE_RATE, 4), round(b / SAMPLE_RATE, 4))
            for w, (a, b) in sorted(self._spans.items())
        ]
