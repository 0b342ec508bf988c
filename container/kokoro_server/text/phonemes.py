"""Text to phonemes: misaki's G2P, and the bounding of long tokens that keeps it linear.

misaki is Kokoro's own G2P, one per language (:mod:`.languages`). The text is cut into chunks as a
*phoneme* string, where sentence punctuation survives (:mod:`.chunks`).

misaki's cost grows with the square (or worse) of the sub-tokens inside one whitespace-delimited token,
while the same characters in short tokens are linear. :func:`bound_tokens` therefore breaks long tokens at
their separators before G2P, so G2P stays linear in the text's length (docs/decisions/040-bounded-g2p.md
has the figures per token class). The rewrite only adds spaces: no character is lost.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from kokoro_server.refusals import Refusal
from kokoro_server.text.languages import G2P, LANGUAGES, Language, build_g2p, prepared
from kokoro_server.text.tokens import Token
from kokoro_server.text.wide_tokens import chinese_tokens, japanese_tokens

if TYPE_CHECKING:  # misaki itself is imported where G2P is built: it pulls in spaCy and torch (2-3 s)
    from misaki import en

LONG_TOKEN_CHARS = 24  # tokens up to this long go to G2P as written
LONG_WORD_CHARS = 48  # letters/digits in one part (the longest English words have ~45)
LONG_SYMBOLS = 4  # separators in one part ("://" stays whole)
LONG_DIGITS = 15  # longer digit runs are read digit by digit, like an ID (misaki overflows on 10**306)
_LONG_TOKEN = re.compile(rf"\S{{{LONG_TOKEN_CHARS + 1},}}")
_SEPARATORS = re.compile(r"[^\W_]+|[\W_]+")  # alternating runs of letters/digits and of the rest
# Inside a long token, words as misaki splits them itself: "MyPage2024" -> My, Page, 2024 (cutting such a
# token at a fixed length instead leaves quadratic parts: docs/decisions/040-bounded-g2p.md).
_SUBWORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+|[^\W\d_]+")
_LONG_NUMBER = re.compile(rf"\d{{{LONG_DIGITS + 1},}}")


class UnreadableText(Refusal):
    """G2P could not read the text (a failure inside misaki, not a server fault, but a misaki limit worth
    knowing about: logged)."""

    status, code, log_level = 400, "bad_text", logging.WARNING


# Reads one slice in one language: a G2P process pool's (the server), or a Phonemizer's own ``read``.
ReadSlice = Callable[[str, str], list[Token]]


def _cut(run: str, size: int) -> str:
    return " ".join(run[i : i + size] for i in range(0, len(run), size))


def _spread(token: str) -> str:
    """A long token as short parts: a space after each separator run, over-long runs cut."""
    parts: list[str] = []
    for run in _SEPARATORS.findall(token):
        if run[0].isalnum():
            parts.extend(_cut(word, LONG_WORD_CHARS) for word in _SUBWORDS.findall(run) or [run])
            continue
        cuts = _cut(run, LONG_SYMBOLS).split(" ")
        if parts:
            parts[-1] += cuts.pop(0)  # "a/" stays one part, so a separator is read with what it follows
        parts.extend(cuts)
    return " ".join(parts)


def bound_tokens(text: str) -> str:
    """``text`` with every long token broken into short ones and long digit runs spelled out, so G2P
    time stays linear in the length of the text. Short tokens (nearly all real text) are untouched."""
    text = _LONG_NUMBER.sub(lambda m: " ".join(m.group()), text)
    return _LONG_TOKEN.sub(lambda m: _spread(m.group()), text)


class Phonemizer:
    """One misaki G2P per language. English is built at once (spaCy loads in 2-4 s, before the first
    listener); the other languages when first read (Mandarin, the slowest, in about 1.5 s)
    (docs/decisions/153-nine-languages.md). Not thread-safe."""

    def __init__(self, *, bounded: bool = True) -> None:
        self._bound = bound_tokens if bounded else str  # unbounded only to measure the "before" (bench)
        self._g2p: dict[str, G2P] = {}
        for lang in LANGUAGES.values():
            if lang.english:
                self._g2p_of(lang)

    def _g2p_of(self, lang: Language) -> G2P:
        if lang.letter not in self._g2p:
            self._g2p[lang.letter] = build_g2p(lang)
        return self._g2p[lang.letter]

    def phonemize(self, text: str, lang: str) -> tuple[str, list[en.MToken] | list[Token]]:
        """The phoneme string and the tokens (text, phonemes, whitespace) that word timing maps back to
        the written words; the string is each token's phonemes followed by its whitespace. English G2P
        gives misaki's own tokens; the others give a phoneme string, tied to the words here
        (:func:`word_tokens`), or in Japanese and Chinese to the G2P's own segmentation (:mod:`.wide_tokens`)."""
        language = LANGUAGES[lang]
        g2p, read = self._g2p_of(language), prepared(self._bound(text), language)
        try:
            phonemes, tokens = g2p(read)
        except (ArithmeticError, RecursionError, ValueError, IndexError, AssertionError) as exc:
            raise UnreadableText(
                f"the text could not be read aloud ({type(exc).__name__}); rewrite numbers and symbols in it as words"
            ) from exc
        if tokens is None and language.family == "ja":
            tokens = japanese_tokens(g2p, read, phonemes)
        elif tokens is None and language.family == "zh":
            tokens = chinese_tokens(read, phonemes)
        if tokens is None:
            tokens = word_tokens(self._bound(text), phonemes)
            phonemes = "".join(t.phonemes + t.whitespace for t in tokens)
        return phonemes, tokens

    def read(self, text: str, lang: str) -> list[Token]:
        """:meth:`phonemize`'s tokens, as :class:`Token` (what one slice's reading sends back)."""
        _phonemes, tokens = self.phonemize(text, lang)
        return [Token(t.text, t.phonemes or "", t.whitespace) for t in tokens]


def word_tokens(text: str, phonemes: str) -> list[Token]:
    """A G2P's phoneme string (no tokens: espeak-ng, misaki's Japanese and Chinese) as tokens: one per
    written word where the phonemes have as many space-separated words as the text (espeak-ng keeps word
    boundaries), else one token for the whole text, whose phonemes then all belong to its first word."""
    words, sounds = text.split(), phonemes.split()
    if words and len(words) == len(sounds):
        return [Token(word, sound, " ") for word, sound in zip(words[:-1], sounds[:-1])] + [
            Token(words[-1], sounds[-1], "")
        ]
    return [Token(text.strip(), " ".join(sounds), "")] if sounds else []
