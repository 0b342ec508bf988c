"""E-mail addresses, URLs, domains and phone numbers, read the way people dictate them.

"support@example.com" -> "support at example dot com"; "https://example.com/help" -> "example dot com
slash help" (nobody says the scheme); "555-0123" -> "five five five, zero one two three".
"""

from __future__ import annotations

import re

from kokoro_server.text.normalize.numbers import cardinal, digit_by_digit
from kokoro_server.text.normalize.rule import Rule

_SEPARATORS = {
    ".": "dot",
    "_": "underscore",
    "-": "dash",
    "+": "plus",
    "/": "slash",
    "?": "question mark",
    "=": "equals",
    "&": "and",
    "#": "hash",
    "%": "percent",
    ":": "colon",
    "~": "tilde",
    "@": "at",
}
_RUN = re.compile(r"\d+|[^\W\d_]+|.", re.S)
_TLDS = (
    "com|org|net|edu|gov|io|ai|dev|app|co|uk|us|ca|de|fr|eu|info|biz|me|tv|ly|gg|xyz|cloud|tech|news|shop|site|online"
)
# A URL or domain never ends with sentence punctuation: "see example.com." ends the sentence.
_TAIL = r"(?:[/?#][^\s<>\"']*[^\s<>\"'.,;:!?)\]}])?"


def _say_address(text: str) -> str:
    """Letters stay (G2P reads words and spells capitals), digits one by one, separators by name."""
    words = []
    for run in _RUN.findall(text):
        if run.isdigit():
            words.append(digit_by_digit(run))
        elif run.isalpha():
            words.append(run)
        elif run in _SEPARATORS:
            words.append(_SEPARATORS[run])
        elif not run.isspace():
            words.append(run)
    return " ".join(words)


def _url(m: re.Match) -> str:
    address = re.sub(r"^(?i:https?://)", "", m.group())
    if address.lower().startswith("www."):
        return "W W W dot " + _say_address(address[4:])
    return _say_address(address)


def _phone_group(digits: str) -> str:
    """ "800" -> "eight hundred" (as toll-free numbers are said), otherwise digit by digit."""
    if len(digits) == 3 and digits.endswith("00") and digits[0] != "0":
        return cardinal(digits)
    return digit_by_digit(digits)


def _phone(m: re.Match) -> str:
    text = m.group()
    groups = [_phone_group(g) for g in re.findall(r"\d+", text)]
    return ("plus " if text.startswith("+") else "") + ", ".join(groups)


RULES = [
    Rule(
        "email", r"(?<![\w.+-])[\w.%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?![\w@-])", lambda m: _say_address(m.group())
    ),
    Rule("url", r"(?<![\w/])(?i:https?://|www\.)[^\s<>\"']*[^\s<>\"'.,;:!?)\]}]", _url),
    Rule(
        "domain", rf"(?<![\w@./-])(?:[A-Za-z0-9-]+\.)+(?i:{_TLDS})(?![\w-]){_TAIL}", lambda m: _say_address(m.group())
    ),
    # North American (with area code, optional +1 or 1-), then a 7-digit local number, then international.
    Rule("phone_nanp", r"(?<![\w+.-])(?:\+?1[-. ])?(?:\(\d{3}\) ?|\d{3}[-.])\d{3}[-.]\d{4}(?![\w-]|\.\d)", _phone),
    Rule("phone_local", r"(?<![\w+.-])\d{3}-\d{4}(?![\w-]|\.\d)", _phone),
    Rule("phone_intl", r"(?<![\w+])\+\d{1,3}(?:[ -]\d{1,4}){2,5}(?![\w-]|\.\d)", _phone),
]
