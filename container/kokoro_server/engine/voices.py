"""Voices by name, and weighted blends of them.

A voice is a float32 ``[510, 1, 256]`` table: one style vector per phoneme count (Kokoro uses row
``len(phonemes) - 1``). A blend is written like Kokoro-FastAPI's: ``af_heart(2)+af_bella(1)`` is the
weighted mean of the two tables; ``af_heart+af_bella`` weighs them equally. The first voice's name
prefix picks the language G2P reads the text in (:func:`kokoro_server.text.languages.language_letter`), so a
blend mixes voices of one language only (American and British English count as one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from kokoro_server.assets import ModelAssets
from kokoro_server.refusals import Refusal
from kokoro_server.text.languages import LANGUAGES, Language

_TERM = re.compile(r"^\s*([a-z]{2}_[a-z0-9_]+)\s*(?:\(\s*([0-9]*\.?[0-9]+)\s*\))?\s*$")
MAX_BLEND = 8
# A weight is relative to the others, so this range loses nothing a listener could hear, and it keeps every
# weight and their sum finite and non-zero in float32, where a blend still has a voice (outside it the
# normalised weights are NaN and the audio is silence: docs/decisions/042-hostile-input-errors.md).
MIN_WEIGHT, MAX_WEIGHT = 1e-3, 1e3


class UnknownVoice(Refusal):
    """The voice (or blend) names something this server does not have, or is malformed."""

    status, code = 400, "unknown_voice"


class MixedLanguages(UnknownVoice):
    """A blend of voices of different languages: its text can be read in one language only."""

    status, code = 400, "mixed_languages"


@dataclass(frozen=True)
class VoiceStyle:
    """A voice (or blend) as the model sees it: one style vector per phoneme count."""

    table: np.ndarray  # float32 [510, 1, 256]

    def vector_for(self, phoneme_count: int) -> np.ndarray:
        row = min(max(phoneme_count, 1), len(self.table)) - 1
        return self.table[row]


class VoiceBank:
    """All voices of an asset set in Kokoro's languages, loaded once; blends are computed and cached on
    demand."""

    def __init__(self, assets: ModelAssets):
        self._tables = {name: assets.load_voice(name) for name in sorted(assets.voices) if name[0] in LANGUAGES}
        if not self._tables:
            letters = ", ".join(repr(letter) for letter in LANGUAGES)
            raise UnknownVoice(f"the asset set has no voice of Kokoro's languages (names starting with {letters})")
        self._cache: dict[str, VoiceStyle] = {}

    @property
    def names(self) -> list[str]:
        return list(self._tables)

    @property
    def languages(self) -> dict[str, str]:
        """Each voice's language code ("af_heart": "en-us", "ef_dora": "es")."""
        return {name: LANGUAGES[name[0]].code for name in self._tables}

    def get(self, spec: str) -> VoiceStyle:
        key = spec.strip()
        if key not in self._cache:
            if len(self._cache) > 256:  # bounded: blends come from clients
                self._cache.clear()
            self._cache[key] = self._build(key)
        return self._cache[key]

    def _build(self, spec: str) -> VoiceStyle:
        terms = spec.split("+")
        if len(terms) > MAX_BLEND:
            raise UnknownVoice(f"a blend may mix at most {MAX_BLEND} voices")
        tables, weights = [], []
        languages: list[Language] = []
        for term in terms:
            match = _TERM.match(term)
            if not match:
                raise UnknownVoice(
                    f"malformed voice {term.strip()[:40]!r}: use a name like af_heart, "
                    "or a blend like af_heart(2)+af_bella(1)"
                )
            name, weight = match.group(1), float(match.group(2) or 1.0)
            if name not in self._tables:
                raise UnknownVoice(f"unknown voice {name!r}; available: {', '.join(self.names)}")
            if not MIN_WEIGHT <= weight <= MAX_WEIGHT:
                raise UnknownVoice(
                    f"voice weight for {name!r} must be between {MIN_WEIGHT:g} and "
                    f"{MAX_WEIGHT:g}, like af_heart(2)+af_bella(1)"
                )
            languages.append(LANGUAGES[name[0]])
            if languages[-1].family != languages[0].family:
                raise MixedLanguages(
                    f"a blend mixes voices of one language: {name!r} is {languages[-1].name}, "
                    f"the blend's first voice {languages[0].name}"
                )
            tables.append(self._tables[name])
            weights.append(weight)
        w = np.asarray(weights, dtype=np.float64) / sum(weights)
        table = np.tensordot(w, np.stack(tables), axes=1).astype(np.float32)
        if not np.isfinite(table).all():  # never speak a broken style: it comes out as silence
            raise UnknownVoice(f"the blend {spec[:80]!r} does not give a usable voice")
        return VoiceStyle(table=table)
