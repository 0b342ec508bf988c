"""Dates, times of day and clock durations.

"2026-11-30" and "11/30/2026" (US order) -> "November thirtieth, twenty twenty-six"; "Nov. 30, 2026" ->
"November thirtieth, 2026" (misaki reads the year); "10:45 pm" -> "ten forty-five PM"; "14:30" ->
"fourteen thirty"; "3:00" -> "three o'clock"; "1:30:00" -> "one hour thirty minutes". Time zones
("EST", "UTC") are spoken as letters by G2P already, so they are left alone.
"""

from __future__ import annotations

import re

from kokoro_server.text.normalize.numbers import cardinal, ordinal, year
from kokoro_server.text.normalize.rule import Rule

MONTHS = ("January February March April May June July August September October November December").split()
_MONTH_ABBR = {m[:3]: m for m in MONTHS} | {"Sept": "September"}
_MONTH_NAME = r"(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
_DAY = r"(0?[1-9]|[12]\d|3[01])"
_AMPM = r"(?i:([ap]\.?m\b\.?))"
_END = r"(?![\w/:-]|[.,]\d)"  # not part of a longer number, path or range


def _date(month: int, day: str, year_digits: str | None) -> str:
    words = f"{MONTHS[month - 1]} {ordinal(int(day))}"
    if year_digits:
        words += f", {year(year_digits) if len(year_digits) == 4 else cardinal(year_digits)}"
    return words


def _iso(m: re.Match) -> str:
    return _date(int(m.group(2)), m.group(3), m.group(1))


def _us(m: re.Match) -> str:
    return _date(int(m.group(1)), m.group(2), m.group(3))


def _month(m: re.Match, group: int) -> list[tuple[int, int, str]]:
    """ "Nov." -> "November"; a full month name without a period is left as written."""
    name, start, end = m.group(group), m.start(group), m.end(group)
    dotted = m.string[end : end + 1] == "."
    full = _MONTH_ABBR.get(name, name)
    return [(start, end + dotted, full)] if dotted or full != name else []


def _named(m: re.Match) -> list[tuple[int, int, str]]:
    """ "Nov. 30th" -> "November thirtieth": a following year is left for G2P, which reads years."""
    return [*_month(m, 1), (m.start(2), m.end(2), ordinal(int(m.group(3))))]


def _day_first(m: re.Match) -> list[tuple[int, int, str]]:
    """ "30 November" / "30th of Nov." -> "the thirtieth of November"."""
    return [(m.start(1), m.end(1), f"the {ordinal(int(m.group(2)))} of"), *_month(m, 3)]


def _ampm(m: re.Match, group: int) -> tuple[int, int, str]:
    """ "pm" / "p.m." -> "PM"; a final period that also ends the sentence is kept."""
    start, end = m.start(group), m.end(group)
    said = m.group(group)[0].upper() + "M"
    following = m.string[end : end + 2]
    if m.string[end - 1] == "." and (not following or (following[0] == " " and following[1:].isupper())):
        said += "."
    return start, end, said


def _clock(m: re.Match) -> list[tuple[int, int, str]]:
    hour, minute, second, ampm = int(m.group(1)), m.group(2), m.group(3), m.group(4)
    if second is not None:  # h:mm:ss is a duration ("1:30:00"), said in units
        units = [(hour, "hour"), (int(minute), "minute"), (int(second), "second")]
        said = " ".join(f"{cardinal(str(n))} {unit}{'s' if n != 1 else ''}" for n, unit in units if n)
        return [(m.start(1), m.end(3), said or "zero seconds")]
    if minute == "00":
        said = cardinal(str(hour)) + ("" if ampm else " o'clock" if 1 <= hour <= 12 else " hundred")
    elif minute.startswith("0"):
        said = f"{cardinal(str(hour))} oh {cardinal(minute[1])}"
    else:
        said = f"{cardinal(str(hour))} {cardinal(minute)}"
    parts = [(m.start(1), m.end(2), said)]
    if ampm:
        parts.append(_ampm(m, 4))
    return parts


def _hour(m: re.Match) -> list[tuple[int, int, str]]:
    return [(m.start(1), m.end(1), cardinal(m.group(1))), _ampm(m, 2)]


def _said_time(hour: str, minute: str | None) -> str:
    if not minute or minute == "00":
        return cardinal(hour)
    return f"{cardinal(hour)} {'oh ' + cardinal(minute[1]) if minute.startswith('0') else cardinal(minute)}"


def _hour_range(m: re.Match) -> list[tuple[int, int, str]]:
    """ "9-10 am" -> "nine to ten AM", "9:30-11 a.m." -> "nine thirty to eleven AM"."""
    said = f"{_said_time(m.group(1), m.group(2))} to {_said_time(m.group(3), m.group(4))}"
    return [(m.start(1), max(m.end(3), m.end(4)), said), _ampm(m, 5)]


RULES = [
    Rule("iso_date", rf"(?<![\w./-])(\d{{4}})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01]){_END}", _iso),
    Rule("us_date", rf"(?<![\w./-])(0?[1-9]|1[0-2])/{_DAY}/(\d{{4}}|\d{{2}}){_END}", _us),
    Rule("named_date", rf"\b{_MONTH_NAME}\.? ({_DAY}(?:st|nd|rd|th)?)(?=[\s,.;:!?)]|$)", _named),
    Rule("day_month", rf"(?<![\w.,])({_DAY}(?:st|nd|rd|th)?(?: of)?) {_MONTH_NAME}\b", _day_first),
    Rule(
        "hour_range",
        rf"(?<![\w:.])(1[0-2]|0?[1-9])(?::([0-5]\d))?\s?[-–]\s?(1[0-2]|0?[1-9])(?::([0-5]\d))?\s?{_AMPM}",
        _hour_range,
    ),
    Rule("clock", rf"(?<![\w:.])([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(?:\s?{_AMPM})?(?![\w:]|\.\d)", _clock),
    Rule("hour_ampm", rf"(?<![\w:.])(1[0-2]|0?[1-9])\s?{_AMPM}", _hour),
]
