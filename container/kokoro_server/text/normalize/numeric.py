"""Numbers G2P misreads or cannot read: ranges, powers, fractions, versions, very long and non-ASCII digits.

misaki reads "3,497", "-5", "3.14", "3rd" and "10,000,000,000,000,000" right and those are left to it;
it reads "2020-2024" as "twenty twenty twenty twenty-four", "10^30" as "ten thirty", "1/2" as "one two",
"v2.1" as "V two one", and a 5,000-digit number makes it raise (Python's int-from-string limit).
"""

from __future__ import annotations

import re

from kokoro_server.text.normalize.numbers import (
    MAX_CARDINAL_DIGITS,
    ascii_digits,
    cardinal,
    digit_by_digit,
    number,
    ordinal,
    signed,
    year,
)
from kokoro_server.text.normalize.rule import Rule

_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_FRACTION_NAMES = {2: ("half", "halves"), 4: ("quarter", "quarters")}
# A capitalised word before "3.12" names a product with a version ("Python 3.12" -> "three point
# twelve"), unless it is one of the words that start sentences or clauses.
_NOT_PRODUCTS = frozenset(
    """A About After All Almost An And Around As At Before But By Each Every For From
Give Half If In Is It Just Nearly Of On Only Or Over Pay Roughly Some That The Then To Total Under Up Was We
With""".split()
)
_WORD_BEFORE = re.compile(r"([A-Za-z][\w-]*) $")


def _is_year(digits: str) -> bool:
    return len(digits) == 4 and 1000 <= int(digits) < 2100


def _range(m: re.Match) -> str:
    """ "2020-2024" -> "twenty twenty to twenty twenty-four"; "3-7" -> "three to seven"."""
    low, high = m.group(1), m.group(2)
    if _is_year(low) and _is_year(high):
        return f"{year(low)} to {year(high)}"
    if _is_year(low) and len(high) == 2:  # "2024-25"
        return f"{year(low)} to {cardinal(high)}"
    return f"{number(low)} to {number(high)}" + (" percent" if m.group(3) else "")


def _power(m: re.Match) -> str:
    base, exponent = m.group(1), m.group(2).translate(_SUPERSCRIPT)
    if exponent == "2":
        return f"{number(base)} squared"
    if exponent == "3":
        return f"{number(base)} cubed"
    return f"{number(base)} to the power of {signed(exponent)}"


def _scientific(m: re.Match) -> str:
    return f"{signed(m.group(1))} times ten to the power of {signed(m.group(2).lstrip('+'))}"


def _fraction(m: re.Match) -> str | None:
    """ "1/2" -> "one half", "3/4" -> "three quarters", "2/3" -> "two thirds"; "24/7" is "twenty-four seven"."""
    top, bottom = int(m.group(1)), int(m.group(2))
    if (top, bottom) == (24, 7):
        return "twenty-four seven"
    if not 0 < top < bottom <= 10:
        return None
    singular, plural = _FRACTION_NAMES.get(bottom, (ordinal(bottom), ordinal(bottom) + "s"))
    return f"{cardinal(str(top))} {singular if top == 1 else plural}"


def _version(m: re.Match) -> str:
    """ "v2.1" -> "version two point one", "2.0.1" -> "two point zero point one"; four parts are an
    IP address: "192.168.0.1" -> "one ninety-two dot ..." is not attempted, each part is a number."""
    parts = m.group(2).split(".")
    said = [cardinal(p) if not p.startswith("0") or p == "0" else digit_by_digit(p) for p in parts]
    return ("version " if m.group(1) else "") + (" dot " if len(parts) == 4 else " point ").join(said)


def _product_version(m: re.Match) -> str | None:
    """ "Python 3.12" -> "three point twelve"; a plain decimal ("pi is 3.14") is left to G2P."""
    before = _WORD_BEFORE.search(m.string, max(0, m.start() - 40), m.start())
    name = before.group(1) if before else ""
    if not (name[:1].isupper() and name not in _NOT_PRODUCTS) and name.lower() != "version":
        return None
    major, minor = m.group().split(".")
    return f"{cardinal(major)} point {cardinal(minor) if not minor.startswith('0') else digit_by_digit(minor)}"


def _long(m: re.Match) -> str:
    """More digits than anyone reads as one number (or num2words can: it overflows past 10**66; G2P
    raises past Python's 4,300-digit int limit, and reads a long fraction through a float, losing
    digits): every digit is said, one by one."""
    return number(m.group().replace(",", ""))


def _non_ascii(m: re.Match) -> str:
    """Digits of another script ("١٢٣") become ASCII digits, which G2P reads as numbers."""
    return ascii_digits(m.group())


RULES = [
    Rule("version", r"(?<![\w.])([vV])?(\d+(?:\.\d+){2,3})(?![\w]|\.\d)", _version),
    Rule("version_v", r"(?<![\w.])([vV])(\d+(?:\.\d+)*)(?![\w]|\.\d)", _version),
    Rule("scientific", r"(?<![\w.])(\d+(?:\.\d+)?)[eE]([-+]?\d{1,3})(?!\w)", _scientific),
    Rule("power", r"(?<![\w.])(\d+(?:\.\d+)?)(?:\^|\*\*)([-\u2212]?\d{1,3})(?!\d)", _power),
    Rule("superscript", r"(?<![\w.])(\d+(?:\.\d+)?)([⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)", _power),
    Rule("fraction", r"(?<![\w./])(\d{1,2})/(\d{1,2})(?![\w/]|\.\d)", _fraction),
    Rule("range", rf"(?<![\w.,/-])({_NUM})(?:-|\s?–\s?)({_NUM})(%?)(?![\w/-]|[.,]\d)", _range),
    Rule(
        "long_number",
        rf"(?<![\d,.])(?:\d{{{MAX_CARDINAL_DIGITS + 1},}}(?:\.\d+)?|\d+\.\d{{{MAX_CARDINAL_DIGITS + 1},}})(?!\d)",
        _long,
    ),
    Rule("long_grouped_number", r"(?<![\d,])\d{1,3}(?:,\d{3}){9,}(?![\d,])", _long),
    Rule("non_ascii_digits", r"(?<!\d)[0-9]*(?:(?![0-9])\d)\d*(?:\.\d+)?", _non_ascii),
    Rule("product_version", r"(?<![\w.,])\d{1,3}\.\d{1,3}(?![\w]|\.\d)", _product_version),
]
