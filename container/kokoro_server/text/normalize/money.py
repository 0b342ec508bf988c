"""Money that G2P misreads: scaled amounts, negative amounts, money ranges, yen and lone symbols.

misaki reads "$3.50", "£5.99", "€20" and "$1.2 billion" right, so those are left to it. It reads "$5M" as
"five M dollars", drops "-$5" and "$$$" entirely, and has no yen.
"""

from __future__ import annotations

import re

from kokoro_server.text.normalize.numbers import number
from kokoro_server.text.normalize.rule import Rule

CURRENCY = {"$": ("dollar", "dollars"), "€": ("euro", "euros"), "£": ("pound", "pounds"), "¥": ("yen", "yen")}
SCALES = {
    "K": "thousand",
    "k": "thousand",
    "M": "million",
    "m": "million",
    "MM": "million",
    "B": "billion",
    "b": "billion",
    "bn": "billion",
    "BN": "billion",
    "T": "trillion",
    "tn": "trillion",
}
_SYMBOL = "[$€£¥]"
_SCALE = "|".join(sorted(SCALES, key=len, reverse=True))


def _scaled(m: re.Match) -> str:
    """ "$5M" -> "five million dollars", "€1.2bn" -> "one point two billion euros"."""
    return f"{number(m.group(2))} {SCALES[m.group(3)]} {CURRENCY[m.group(1)][1]}"


def _lone(m: re.Match) -> str:
    """A currency sign with no amount is still said ("$$$" -> "dollar dollar dollar"), never dropped."""
    return " ".join(CURRENCY[c][0] for c in m.group())


def _range(m: re.Match) -> list[tuple[int, int, str]]:
    """ "$10-20" / "$10-$20" -> "$10 to $20": the dash becomes "to", the second amount gets the symbol."""
    return [(m.start(3), m.end(3), f" to {m.group(1)}")]


RULES = [
    Rule("money_scaled", rf"(?<![\w$€£¥])({_SYMBOL})(\d+(?:\.\d+)?)({_SCALE})(?!\w)", _scaled),
    Rule("money_negative", rf"(?<![\w$€£¥.,])[-\u2212](?={_SYMBOL}\d)", lambda m: "minus "),
    Rule("money_range", rf"(?<![\w.,])({_SYMBOL})(\d[\d,]*(?:\.\d\d)?)(\s?[-–]\s?[$€£¥]?)(?=\d)", _range),
    Rule("yen", r"(?<![\w.,])¥(\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\d)", lambda m: f"{number(m.group()[1:])} yen"),
    Rule("currency_alone", rf"{_SYMBOL}+(?!\s?[\d.])", _lone),
]
