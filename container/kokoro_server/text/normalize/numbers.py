"""Numbers as words, the American way: num2words supplies the words, these helpers the reading.

num2words writes British "and" and commas ("one thousand, two hundred and thirty-four"); misaki drops
both when it reads digits itself, so every rule here does too and the two read numbers alike.
Digit strings may hold any Unicode decimal digits ("١٢٣"); ``int`` reads them all.
"""

from __future__ import annotations

import re
import unicodedata

from num2words import num2words

# Past this many digits a person reads the digits, not "ten duodecillion"; it also keeps num2words
# (which overflows past 10**66) and int() (4,300-digit limit) away from hostile input.
MAX_CARDINAL_DIGITS = 15
_DIGIT_WORDS = "zero one two three four five six seven eight nine".split()
_AND = re.compile(r",|\band\b ?")


def _clean(words: str) -> str:
    return " ".join(_AND.sub("", words).split())


def ascii_digits(digits: str) -> str:
    return "".join(str(unicodedata.decimal(c)) if not c.isascii() else c for c in digits)


def digit_by_digit(digits: str) -> str:
    """ "0123" -> "zero one two three": for phone numbers, long runs and codes."""
    return " ".join(_DIGIT_WORDS[unicodedata.decimal(c)] for c in digits if c.isdigit())


def cardinal(digits: str) -> str:
    """An integer written with optional thousands separators ("3,497"), read as a whole number."""
    plain = digits.replace(",", "")
    if len(plain) > MAX_CARDINAL_DIGITS:
        return digit_by_digit(plain)
    return _clean(num2words(int(plain)))


def number(text: str) -> str:
    """An unsigned decimal ("3,497.50", "0.5", ".5") in words; the fraction is read digit by digit."""
    whole, _, fraction = text.partition(".")
    words = cardinal(whole) if whole else ""
    if fraction:
        words = f"{words} point {digit_by_digit(fraction)}".strip()
    return words


def signed(text: str) -> str:
    """A number with an optional leading minus (ASCII hyphen or U+2212)."""
    if text[:1] in "-\u2212":
        return "minus " + number(text[1:])
    return number(text)


def ordinal(n: int) -> str:
    return _clean(num2words(n, to="ordinal"))


def year(digits: str) -> str:
    """ "2026" -> "twenty twenty-six", "1905" -> "nineteen oh-five", "2005" -> "two thousand five"."""
    return _clean(num2words(int(digits), to="year"))


def is_one(text: str) -> bool:
    """Whether a written quantity takes the singular ("1 km", but "1.5 km" and "0 km" are plural)."""
    return text.lstrip("+-\u2212").replace(",", "") == "1"
