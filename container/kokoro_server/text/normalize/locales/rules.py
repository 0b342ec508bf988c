"""The rule shapes every language shares, built from its :class:`~.tables.Locale`: a number with
thousands separators or a decimal comma, money with its sign before or after the amount, a time
("10:30", "10h30"), a day-first date ("5/12/2026"), an ordinal ("2.º", "2e") and, where the G2P drops it,
the percent sign. Each pattern starts with a lookbehind that fails inside a number, so a long digit run is
tried once (the linear-time habit of :mod:`kokoro_server.text.normalize.rule`)."""

from __future__ import annotations

import re

from kokoro_server.text.normalize.locales.tables import Locale
from kokoro_server.text.normalize.numbers import ascii_digits
from kokoro_server.text.normalize.rule import Rule

# "un millón de euros", "un million d'euros", "un milione di euro", "um milhão de reais"
_MILLIONS = ("llón", "llones", "million", "millions", "lione", "lioni", "lhão", "lhões")


def _letter(locale: Locale) -> str:
    """What a number may not touch: a letter or digit; in Japanese and Chinese, where a number sits right
    against the characters around it ("は3,500円です"), only a Latin one."""
    return r"\w" if locale.spaced else r"[0-9A-Za-z_]"


def _starts(locale: Locale) -> str:
    return rf"(?<!{_letter(locale)})(?<![.,:/])"


def _ends(locale: Locale) -> str:
    return rf"(?!{_letter(locale)}|[.,:/]\d)"


def _integer(locale: Locale) -> str:
    """Digits with optional thousands groups: "1.250" / "1 250" / "1,250" (Hindi also "1,25,000")."""
    group = f"[{re.escape(locale.group)}]"
    if locale.letter == "h":
        return rf"\d{{1,3}}(?:{group}\d{{2}})*{group}\d{{3}}|\d+"
    return rf"\d{{1,3}}(?:{group}\d{{3}})+|\d+"


def _digits(locale: Locale, written: str) -> str:
    """ "1.250" -> "1250": the number without its thousands separators."""
    return re.sub(f"[{re.escape(locale.group)}]", "", written)


def _say_integer(locale: Locale, written: str) -> str:
    return _digits(locale, written) if locale.spell is None else locale.spell(_digits(locale, written))


def _number_rule(locale: Locale) -> Rule:
    """A grouped integer or a decimal: "1.250" -> "mil doscientos cincuenta", "3,5" -> "tres coma cinco"."""
    decimal = re.escape(locale.decimal)

    def speak(m: re.Match) -> str | None:
        whole, fraction = m.group(1), m.group(2)
        if fraction is None and _digits(locale, whole) == whole:
            return None  # a plain integer: every G2P here reads it
        said = _say_integer(locale, whole)
        if fraction is None:
            return said
        if locale.decimal_word is None or locale.spell is None:
            return f"{said}{locale.decimal}{fraction}"
        after = " ".join(map(locale.spell, fraction)) if fraction.startswith("0") else locale.spell(fraction)
        return f"{said} {locale.decimal_word} {after}"

    return Rule(
        f"{locale.letter}_number",
        rf"{_starts(locale)}({_integer(locale)})(?:{decimal}(\d{{1,6}}))?{_ends(locale)}",
        speak,
    )


def _money_rule(locale: Locale) -> Rule:
    """ "3,50 €" / "$3.50" / "R$ 20" -> the amount, then the currency's name, then the cents."""
    signs = "|".join(re.escape(s) for s in sorted(locale.currencies, key=len, reverse=True))
    amount = rf"({_integer(locale)})(?:[.,](\d\d))?"

    def speak(m: re.Match) -> str:
        sign = m.group(1) or m.group(6)
        whole, cents = (m.group(2), m.group(3)) if m.group(1) else (m.group(4), m.group(5))
        singular, plural = locale.currencies[sign]
        units = _digits(locale, whole)
        if locale.spell is None:
            number = f"{units}{locale.cents}{cents}" if cents else units
            return f"{number}{locale.money_space}{plural}"
        one = ascii_digits(units).lstrip("0") == "1"
        number = locale.one if one and locale.one else locale.spell(units)
        of = f"{locale.of_millions} " if number.endswith(_MILLIONS) else ""
        said = f"{number} {of}{singular if one else plural}".replace("' ", "'")
        return f"{said}{locale.cents}{locale.spell(cents)}" if cents and int(cents) else said

    return Rule(
        f"{locale.letter}_money",
        rf"{_starts(locale)}(?<![$€£¥₹])(?:({signs})\s?{amount}|{amount}\s?({signs}))(?!{_letter(locale)}|[$€£¥₹]|[.,]\d)",
        speak,
    )


def _time_rule(locale: Locale) -> Rule:
    """ "10:30" (and "10h30", "10h" where the language writes times so) -> the hour and its minutes."""
    hour = r"([01]?\d|2[0-3])"
    forms = rf"{hour}:([0-5]\d)" + (rf"|{hour}h([0-5]\d)?" if locale.h_times else "")

    def speak(m: re.Match) -> str:
        return locale.time(int(m.group(1) or m.group(3)), int(m.group(2) or m.group(4) or 0))

    return Rule(f"{locale.letter}_time", rf"{_starts(locale)}(?:{forms}){_ends(locale)}", speak)


def _date_rule(locale: Locale) -> Rule:
    """ "5/12/2026" -> the fifth of December, 2026, said the language's way (day first)."""

    def speak(m: re.Match) -> str | None:
        day, month, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if not (1 <= day <= 31 and 1 <= month <= 12):
            return None
        return locale.date(day, month, year)

    return Rule(f"{locale.letter}_date", rf"{_starts(locale)}(\d{{1,2}})/(\d{{1,2}})/(\d{{4}}){_ends(locale)}", speak)


def rules_of(locale: Locale) -> list[Rule]:
    """The language's rules in priority order: a date or a time before money, money before a number."""
    rules = [_date_rule(locale), _time_rule(locale), _money_rule(locale)]
    if locale.ordinal is not None and locale.ordinal_pattern is not None:
        say = locale.ordinal
        rules.append(
            Rule(
                f"{locale.letter}_ordinal",
                rf"{_starts(locale)}(\d{{1,4}})({locale.ordinal_pattern})(?!\w)",
                lambda m: say(int(m.group(1)), m.group(2).lstrip(".")),
            )
        )
    if locale.percent is not None:
        word = locale.percent
        rules.append(Rule(f"{locale.letter}_percent", r"(?<=\d)\s?[%％]", lambda m: word))
    rules.append(_number_rule(locale))
    return rules
