"""Written forms in Kokoro's languages other than English: numbers, money, times, dates and ordinals as
people say them in Spanish, French, Italian, Brazilian Portuguese, Hindi, Japanese and Chinese.

The English rules (the modules beside this package) are written for misaki's English G2P. The other
languages are read by espeak-ng or by misaki's Japanese and Chinese G2P, each with its own misreadings,
measured against the spoken form (docs/decisions/155-written-forms-per-language.md): espeak-ng reads
"1.250" in Spanish as "uno punto doscientos cincuenta", drops a currency sign's word or reads "$3.50"
as "dólar tres punto cincuenta", reads "10h30" as "diez hache treinta" and "2.º" as "dos punto o"; misaki
reads "3,500円" as "san, gohyaku en" and drops the "%" in Japanese. One table per language
(:mod:`.tables`) and one set of rule shapes (:mod:`.rules`) cover them all; what each G2P already reads right
(plain numbers, percentages outside Japanese, "1er", Chinese years) is left to it.
"""

from __future__ import annotations

import functools

from kokoro_server.text.normalize.locales.rules import rules_of
from kokoro_server.text.normalize.locales.tables import LOCALES
from kokoro_server.text.normalize.rule import Rules


@functools.cache
def locale_rules(letter: str) -> Rules | None:
    """The rules of the language with this voice letter, None for one without (English has its own)."""
    locale = LOCALES.get(letter)
    return None if locale is None else Rules(rules_of(locale))


__all__ = ["locale_rules"]
