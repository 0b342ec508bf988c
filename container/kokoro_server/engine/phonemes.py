"""Text to phonemes (misaki G2P) and phonemes to model-sized chunks.

misaki is Kokoro's own G2P: American (``a``) and British (``b``) English with the espeak-ng fallback for
words outside its lexicon. Expansion of abbreviations and numbers happens here ("Dr." -> doctor), so we
split the *phoneme* string, where sentence punctuation survives, rather than the raw text.

misaki's cost grows with the square (or worse) of the sub-tokens inside one whitespace-delimited token,
while the same characters in short tokens are linear. :func:`bound_tokens` therefore breaks long tokens at
their separators before G2P, so G2P stays linear in the text's length (docs/decisions/040-bounded-g2p.md
has the figures per token class). The rewrite only adds spaces: no character is lost.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from kokoro_server.engine.backend import MAX_PHONEMES

if TYPE_CHECKING:  # misaki itself is imported where G2P is built: it pulls in spaCy and torch (2-3 s)
    from misaki import en

LANGUAGES = {"a": "American English", "b": "British English"}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CLAUSE_END = re.compile(r"(?<=[,;:—…])\s+")
LONG_TOKEN_CHARS = 24  # tokens up to this long go to G2P as written
LONG_WORD_CHARS = 48  # letters/digits in one piece (the longest English words have ~45)
LONG_SYMBOLS = 4  # separators in one piece ("://" stays whole)
LONG_DIGITS = 15  # longer digit runs are read digit by digit, like an ID (misaki overflows on 10**306)
_LONG_TOKEN = re.compile(rf"\S{{{LONG_TOKEN_CHARS + 1},}}")
_SEPARATORS = re.compile(r"[^\W_]+|[\W_]+")  # alternating runs of letters/digits and of the rest
# Inside a long token, words as misaki splits them itself: "MyPage2024" -> My, Page, 2024 (cutting such a
# token at a fixed length instead leaves quadratic pieces: docs/decisions/040-bounded-g2p.md).
_SUBWORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+|[^\W\d_]+")
_LONG_NUMBER = re.compile(rf"\d{{{LONG_DIGITS + 1},}}")


# G2P reads a long text in slices of about this many characters, so that another listener's text waits
# for one slice at most, never for a whole long text (docs/decisions/130-fair-g2p-slices.md).
SLICE_CHARS = 300
# Where a slice may end, preferred first: spaces between words after a sentence end, after a clause, any
# spaces between words (there misaki's whole reading puts a space too, so the chunks come out the same;
# at a line break it may join the lines' phonemes), and any whitespace last.
_SLICE_CUTS = tuple(
    re.compile(pattern) for pattern in (r"(?<=[.!?]) +(?=\S)", r"(?<=[,;:—…]) +(?=\S)", r"(?<=\S) +(?=\S)", r"\s+")
)


class UnreadableText(ValueError):
    """G2P could not read the text (a failure inside misaki, not a server fault)."""


class Token(NamedTuple):
    """What word timing needs of one misaki token (misaki's own ``MToken`` holds spaCy state): small to
    send between processes."""

    text: str
    phonemes: str
    whitespace: str


# Reads one slice in one language: a G2P process pool's (the server), or a Phonemizer's own ``read``.
ReadSlice = Callable[[str, str], list[Token]]


class Slice(NamedTuple):
    """One bounded piece of a (bounded) text and the whitespace that separated it from the next one."""

    text: str
    separator: str


def _cut(run: str, size: int) -> str:
    return " ".join(run[i : i + size] for i in range(0, len(run), size))


def _spread(token: str) -> str:
    """A long token as short pieces: a space after each separator run, over-long runs cut."""
    pieces: list[str] = []
    for run in _SEPARATORS.findall(token):
        if run[0].isalnum():
            pieces.extend(_cut(word, LONG_WORD_CHARS) for word in _SUBWORDS.findall(run) or [run])
            continue
        cuts = _cut(run, LONG_SYMBOLS).split(" ")
        if pieces:
            pieces[-1] += cuts.pop(0)  # "a/" stays one piece, so a separator is read with what it follows
        pieces.extend(cuts)
    return " ".join(pieces)


def bound_tokens(text: str) -> str:
    """``text`` with every long token broken into short ones and long digit runs spelled out, so G2P
    time stays linear in the length of the text. Short tokens (nearly all real text) are untouched."""
    text = _LONG_NUMBER.sub(lambda m: " ".join(m.group()), text)
    return _LONG_TOKEN.sub(lambda m: _spread(m.group()), text)


class Phonemizer:
    """One misaki G2P per language, built at start-up (spaCy loads in 2-4 s). Not thread-safe."""

    def __init__(self, *, bounded: bool = True) -> None:
        from misaki import en, espeak  # only here: importing this module (the runtime, the bench's reports) stays light

        self._bound = bound_tokens if bounded else str  # unbounded only to measure the "before" (bench)
        self._g2p = {
            lang: en.G2P(trf=False, british=lang == "b", fallback=espeak.EspeakFallback(british=lang == "b"), unk="")
            for lang in LANGUAGES
        }

    def phonemize(self, text: str, lang: str) -> tuple[str, list[en.MToken]]:
        """The phoneme string and misaki's tokens (text, phonemes, whitespace), which word timing maps
        back to the written words; the string is each token's phonemes followed by its whitespace."""
        try:
            phonemes, tokens = self._g2p[lang](self._bound(text))
        except (ArithmeticError, RecursionError, ValueError, IndexError) as exc:
            raise UnreadableText(
                f"the text could not be read aloud ({type(exc).__name__}); rewrite numbers and symbols in it as words"
            ) from exc
        return phonemes, tokens

    def read(self, text: str, lang: str) -> list[Token]:
        """:meth:`phonemize`'s tokens, as :class:`Token` (what one slice's reading sends back)."""
        _phonemes, tokens = self.phonemize(text, lang)
        return [Token(t.text, t.phonemes or "", t.whitespace) for t in tokens]


def _cut_at(text: str, start: int, limit: int) -> tuple[int, int]:
    """Where the slice starting at ``start`` ends: the last cut of the most preferred kind within ``limit``
    characters; a run with no whitespace at all (none after bound_tokens) whole."""
    window = text[start : start + limit + 1]
    for cuts in _SLICE_CUTS:
        found = [m for m in cuts.finditer(window) if m.start() > 0]
        if found:
            return start + found[-1].start(), start + found[-1].end()
    space = _SLICE_CUTS[-1].search(text, start + limit)
    return (space.start(), space.end()) if space else (len(text), len(text))


def g2p_slices(text: str, limit: int = SLICE_CHARS) -> list[Slice]:
    """``text``, its long tokens bounded (:func:`bound_tokens`), cut at whitespace into slices of at most
    about ``limit`` characters, preferably at sentence ends, where misaki's reading carries no context
    from one word to the next (a sentence end resets it). Slices and separators put back together are
    the bounded text without its leading and trailing whitespace."""
    bounded = bound_tokens(text).strip()
    slices: list[Slice] = []
    start = 0
    while start < len(bounded):
        if len(bounded) - start <= limit:
            slices.append(Slice(bounded[start:], ""))
            break
        end, after = _cut_at(bounded, start, limit)
        slices.append(Slice(bounded[start:end], bounded[end:after]))
        start = after
    return slices


def joined(slices: list[Slice], read: list[list[Token]]) -> tuple[str, list[Token]]:
    """The phoneme string and tokens of the whole text from its slices' readings, with a space after each
    slice's last token, where misaki's reading of the whole text has one (slices end at spaces)."""
    tokens: list[Token] = []
    for piece, part in zip(slices, read):
        if part and piece.separator:
            part = [*part[:-1], part[-1]._replace(whitespace=part[-1].whitespace or " ")]
        tokens.extend(part)
    return "".join(t.phonemes + t.whitespace for t in tokens), tokens


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
