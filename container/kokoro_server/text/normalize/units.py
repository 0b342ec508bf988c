"""A number with a unit: "5 kg" -> "five kilograms", "1 km" -> "one kilometer", "72°F" -> "seventy-two
degrees Fahrenheit", "2h 30m" -> "two hours thirty minutes".

G2P spells unit symbols as letters ("kg" -> "K G"). The number and the unit are rewritten as two
regions, so a unit written as its own word stays its own word. Only symbols that are units after a
number are listed; ambiguous ones ("in", "s", "t") are left as written.
"""

from __future__ import annotations

import re

from kokoro_server.text.normalize.numbers import is_one, signed
from kokoro_server.text.normalize.rule import Rule

# symbol: (singular, plural)
UNITS = {
    "mg": ("milligram", "milligrams"),
    "g": ("gram", "grams"),
    "kg": ("kilogram", "kilograms"),
    "lb": ("pound", "pounds"),
    "lbs": ("pound", "pounds"),
    "oz": ("ounce", "ounces"),
    "mm": ("millimeter", "millimeters"),
    "cm": ("centimeter", "centimeters"),
    "m": ("meter", "meters"),
    "km": ("kilometer", "kilometers"),
    "ft": ("foot", "feet"),
    "mi": ("mile", "miles"),
    "ml": ("milliliter", "milliliters"),
    "mL": ("milliliter", "milliliters"),
    "L": ("liter", "liters"),
    "km/h": ("kilometer per hour", "kilometers per hour"),
    "kph": ("kilometer per hour", "kilometers per hour"),
    "mph": ("mile per hour", "miles per hour"),
    "m/s": ("meter per second", "meters per second"),
    "°F": ("degree Fahrenheit", "degrees Fahrenheit"),
    "°C": ("degree Celsius", "degrees Celsius"),
    "°": ("degree", "degrees"),
    "¢": ("cent", "cents"),
    "KB": ("kilobyte", "kilobytes"),
    "kB": ("kilobyte", "kilobytes"),
    "MB": ("megabyte", "megabytes"),
    "GB": ("gigabyte", "gigabytes"),
    "TB": ("terabyte", "terabytes"),
    "Mbps": ("megabit per second", "megabits per second"),
    "Gbps": ("gigabit per second", "gigabits per second"),
    "Hz": ("hertz", "hertz"),
    "kHz": ("kilohertz", "kilohertz"),
    "MHz": ("megahertz", "megahertz"),
    "GHz": ("gigahertz", "gigahertz"),
    "W": ("watt", "watts"),
    "kW": ("kilowatt", "kilowatts"),
    "kWh": ("kilowatt hour", "kilowatt hours"),
    "V": ("volt", "volts"),
    "mAh": ("milliamp hour", "milliamp hours"),
    "ms": ("millisecond", "milliseconds"),
    "sec": ("second", "seconds"),
    "secs": ("second", "seconds"),
    "min": ("minute", "minutes"),
    "mins": ("minute", "minutes"),
    "h": ("hour", "hours"),
    "hr": ("hour", "hours"),
    "hrs": ("hour", "hours"),
}
_NUMBER = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_SYMBOLS = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))


def _unit(m: re.Match) -> list[tuple[int, int, str]]:
    """Groups: 1 the whole amount, 2 its (signed) number, 3 the upper end of a range ("5-10 kg"), 4 the unit."""
    low, high, symbol = m.group(2), m.group(3), m.group(4)
    said = f"{signed(low)} to {signed(high)}" if high else signed(low)
    singular, plural = UNITS[symbol]
    return [(m.start(1), m.end(1), said), (m.start(4), m.end(4), singular if is_one(low) and not high else plural)]


def _hours_minutes(m: re.Match) -> list[tuple[int, int, str]]:
    """ "2h 30m" / "2h30min": here "m" is minutes, not meters."""
    hours, minutes = m.group(1), m.group(3)
    return [
        (m.start(1), m.end(2), f"{signed(hours)} {'hour' if is_one(hours) else 'hours'}"),
        (m.start(3), m.end(4), f"{signed(minutes)} {'minute' if is_one(minutes) else 'minutes'}"),
    ]


RULES = [
    Rule(
        "hours_minutes", r"(?<![\w.,])(\d+)(\s?h(?:rs?|ours?)?)\s?(\d+)(\s?m(?:ins?|inutes?)?)(?![\w/])", _hours_minutes
    ),
    Rule("unit", rf"(?<![\w.,])(([-\u2212]?{_NUMBER})(?:[-–]({_NUMBER}))?) ?({_SYMBOLS})(?![\w/°])", _unit),
]
