"""How fast a model server speaks: the one speech-pace model that the server measures and advertises, that
its admission meters, that the agent sizes its pieces by and that the benchmark fits on its runs.

An utterance of ``a`` seconds of audio is ready ``overhead_s + rtf * a`` seconds after its synthesis
starts: ``rtf`` (the real-time factor) is the cost per second of audio, ``overhead_s`` the fixed cost per
utterance, mostly the edge silence the model synthesizes and the server trims
(docs/decisions/088-piece-overhead.md). Clients count in words: a word is :data:`WORD`, spoken at
``words_per_s``. Standard library only, so that the server and the agent, which never import each other,
both import it (docs/decisions/115-one-speech-pace-model.md).
"""

from __future__ import annotations

import collections
import math
import re
import statistics
import threading
from collections.abc import Sequence
from dataclasses import dataclass

# A per-utterance cost past this is not a measurement a client should size pieces by: a real server's is
# well under a second (docs/decisions/088-piece-overhead.md).
MAX_PIECE_OVERHEAD_S = 10.0
# Per piece beyond rtf x audio, for a server that does not advertise its own (Ready.piece_overhead_s):
# the socket and scheduler (~10 ms on loopback) and the engine's fixed cost per call.
PIECE_OVERHEAD_S = 0.05
SPEECH_WORDS_PER_S = 3.6  # Kokoro af_heart at speed 1.0, trimmed edges (bench: 3.6-3.75 on typical/long)
# The finest step a server advertises its pace in (Ready carries three decimals).
PACE_RESOLUTION = 0.001
# Japanese kana and kanji and Chinese hanzi: scripts written with no space between words.
WIDE_SCRIPT = "\u3005-\u3007\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
# A word, the unit the model counts pieces in: a run between spaces or dashes that starts with a letter or
# digit ("-" and "**" are not spoken, "well—yes" is two words, "day," is one). In the wide scripts, where
# nothing marks a word, two characters and the marks after them ("好的，" is one, "今日は" two): Kokoro
# speaks them at 4.4-5.8 a second where it speaks 3.5-3.8 English words, so a pair is a word or a little
# more, and a piece sized by SPEECH_WORDS_PER_S errs long, not into a stall
# (docs/decisions/154-words-in-scripts-without-spaces.md).
WORD = re.compile(f"[{WIDE_SCRIPT}]{{1,2}}[^\\w\\s–—]*|[^\\W_{WIDE_SCRIPT}][^\\s–—{WIDE_SCRIPT}]*")


class PaceError(ValueError):
    """A pace out of its bounds: an rtf that is not a positive number, an overhead outside [0, 10] s."""


def word_count(text: str) -> int:
    """How many :data:`WORD` s ``text`` holds."""
    return sum(1 for _ in WORD.finditer(text))


def usable_rtf(rtf: object) -> float | None:
    """``rtf`` if it is a positive finite number, else None: an advertised rtf is a sizing hint, so a server
    that sends a malformed one is spoken to with the client's fixed default rather than refused."""
    if isinstance(rtf, bool) or not isinstance(rtf, (int, float)) or not math.isfinite(rtf) or rtf <= 0:
        return None
    return float(rtf)


def usable_overhead(overhead_s: object) -> float | None:
    """``overhead_s`` if it is a finite number in [0, MAX_PIECE_OVERHEAD_S], else None (the client's own
    default): a sizing hint, like the rtf, never a reason to refuse a server."""
    if (
        isinstance(overhead_s, bool)
        or not isinstance(overhead_s, (int, float))
        or not math.isfinite(overhead_s)
        or not 0 <= overhead_s <= MAX_PIECE_OVERHEAD_S
    ):
        return None
    return float(overhead_s)


@dataclass(frozen=True)
class Timing:
    """One utterance timed: ``synth_s`` seconds to synthesize ``audio_s`` seconds of (heard) audio."""

    synth_s: float
    audio_s: float


