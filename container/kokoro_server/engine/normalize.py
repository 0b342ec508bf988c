"""Written text to the text that is spoken, with a map back to the written characters.

The model speaks what G2P reads, so "$3.50" must reach G2P as words. Whatever rewrites the text also
records where each rewritten region came from, so that anything reported per written word (word timing)
stays aligned with the text the client sent: "$3.50" is one written word even when it is spoken as five.

This module is the seam; the rules that fill ``rewrites`` live behind ``normalize``.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass


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


def normalize(text: str) -> Normalized:
    """The spoken form of ``text``. Identity for now: every character is spoken as written."""
    return Normalized(written=text, spoken=text)
