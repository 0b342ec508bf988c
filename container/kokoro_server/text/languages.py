"""Kokoro's nine languages: which G2P reads each, keyed by the letter a voice's name starts with.

Kokoro-82M v1.0 names a voice ``<language><sex>_<name>``: ``af_heart`` is American English, ``ef_dora``
Spanish, ``jf_alpha`` Japanese. The G2P per language is Kokoro's own (its ``KPipeline``): misaki's English
G2P for ``a``/``b``, misaki's espeak-ng G2P for Spanish, French, Hindi, Italian and Brazilian Portuguese
(espeak-ng and its data come in the ``espeakng-loader`` wheel), misaki's Japanese G2P (fugashi with
``unidic-lite``'s dictionary) and its Mandarin G2P (jieba, pypinyin). Every dictionary is in a wheel:
nothing is downloaded at run time (docs/decisions/153-nine-languages.md).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kokoro_server.refusals import Refusal

G2P = Callable[[str], tuple[str, Any]]  # misaki's interface: text -> (phonemes, tokens or None)


@dataclass(frozen=True)
class Language:
    """One of Kokoro's languages: ``code`` as Kokoro and espeak-ng name it, ``family`` what a blend of
    voices must share (American and British English blend; English and Spanish do not)."""

    letter: str
    code: str
    name: str

    @property
    def family(self) -> str:
        return self.code.split("-")[0]

    @property
    def english(self) -> bool:
        return self.family == "en"

    @property
    def spaced(self) -> bool:
        """Whether words are separated by spaces (not in Japanese and Chinese)."""
        return self.family not in ("ja", "zh")


LANGUAGES = {
    lang.letter: lang
    for lang in (
        Language("a", "en-us", "American English"),
        Language("b", "en-gb", "British English"),
        Language("e", "es", "Spanish"),
        Language("f", "fr-fr", "French"),
        Language("h", "hi", "Hindi"),
        Language("i", "it", "Italian"),
        Language("p", "pt-br", "Brazilian Portuguese"),
        Language("j", "ja", "Japanese"),
        Language("z", "zh", "Mandarin Chinese"),
    )
}
BY_CODE = {lang.code: lang for lang in LANGUAGES.values()}


class UnknownLanguage(Refusal):
    """A request's ``language`` is none of Kokoro's nine."""

    status, code = 400, "unknown_language"


def language_letter(language: str | None, voice: str) -> str:
    """The letter of the language a text is read in: ``language`` (a code like ``es`` or ``pt-br``, or a
    letter like ``e``, in any case) when given, else the voice's (or blend's first voice's) own."""
    if language is None:
        return voice.strip()[:1]
    key = language.strip().lower()
    if key in LANGUAGES:
        return key
    if key in BY_CODE:
        return BY_CODE[key].letter
    known = ", ".join(lang.code for lang in LANGUAGES.values())
    raise UnknownLanguage(f"unknown language {language[:16]!r}; Kokoro speaks {known}")


# espeak-ng drops the danda, so Hindi sentences would run together into one chunk: read it as a full stop.
_HINDI_STOPS = re.compile("[।॥]")


def prepared(text: str, lang: Language) -> str:
    """``text`` as this language's G2P should get it (same length, so word offsets still hold)."""
    return _HINDI_STOPS.sub(".", text) if lang.family == "hi" else text


def build_g2p(lang: Language) -> G2P:
    """A new G2P for ``lang`` (seconds for English, where spaCy loads; well under one for the others:
    docs/decisions/153-nine-languages.md)."""
    if lang.english:
        from misaki import en, espeak

        british = lang.letter == "b"
        return en.G2P(trf=False, british=british, fallback=espeak.EspeakFallback(british=british), unk="")
    if lang.family == "ja":
        from misaki import ja

        return ja.JAG2P()
    if lang.family == "zh":
        import jieba
        from misaki import zh

        jieba.setLogLevel(logging.WARNING)  # its dictionary's load is logged at INFO on stderr
        return zh.ZHG2P()
    from misaki import espeak

    return espeak.EspeakG2P(language=lang.code)


# One line per language, read by `python -m kokoro_server.text.languages` (the images run it at build time,
# so a language whose packages or dictionaries are missing fails the build, not a listener).
SAMPLES = {
    "a": "Hello, how are you?",
    "b": "Hello, how are you?",
    "e": "Hola, ¿cómo estás?",
    "f": "Bonjour, comment allez-vous ?",
    "h": "नमस्ते, आप कैसे हैं?",
    "i": "Ciao, come stai?",
    "p": "Olá, como vai?",
    "j": "こんにちは、お元気ですか？",
    "z": "你好，你好吗？",
}


def check() -> None:
    """Build every language's G2P and read its sample; raise if one reads nothing."""
    for letter, lang in LANGUAGES.items():
        phonemes, _tokens = build_g2p(lang)(SAMPLES[letter])
        if not any(c.isalpha() for c in phonemes):
            raise RuntimeError(f"{lang.name} G2P read {SAMPLES[letter]!r} as {phonemes!r}")
        print(f"{lang.code}: {phonemes}")


if __name__ == "__main__":
    check()
