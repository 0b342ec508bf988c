"""When each written word is heard: the model's per-phoneme durations mapped back to the client's words.

The path from a written word to audio samples, each step exact:

1. written text -> spoken text (:mod:`normalize`): ``Normalized.written_offset`` maps a spoken character
   back to the written character it came from, so "$3.50" stays one written word however it is spoken;
2. spoken text -> misaki tokens: each token's text is found, in order, in the spoken text, and its phonemes
   (plus its trailing whitespace) are exactly its stretch of the phoneme string G2P returns;
3. phoneme string -> chunks (:func:`phonemes.chunk_phonemes`) only splits at whitespace and re-joins with
   single spaces, so the non-space characters of the chunks, in order, are those of the phoneme string;
4. chunk -> audio: the model gives each phoneme character a number of 600-sample frames (backend
   :class:`Inference`), and silence trimming removes a known number of samples at the front. The decoder
   sounds each phoneme about two frames before its aligned frames start (measured: speech onset 20-110 ms,
   median 55 ms, before the first phoneme's frame over 27 sentence-voice pairs; kokoro's own timestamps
   shift by three frames), so spans are moved :data:`AUDIO_LEAD_FRAMES` earlier
   (docs/decisions/061-word-spans.md).

A written word is a run of non-whitespace in the written text, its punctuation kept ("Hello,"). Only its
speech sounds count toward its span (punctuation's pause belongs to no word), so a word made only of
punctuation has no span and no entry.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from kokoro_server.engine.backend import FRAME_SAMPLES
from kokoro_server.engine.normalize import Normalized
from speech_protocol.messages import SAMPLE_RATE, WordSpan

NO_WORD = -1
AUDIO_LEAD_FRAMES = 2
_WORD = re.compile(r"\S+")


def written_words(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` character spans of the written words of ``text``."""
    return [m.span() for m in _WORD.finditer(text)]


def _speech(phoneme: str) -> bool:
    """A phoneme character that is a speech sound (letters, stress and length marks), not punctuation."""
    return phoneme.isalpha()


def phoneme_owners(text: Normalized, tokens: Sequence, words: list[tuple[int, int]]) -> list[int]:
    """For each character of the phoneme string misaki built from ``tokens`` (each token's phonemes then
    its whitespace), the index of the written word it belongs to, or ``NO_WORD``."""
    starts = [start for start, _ in words]
    owners: list[int] = []
    cursor = 0
    for token in tokens:
        at = text.spoken.find(token.text, cursor) if token.text.strip() else -1
        if at >= 0:
            cursor = at + len(token.text)
        # A token misaki re-spelled (not found) belongs where reading stands: the word at the cursor.
        written = text.written_offset(at if at >= 0 else cursor)
        word = bisect.bisect_right(starts, written) - 1
        if word < 0 or written >= words[word][1]:
            word += 1  # between words: the next one
        if word >= len(words):
            word = NO_WORD
        phonemes = token.phonemes or ""
        owners += [word if _speech(p) else NO_WORD for p in phonemes]
        owners += [NO_WORD] * len(token.whitespace)
    return owners


def chunk_owners(phonemes: str, owners: list[int], chunks: list[str]) -> list[tuple[int, ...]]:
    """Carry ``owners`` (per character of ``phonemes``) over to the characters of each chunk, matching
    non-space characters in order (step 3 of the module docstring); spaces belong to no word."""
    out: list[tuple[int, ...]] = []
    pos = 0
    for chunk in chunks:
        row = []
        for ch in chunk:
            if ch.isspace():
                row.append(NO_WORD)
                continue
            while pos < len(phonemes) and phonemes[pos] != ch:
                pos += 1
            row.append(owners[pos] if pos < len(phonemes) else NO_WORD)
            pos += 1
        out.append(tuple(row))
    return out


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
