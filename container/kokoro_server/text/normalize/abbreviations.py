"""Titles, abbreviations, symbols and the acronyms G2P says wrong.

misaki already says "Dr. Patel", "Mr.", "Mrs.", "Ms.", "vs.", "etc.", "No. 5", "&", "+", "=", "@", and
spells capitalised acronyms ("FBI", "API") while reading the ones that are words ("NASA", "NATO").
This adds what it misses: "e.g.", "i.e.", "Prof.", "Jr.", "St." as Saint or Street and "Dr." as Doctor or
Drive by context, "#1", "and/or", and acronyms its lexicon mistakes for words ("AWS" as "awes").
"""

from __future__ import annotations

import re

from kokoro_server.text.normalize.rule import Rule

ABBREVIATIONS = {
    "e.g.": "for example",
    "i.e.": "that is",
    "approx.": "approximately",
    "Prof.": "Professor",
    "Jr.": "Junior",
    "Sr.": "Senior",
    "Gen.": "General",
    "Capt.": "Captain",
    "Lt.": "Lieutenant",
    "Sgt.": "Sergeant",
    "Gov.": "Governor",
    "Sen.": "Senator",
    "Mt.": "Mount",
    "Ave.": "Avenue",
    "Rd.": "Road",
    "Blvd.": "Boulevard",
    "Inc.": "Incorporated",
    "Ltd.": "Limited",
    "Corp.": "Corporation",
    "Dept.": "Department",
    "dept.": "department",
    "w/o": "without",
    "w/": "with",
}
# (title before a name, street word after one); misaki keeps the period of "St.", which would end the
# sentence inside "St. Louis", so "Saint" is written out.
_PLACES = {"St.": ("Saint", "Street"), "Dr.": ("Doctor", "Drive")}
# Capitalised words that open sentences, so "Main St. The shop" is a street, not "Saint The".
_SENTENCE_OPENERS = frozenset(
    "A An And But He I If In It My Our She So That The Then There These They This We What When You".split()
)
# Spelled as letters: misaki's lexicon reads these as words.
ACRONYMS = {"AWS": "A W S", "JSON": "Jason", "iOS": "eye O S", "SaaS": "sass", "GIF": "gif"}
SYMBOLS = {
    "~": "about ",
    "±": "plus or minus ",
    "×": "times",
    "÷": "divided by",
    "≈": "approximately",
    "≤": "less than or equal to",
    "≥": "greater than or equal to",
    "≠": "not equal to",
    "→": "to",
}


def _place(m: re.Match) -> str | None:
    """ "St. Louis" -> "Saint Louis", "Main St." -> "Main Street"; "Elm Dr." -> "Elm Drive" ("Dr. Patel"
    is left to G2P, which says "Doctor")."""
    title, street = _PLACES[m.group()]
    after = re.match(r" ([A-Z][a-z]+)", m.string[m.end() : m.end() + 30])
    before = re.search(r"([A-Z][a-z]+|\d+) $", m.string[max(0, m.start() - 30) : m.start()])
    if (after and after.group(1) not in _SENTENCE_OPENERS) or not before:
        return None if title == "Doctor" else title
    return street


def _hash(m: re.Match) -> str:
    """ "#1" -> "number one"; "#python" -> "hashtag python"."""
    return "number " if m.group(1).isdigit() else "hashtag "


def _slash(m: re.Match) -> str:
    """ "and/or" -> "and or", "yes/no" -> "yes or no", "TCP/IP" -> "TCP IP"."""
    left, right = m.group(1), m.group(2)
    if left.isupper() and right.isupper() or (left, right) == ("and", "or"):
        return f"{left} {right}"
    return f"{left} or {right}"


def _words(table: dict[str, str]) -> str:
    return "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True))


RULES = [
    Rule("abbreviation", rf"(?<![\w.])(?:{_words(ABBREVIATIONS)})(?!\w)", lambda m: ABBREVIATIONS[m.group()]),
    Rule("saint_street", r"(?<![\w.])(?:St|Dr)\.", _place),
    Rule("acronym", rf"\b(?:{_words(ACRONYMS)})\b", lambda m: ACRONYMS[m.group()]),
    Rule("hash", r"(?<![\w#&])#(?=(\d|[^\W\d]))", _hash),
    Rule("slash", r"(?<![\w/])([^\W\d_]{2,})/([^\W\d_]{2,})(?![\w/])", _slash),
    Rule("symbol", rf"(?:{_words(SYMBOLS)})", lambda m: SYMBOLS[m.group()]),
]
