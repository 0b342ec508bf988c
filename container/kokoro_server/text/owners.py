"""Which written word each phoneme belongs to: the text side of word timing (the engine's
:mod:`~kokoro_server.engine.word_timing` turns the model's frames into each word's time).

The path from a written word to phonemes, each step exact:

1. written text -> spoken text (:mod:`.normalize`): ``Normalized.written_offset`` maps a spoken character
   back to the written character it came from, so "$3.50" stays one written word however it is spoken;
2. spoken text -> misaki tokens: each token's text is found, in order, in the spoken text, and its phonemes
   (plus its trailing whitespace) are exactly its stretch of the phoneme string G2P returns;
3. phoneme string -> chunks (:func:`.chunks.chunk_phonemes`) only splits at whitespace and re-joins with
   single spaces, so the non-space characters of the chunks, in order, are those of the phoneme string.

A written word is a run of non-whitespace in the written text, its punctuation kept ("Hello,"); in
Japanese and Chinese, written without spaces, a run is also cut where a token of the G2P's own
segmentation starts ("您好，感谢您" is "您好，" and "感谢您"). Only its
speech sounds belong to it (punctuation's pause belongs to no word), so a word made only of punctuation
owns no phoneme.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence

from kokoro_server.text.normalize import Normalized
from speech_protocol.pace import WIDE_SCRIPT

NO_WORD = -1
_WORD = re.compile(r"\S+")
_WIDE = re.compile(f"[{WIDE_SCRIPT}]")


def written_words(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` character spans of the written words of ``text``."""
    return [m.span() for m in _WORD.finditer(text)]


def _token_starts(text: Normalized, tokens: Sequence) -> Iterator[tuple[int, int]]:
    """``(spoken offset, written offset)`` where each token is found, in order, in the spoken text;
    a token not found (misaki re-spelled it) is skipped."""
    cursor = 0
    for token in tokens:
        at = text.spoken.find(token.text, cursor) if token.text.strip() else -1
        if at >= 0:
            cursor = at + len(token.text)
            yield at, text.written_offset(at)


def token_words(text: Normalized, tokens: Sequence) -> list[tuple[int, int]]:
    """The written words of ``text``, each run cut again where a token starts on a Japanese or Chinese
    character that follows another character of the run (the only place a token boundary is not a space)."""
    if not _WIDE.search(text.written):
        return written_words(text.written)  # nothing to cut: the one scan English text pays
    cuts = sorted({w for _, w in _token_starts(text, tokens) if _WIDE.match(text.written, w)})
    words = []
    for start, end in written_words(text.written):
        inside = cuts[bisect.bisect_right(cuts, start) : bisect.bisect_left(cuts, end)]
        bounds = [start, *inside, end]
        words += list(zip(bounds, bounds[1:]))
    return words


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
