"""How each language writes and says numbers: its separators, its words for currencies, months, times,
dates and ordinals. Spelled-out numbers come from num2words where it has the language (es, fr, it, pt_BR);
Hindi, Japanese and Chinese keep digits, which their G2P reads as numbers once they are written as it
expects ("3500円", not "3,500円")."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from num2words import num2words

from kokoro_server.text.languages import LANGUAGES
from kokoro_server.text.normalize.numbers import MAX_CARDINAL_DIGITS, ascii_digits

_DIGITS = {lang: [num2words(d, lang=lang) for d in range(10)] for lang in ("es", "fr", "it", "pt_BR")}


@dataclass(frozen=True)
class Locale:
    """``spell`` turns an integer into words (None: kept as digits for the G2P). ``group`` is the class of
    characters that separate thousands, ``decimal`` the decimal mark; ``currencies`` maps a sign to its
    singular and plural names, said after the amount (``money_space`` between them); ``cents`` joins the
    cents to the units. ``time(hours, minutes)``, ``date(day, month, year)`` and ``ordinal(n, feminine)``
    return the spoken form, with digits where ``spell`` is None."""

    letter: str
    spell: Callable[[str], str] | None
    group: str
    decimal: str
    decimal_word: str | None
    currencies: dict[str, tuple[str, str]]
    cents: str
    time: Callable[[int, int], str]
    date: Callable[[int, int, int], str]
    ordinal_pattern: str | None = None  # the ordinal's mark after its digits ("º", "e", "er")
    ordinal: Callable[[int, str], str] | None = None
    money_space: str = " "
    percent: str | None = None  # said for "%" where the G2P drops it

    @property
    def spaced(self) -> bool:
        """Whether words are separated by spaces (not in Japanese and Chinese)."""
        return LANGUAGES[self.letter].spaced

    h_times: bool = False  # times also written "10h30" and "10h"
    of_millions: str = ""  # said between "million" and the currency ("de", "d'", "di")
    one: str | None = None  # the word for 1 before a noun, where it is not the number's ("un euro")


def _num2words(lang: str) -> Callable[[str], str]:
    def spell(digits: str) -> str:
        """Digits (any script's) as words; past MAX_CARDINAL_DIGITS, digit by digit, as a person reads a
        long run (and num2words and int() are kept away from hostile lengths)."""
        digits = ascii_digits(digits)
        if len(digits) > MAX_CARDINAL_DIGITS:
            return " ".join(_DIGITS[lang][int(d)] for d in digits)
        return num2words(int(digits), lang=lang).replace(",", "")

    return spell


def _feminine(words: str) -> str:
    """ "primero" -> "primera", "vigésimo segundo" -> "vigésima segunda" (es, it, pt)."""
    return " ".join(w[:-1] + "a" if w.endswith("o") else w for w in words.split())


def _ordinal(lang: str) -> Callable[[int, str], str]:
    def say(n: int, mark: str) -> str:
        words = num2words(n, lang=lang, to="ordinal").replace(",", "")
        return _feminine(words) if mark == "ª" else words

    return say


def _french_ordinal(n: int, mark: str) -> str:
    if n == 1:
        return "première" if mark == "re" else "premier"
    return num2words(n, lang="fr", to="ordinal")


_es, _fr, _it, _pt = (_num2words(code) for code in ("es", "fr", "it", "pt_BR"))
_MONTHS = {
    "e": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
    "f": "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "i": "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre",
    "p": "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro",
    "h": "जनवरी फ़रवरी मार्च अप्रैल मई जून जुलाई अगस्त सितंबर अक्टूबर नवंबर दिसंबर",
}
MONTHS = {letter: names.split() for letter, names in _MONTHS.items()}


def _year(lang: str) -> Callable[[int], str]:
    return lambda y: num2words(y, lang=lang, to="year").replace(",", "")


def _hour_minutes(spell: Callable[[str], str], joiner: str, hours: tuple[str, str] | None = None):
    """ "10:30" -> "diez y treinta"; with ``hours`` names, "dix heures trente"."""

    def say(h: int, m: int) -> str:
        said = spell(str(h)) if hours is None else f"{spell(str(h))} {hours[h > 1]}"
        return said if m == 0 else f"{said}{joiner}{spell(str(m))}"

    return say


LOCALES = {
    locale.letter: locale
    for locale in (
        Locale(
            "e",
            _es,
            of_millions="de",
            group=".",
            decimal=",",
            decimal_word="coma",
            currencies={"€": ("euro", "euros"), "$": ("dólar", "dólares"), "£": ("libra", "libras")},
            cents=" con ",
            time=_hour_minutes(_es, " y "),
            date=lambda d, m, y: f"{_es(str(d))} de {MONTHS['e'][m - 1]} de {_year('es')(y)}",
            ordinal_pattern="\\.?[ºª]",
            ordinal=_ordinal("es"),
            one="un",
        ),
        Locale(
            "f",
            _fr,
            of_millions="d'",
            group=" \u00a0\u202f",
            decimal=",",
            decimal_word="virgule",
            currencies={"€": ("euro", "euros"), "$": ("dollar", "dollars"), "£": ("livre", "livres")},
            cents=" ",
            time=_hour_minutes(_fr, " ", ("heure", "heures")),
            h_times=True,
            date=lambda d, m, y: f"{'premier' if d == 1 else _fr(str(d))} {MONTHS['f'][m - 1]} {_year('fr')(y)}",
            ordinal_pattern="(?:er|re|e|ème|eme)",
            ordinal=_french_ordinal,
        ),
        Locale(
            "i",
            _it,
            of_millions="di",
            group=".",
            decimal=",",
            decimal_word="virgola",
            currencies={"€": ("euro", "euro"), "$": ("dollaro", "dollari"), "£": ("sterlina", "sterline")},
            cents=" e ",
            time=_hour_minutes(_it, " e "),
            date=lambda d, m, y: f"{'primo' if d == 1 else _it(str(d))} {MONTHS['i'][m - 1]} {_year('it')(y)}",
            ordinal_pattern="[ºª]",
            ordinal=_ordinal("it"),
            one="un",
        ),
        Locale(
            "p",
            _pt,
            of_millions="de",
            group=".",
            decimal=",",
            decimal_word="vírgula",
            currencies={"R$": ("real", "reais"), "€": ("euro", "euros"), "$": ("dólar", "dólares")},
            cents=" e ",
            time=_hour_minutes(_pt, " e "),
            h_times=True,
            date=lambda d, m, y: (
                f"{'primeiro' if d == 1 else _pt(str(d))} de {MONTHS['p'][m - 1]} de {_year('pt_BR')(y)}"
            ),
            ordinal_pattern="[ºª]",
            ordinal=_ordinal("pt_BR"),
        ),
        Locale(
            "h",
            None,
            group=",",
            decimal=".",
            decimal_word=None,
            currencies={"₹": ("रुपये", "रुपये"), "$": ("डॉलर", "डॉलर")},
            cents=".",
            time=lambda h, m: f"{h} बजे" if m == 0 else f"{h} बजकर {m} मिनट",
            date=lambda d, m, y: f"{d} {MONTHS['h'][m - 1]} {y}",
        ),
        Locale(
            "j",
            None,
            group=",",
            decimal=".",
            decimal_word=None,
            currencies={"¥": ("円", "円"), "$": ("ドル", "ドル"), "€": ("ユーロ", "ユーロ")},
            cents=".",
            money_space="",
            time=lambda h, m: f"{h}時" if m == 0 else f"{h}時{m}分",
            date=lambda d, m, y: f"{y}年{m}月{d}日",
            percent="パーセント",
        ),
        Locale(
            "z",
            None,
            group=",",
            decimal=".",
            decimal_word=None,
            currencies={"¥": ("元", "元"), "$": ("美元", "美元"), "€": ("欧元", "欧元")},
            cents=".",
            money_space="",
            time=lambda h, m: f"{h}点" if m == 0 else f"{h}点{m}分",
            date=lambda d, m, y: f"{y}年{m}月{d}日",
        ),
    )
}
