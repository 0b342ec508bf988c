"""A long text cut into bounded slices for G2P, and the slices' readings joined back into the whole's.

misaki reads a whole text in one call; a 4 KB URL-like text takes seconds, and a listener whose "Hello."
waited behind it waited that long (docs/decisions/130-fair-g2p-slices.md). So a text is read in slices
(:class:`~kokoro_server.text.reading.Reading`, one slice per step), cut where misaki's reading carries no
context across the cut, and the slices' phonemes joined equal the whole text's
(tests/container/test_g2p_slices.py), so what is heard does not change.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from kokoro_server.text.phonemes import Token, bound_tokens

# G2P reads a long text in slices of about this many characters, so that another listener's text waits
# for one slice at most, never for a whole long text (docs/decisions/130-fair-g2p-slices.md).
SLICE_CHARS = 300
# Where a slice may end, preferred first: spaces between words after a sentence end, after a clause, any
# spaces between words (there misaki's whole reading puts a space too, so the chunks come out the same;
# at a line break it may join the lines' phonemes), and any whitespace last.
_SLICE_CUTS = tuple(
    re.compile(pattern) for pattern in (r"(?<=[.!?]) +(?=\S)", r"(?<=[,;:—…]) +(?=\S)", r"(?<=\S) +(?=\S)", r"\s+")
)


class Slice(NamedTuple):
    """One bounded run of a (bounded) text and the whitespace that separated it from the next one."""

    text: str
    separator: str


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
    for text_slice, part in zip(slices, read):
        if part and text_slice.separator:
            part = [*part[:-1], part[-1]._replace(whitespace=part[-1].whitespace or " ")]
        tokens.extend(part)
    return "".join(t.phonemes + t.whitespace for t in tokens), tokens
