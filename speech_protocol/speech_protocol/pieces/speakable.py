"""Text written for eyes made speakable: markdown symbols never reach the synthesizer.

An LLM answers in markdown; Kokoro would read ``**``, ``#`` and link targets aloud or stumble on them.
The segmenter cuts the stream into single-line pieces first and hands each one here, so every rule below
works on one piece and stays correct when markup spans two pieces: ``**A. B**`` arrives as ``**A.`` and
``B**``, and ``[a. b](url)`` as ``[a.`` and ``b](url)``. Each rule therefore deletes a symbol on its own
(an unpaired ``**``, an orphan ``](url)``) instead of matching pairs. Line-level markup (headings, bullets,
quotes) only counts at the start of a line, which the segmenter knows and passes as ``line_start``.

Nothing here grows a piece (deletions, a URL shortened to its host, ``_`` turned into a space), so a
piece cut below the segmenter's maximum stays below it.
"""

from __future__ import annotations

import re

# A fence line opens or closes a code block (CommonMark: ``` or ~~~, optionally with an info string).
_FENCE = re.compile(r"(?:`{3,}|~{3,})")
# Line-start markup: blockquote markers, then an ATX heading or an unordered bullet. Numbered list
# markers ("1.") stay: the number is information the listener needs.
_QUOTE_MARKERS = re.compile(r"^(?:>\s?)+")
_HEADING = re.compile(r"^#{1,6}(?:\s+|$)")
_BULLET = re.compile(r"^[-*+•]\s+")
_CLOSING_HASHES = re.compile(r"\s+#+\s*$")
# A link's or image's target, with an optional title and one level of parentheses inside the URL
# (Wikipedia style); the link text before it is kept.
_LINK_TARGET = re.compile(r"\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\)")
_LINK_TEXT_BRACKETS = re.compile(r"!?\[|\]")
# A bare or <autolinked> URL is spoken as its host: "example.com", not a string of slashes. Trailing
# sentence punctuation belongs to the sentence, so it is kept after the host.
_URL = re.compile(r"<?\b(?:https?|ftp)://[^\s<>]*>?")
_HOST = re.compile(r"://(?:www\.)?([^/?#:@\[\]()]*)")
_URL_TRAILING = ".,;:!?'\")]"
# Emphasis, strike-through and inline-code delimiters, deleted wherever they stand.
_DELIMITERS = re.compile(r"\*+|~~+|`+")
_UNDERSCORES = re.compile(r"_+")
_TABLE_BARS = re.compile(r"\|")
_SPACES = re.compile(r"\s+")


def is_fence(line: str) -> bool:
    """True when a line (stripped of its indentation) opens or closes a fenced code block."""
    return _FENCE.match(line.lstrip()) is not None


def has_words(text: str) -> bool:
    """True when the text holds a letter or digit: pieces of bare punctuation or symbols are not spoken."""
    return any(ch.isalnum() for ch in text)


def speakable(piece: str, *, line_start: bool, in_code: bool = False) -> str:
    """The piece as the synthesizer should read it, or "" when nothing in it can be spoken.

    ``line_start``: the piece begins a line, so a leading ``#``, ``-`` or ``>`` is markup, not text.
    ``in_code``: the piece is a line of a fenced code block; its symbols are the content, so only the
    whitespace is tidied.
    """
    text = piece.strip()
    if not in_code:
        if line_start:
            text = _strip_line_markup(text)
        text = _LINK_TARGET.sub("", text)
        text = _LINK_TEXT_BRACKETS.sub("", text)
        text = _URL.sub(_host_of, text)
        text = _DELIMITERS.sub("", text)
        text = _UNDERSCORES.sub(" ", text)
        text = _TABLE_BARS.sub(" ", text)
    text = _SPACES.sub(" ", text).strip()
    return text if has_words(text) else ""


def _strip_line_markup(line: str) -> str:
    line = _QUOTE_MARKERS.sub("", line)
    if _HEADING.match(line):
        return _CLOSING_HASHES.sub("", _HEADING.sub("", line))
    return _BULLET.sub("", line)


def _host_of(url: re.Match[str]) -> str:
    """A matched URL's host, followed by the sentence punctuation that trailed the URL."""
    body = url.group(0).strip("<>")
    address = body.rstrip(_URL_TRAILING)
    host = _HOST.search(address)
    return (host.group(1) if host else "") + body[len(address) :]