@dataclass(frozen=True)
class SpeechModel:
    """How long pieces take to synthesize and to play, at one measured speed.

    ``synth_s(n) = overhead_s + rtf * n / words_per_s``: one worker, serial pieces, a fixed cost per call.
    Out of bounds (see :func:`usable_rtf`, :func:`usable_overhead`), it raises :class:`PaceError`.
    """

    rtf: float
    words_per_s: float = SPEECH_WORDS_PER_S
    overhead_s: float = PIECE_OVERHEAD_S

    def __post_init__(self) -> None:
        if usable_rtf(self.rtf) is None:
            raise PaceError(f"rtf must be a positive number, got {self.rtf!r}")
        if usable_overhead(self.overhead_s) is None:
            raise PaceError(
                f"piece_overhead_s must be a number from 0 to {MAX_PIECE_OVERHEAD_S:g}, got {self.overhead_s!r}"
            )
        if usable_rtf(self.words_per_s) is None:
            raise PaceError(f"words_per_s must be a positive number, got {self.words_per_s!r}")

    @classmethod
    def measured(cls, short: Timing, sentence: Timing) -> SpeechModel:
        """The server's warm-up: ``rtf`` on a sentence (what clients and admission have always used), the
        overhead as what a short piece took beyond ``rtf`` times its audio (never below 0). Rounded to
        :data:`PACE_RESOLUTION` and kept within the bounds, since it is advertised as the server's own."""
        rtf = sentence.synth_s / sentence.audio_s
        overhead_s = min(max(0.0, short.synth_s - rtf * short.audio_s), MAX_PIECE_OVERHEAD_S)
        return cls(rtf=max(round(rtf, 3), PACE_RESOLUTION), overhead_s=round(overhead_s, 3))

    @classmethod
    def fitted(cls, timings: Sequence[Timing], words_per_s: float) -> SpeechModel:
        """A line through many timed pieces (the benchmark's run): synthesis seconds = overhead + rtf x audio
        seconds, by the Theil-Sen estimator (the median of the pairwise slopes, then the median intercept).
        One piece slowed by the machine moves it little, where least squares let one such piece of twelve
        put the fixed cost at 2 ms (docs/decisions/136-issue-21-figures.md). Noisy pieces that give a
        negative slope or overhead fall back to a pure ratio, no fixed cost. Raises :class:`PaceError` with
        fewer than two pieces that have audio."""
        pairs = [(t.audio_s, t.synth_s) for t in timings if t.audio_s > 0]
        if len(pairs) < 2:
            raise PaceError("too few timed pieces to measure the synthesis speed")
        ratio = sum(s for _, s in pairs) / sum(a for a, _ in pairs)
        slopes = [(s2 - s1) / (a2 - a1) for i, (a1, s1) in enumerate(pairs) for a2, s2 in pairs[i + 1 :] if a2 != a1]
        rtf = statistics.median(slopes) if slopes else ratio
        overhead = statistics.median(s - rtf * a for a, s in pairs)
        if rtf <= 0 or overhead < 0:
            rtf, overhead = ratio, 0.0
        return cls(rtf=rtf, words_per_s=words_per_s, overhead_s=overhead)

    def audio_s(self, words: float) -> float:
        return words / self.words_per_s

    def synth_s(self, words: float) -> float:
        return self.overhead_s + self.rtf * self.audio_s(words)

    def cut_stalls(self, words: float, next_words: float, lead_s: float = 0.0) -> bool:
        """Would ending a piece of ``words`` here starve the listener before ``next_words`` are ready?

        ``lead_s``: audio already queued ahead of this piece (0 for the first piece).
        """
        return lead_s + self.audio_s(words) < self.synth_s(next_words)


# How many recent utterances the running real-time factor is taken over: long enough to smooth one slow
# piece, short enough to follow the machine when other load arrives (about two answers' pieces).
RTF_WINDOW = 32


class PaceMeter:
    """The running pace, from the last ``window`` utterances (synthesis seconds and heard audio seconds,
    the fixed cost per utterance included: what a worker's time actually went on). Thread-safe.

    ``rtf`` is their ratio (admission's capacity). :meth:`model` is the ``baseline`` speech model (the
    warm-up's) scaled by how much slower or faster the server has run since: the sum of the window's
    synthesis times over the sum the baseline predicts for the same utterances, so a mix of short and long
    pieces does not bias it (docs/decisions/121-first-piece-from-the-running-pace.md).
    """

    def __init__(self, window: int = RTF_WINDOW) -> None:
        self._samples: collections.deque[Timing] = collections.deque(maxlen=window)
        self._lock = threading.Lock()  # utterances finish on worker threads
        self.baseline: SpeechModel | None = None  # the warm-up's model, until utterances arrive
        self.observed = 0  # every utterance so far, with or without audio

    def observe(self, timing: Timing) -> None:
        with self._lock:
            self.observed += 1
            if timing.audio_s > 0:
                self._samples.append(timing)

    @property
    def rtf(self) -> float | None:
        with self._lock:
            audio = sum(t.audio_s for t in self._samples)
            if audio > 0:
                return sum(t.synth_s for t in self._samples) / audio
        return None if self.baseline is None else self.baseline.rtf

    def model(self) -> SpeechModel | None:
        """The running speech model, rounded to :data:`PACE_RESOLUTION` and within the bounds as the server
        advertises it; the baseline before any utterance; None without a baseline."""
        base = self.baseline
        if base is None:
            return None
        with self._lock:
            predicted = sum(base.overhead_s + base.rtf * t.audio_s for t in self._samples)
            spent = sum(t.synth_s for t in self._samples)
        if predicted <= 0:
            return base
        scale = spent / predicted
        return SpeechModel(
            rtf=max(round(base.rtf * scale, 3), PACE_RESOLUTION),
            words_per_s=base.words_per_s,
            overhead_s=round(min(base.overhead_s * scale, MAX_PIECE_OVERHEAD_S), 3),
        )


__all__ = [
    "MAX_PIECE_OVERHEAD_S",
    "PIECE_OVERHEAD_S",
    "SPEECH_WORDS_PER_S",
    "WIDE_SCRIPT",
    "WORD",
    "PaceError",
    "PaceMeter",
    "SpeechModel",
    "Timing",
    "usable_overhead",
    "usable_rtf",
    "word_count",
]
