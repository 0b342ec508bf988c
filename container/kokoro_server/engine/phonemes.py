"""Text to phonemes (misaki G2P) and phonemes to model-sized chunks.

misaki is Kokoro's own G2P: American (``a``) and British (``b``) English with the espeak-ng fallback for
words outside its lexicon. Expansion of abbreviations and numbers happens here ("Dr." -> doctor), so we
split the *phoneme* string, where sentence punctuation survives, rather than the raw text.
"""

from __future__ import annotations

import re

from misaki import en, espeak

from kokoro_server.engine.backend import MAX_PHONEMES

LANGUAGES = {"a": "American English", "b": "British English"}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CLAUSE_END = re.compile(r"(?<=[,;:—…])\s+")


class Phonemizer:
    """One misaki G2P per language, built at start-up (spaCy loads in 2-4 s). Not thread-safe."""

    def __init__(self) -> None:
        self._g2p = {
            lang: en.G2P(trf=False, british=lang == "b", fallback=espeak.EspeakFallback(british=lang == "b"),
                         unk="")
            for lang in LANGUAGES
        }

    def phonemize(self, text: str, lang: str) -> tuple[str, list[en.MToken]]:
        """The phoneme string and misaki's tokens (text, phonemes, whitespace), which word timing maps
        back to the written words; the string is each token's phonemes followed by its whitespace."""
        phonemes, tokens = self._g2p[lang](text)
        return phonemes, tokens


def _pack(parts: list[str], limit: int) -> list[str]:
    """Greedily join ``parts`` with spaces into strings of at most ``limit`` characters."""
    out: list[str] = []
    for part in parts:
        if out and len(out[-1]) + 1 + len(part) <= limit:
            out[-1] += " " + part
        else:
            out.append(part)
    return out


def _split_long(text: str, limit: int) -> list[str]:
    """Split one over-long sentence at clause punctuation, then at spaces, then hard: never truncate."""
    if len(text) <= limit:
        return [text]
    pieces: list[str] = []
    for clause in _CLAUSE_END.split(text):
        if len(clause) <= limit:
            pieces.append(clause)
            continue
        for word in clause.split(" "):
            pieces.extend(word[i : i + limit] for i in range(0, len(word), limit))
    return _pack(pieces, limit)


def chunk_phonemes(phonemes: str, limit: int = MAX_PHONEMES) -> list[str]:
    """One chunk per sentence (so audio can stream per sentence), none longer than ``limit``."""
    chunks: list[str] = []
    for sentence in _SENTENCE_END.split(phonemes.strip()):
        if sentence:
            chunks.extend(c for c in _split_long(sentence, limit) if c.strip())
    return chunks
