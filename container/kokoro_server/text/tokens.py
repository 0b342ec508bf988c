"""One token of a text as G2P read it: what word timing needs, small to send between processes."""

from __future__ import annotations

from typing import NamedTuple


class Token(NamedTuple):
    """What word timing needs of one misaki token (misaki's own ``MToken`` holds spaCy state): small to
    send between processes."""

    text: str
    phonemes: str
    whitespace: str
