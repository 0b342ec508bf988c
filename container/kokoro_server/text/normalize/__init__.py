"""Written text to the text that is spoken, with a map back to the written characters.

The model speaks what G2P reads, so "2026-11-30" must reach G2P as words. Whatever rewrites the text also
records where each rewritten region came from, so that anything reported per written word (word timing)
stays aligned with the text the client sent: "$3.50" is one written word even when it is spoken as five.

misaki, the G2P, already reads plain numbers, money with cents ("$3.50", "£5.99", "€20"), ordinals,
4-digit years, percentages, "Dr."/"Mr."/"vs." and most acronyms right; those are left to it (measured in
docs/decisions/050-speech-normalizer.md). The rules here cover what it misreads, one module per category.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from kokoro_server.text.languages import LANGUAGES
from kokoro_server.text.normalize import abbreviations, dates, money, numeric, units, web
from kokoro_server.text.normalize.locales import locale_rules
from kokoro_server.text.normalize.rule import Rules

# Priority order: the first rule matching at a position wins (a date before a range, a URL before a
# domain-like abbreviation, money before units).
RULES = Rules([*web.RULES, *dates.RULES, *money.RULES, *units.RULES, *numeric.RULES, *abbreviations.RULES])


@dataclass(frozen=True)
class Normalized:
    """``spoken`` is what G2P reads. ``rewrites`` lists each rewritten region, in order, as
    ``(spoken_start, spoken_end, written_start, written_end)``; text outside them is copied verbatim."""

    written: str
    spoken: str
    rewrites: tuple[tuple[int, int, int, int], ...] = ()

    def written_offset(self, spoken_offset: int) -> int:
        """The written character that the spoken character at ``spoken_offset`` came from: inside a
        rewritten region, that region's first written character."""
        starts = [r[0] for r in self.rewrites]
        i = bisect.bisect_right(starts, spoken_offset) - 1
        if i < 0:
            return spoken_offset
        s_start, s_end, w_start, w_end = self.rewrites[i]
        if spoken_offset < s_end:
            return w_start
        return w_end + (spoken_offset - s_end)


def normalize(text: str, enabled: bool = True, language: str = "a") -> Normalized:
    """The spoken form of ``text`` in the language of this voice letter (``enabled=False``: every
    character spoken as written). English has the rules above, the others their own (:mod:`.locales`).

    A rewritten region is padded with a space where it would otherwise run into a neighbouring letter
    or digit ("7am" must not become "sevenAM"), except in Japanese and Chinese; the padding belongs to
    the region.
    """
    lang = LANGUAGES.get(language)
    rules = RULES if lang is not None and lang.english else locale_rules(language)
    if not enabled or rules is None:
        return Normalized(written=text, spoken=text)
    spaced = lang is None or lang.spaced  # Japanese and Chinese: no space between words
    parts: list[str] = []
    rewrites: list[tuple[int, int, int, int]] = []
    written_pos = spoken_len = 0
    for start, end, spoken in rules.rewrites(text):
        if start > written_pos:
            parts.append(text[written_pos:start])
            spoken_len += start - written_pos
        if spaced and parts and parts[-1][-1:].isalnum() and spoken[:1].isalnum():
            spoken = " " + spoken
        if spaced and end < len(text) and text[end].isalnum() and spoken[-1:].isalnum():
            spoken += " "
        parts.append(spoken)
        rewrites.append((spoken_len, spoken_len + len(spoken), start, end))
        spoken_len += len(spoken)
        written_pos = end
    parts.append(text[written_pos:])
    return Normalized(written=text, spoken="".join(parts), rewrites=tuple(rewrites))
