"""How eagerly an answer is cut into pieces: the policy, and the speech model it is sized from.

The first piece alone decides when speech starts, but its audio must outlast the synthesis of the piece
after it, or the listener hears a few words and then a gap (docs/decisions/082-first-piece-from-the-model.md).
:class:`speech_protocol.pace.SpeechModel` (the server's own, from its Ready) says how long a piece of ``n``
words takes to synthesize and to play; the policy asks it one question, "would this cut stall?", and the benchmark's lower bound
(``kokoro_bench.measuring.lower_bound``) asks the same model the same question for every possible cut of a text.

Why a ramp: a short first piece is only safe if the next piece is short too. While little audio is
queued, later pieces may also end at clause marks; every piece adds ``(1 - rtf)`` of its own length to the
lead, and once the lead covers a whole long sentence's synthesis the ramp ends and pieces are sentences
again (fewer seams, better prosody).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ..pace import PIECE_OVERHEAD_S, PaceError, SpeechModel, word_count

# Without a server's rtf: the shortest first piece that does not stall on the 2-core CPU; fewer words stall,
# more delay first audio (the figures: docs/decisions/005-latency-and-first-piece.md).
DEFAULT_FIRST_PIECE_MIN_WORDS = 4
# Far below the protocol's MAX_TEXT_CHARS (5,000) and about one pass of Kokoro's 510-phoneme context
# (English runs near one phoneme per character), so one long sentence never holds back the next for long.
DEFAULT_MAX_CHARS = 300
# A cut needs room for a few words; below this every piece would be a forced cut.
MIN_MAX_CHARS = 16
DEFAULT_RAMP_WORDS = 0

# The piece after the first, as the ramp cuts it ("the museum is open every day,").
NEXT_PIECE_WORDS = 6
ADAPTIVE_FIRST_WORDS = (2, 12)  # fewer: see ONE_WORD_PIECE_MIN_LETTERS; past 12 the first sentence ends anyway
# A first piece of a single word is cut only at a clause mark ("Sure,", "Yes,") and only for a word of at
# least this many letters: such openers, spoken alone, were heard as in the whole sentence, where "No,"
# alone was heard as "Now," (docs/decisions/138-one-word-first-piece.md).
ONE_WORD_PIECE_MIN_LETTERS = 3
LONG_SENTENCE_WORDS = 20  # the ramp lasts until a sentence this long fits in the audio queued (typical: 19)
MAX_RAMP_WORDS = 60  # a server slower than real time never catches up; the ramp would not end
# A piece after the first must play for its synthesis plus half a fixed cost more: the margin with the fewest
# stalls in the policy sweep that keeps first audio close to the natural-cut bound (the sweep's figures:
# docs/decisions/088-piece-overhead.md).
SUSTAIN_FIXED_COSTS = 1.5
# The first piece must be ready in time even on a server this much slower than it advertises: two warm-ups an
# hour apart on the same idle machine advertised rtf 0.411 and 0.467 (13.6 % apart), and a slowed server's
# sessions were sized at about 0.7 where it ran at 0.82; without the margin, weak cuts turned such an
# optimistic pace into stalls twice as long (docs/decisions/165-weak-cuts.md).
PACE_MARGIN = 1.15


class SegmentPolicyError(ValueError):
    """A policy value out of range: raised when the policy is built, never mid-answer."""


def _check_int(name: str, value: object, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SegmentPolicyError(f"{name} must be an int, got {value!r}")
    if value < low:
        raise SegmentPolicyError(f"{name} must be >= {low}, got {value}")


def _speech_model(rtf: float, piece_overhead_s: float | None) -> SpeechModel:
    """The speech model of a server of ``rtf`` and cost per piece ``piece_overhead_s`` (None: the default,
    ``PIECE_OVERHEAD_S``); a value out of the model's bounds is a :class:`SegmentPolicyError`."""
    try:
        return SpeechModel(rtf, overhead_s=PIECE_OVERHEAD_S if piece_overhead_s is None else piece_overhead_s)
    except PaceError as err:
        raise SegmentPolicyError(str(err)) from None


@dataclass(frozen=True)
class SegmentPolicy:
    """How eagerly pieces are cut. Small and frozen so that an adaptive policy can swap in another.

    ``first_piece_min_words``: a piece may end at a clause mark once it holds this many words; always for
    the first piece (when ``first_piece_clause``), and for later ones while fewer than ``ramp_words`` words
    have been emitted in the answer (0: the first piece only). With no clause mark in sight, the first
    piece may also end before a conjunction or preposition (``speech_protocol.pieces.cuts``).
    """

    first_piece_min_words: int = DEFAULT_FIRST_PIECE_MIN_WORDS
    first_piece_clause: bool = True
    max_chars: int = DEFAULT_MAX_CHARS
    ramp_words: int = DEFAULT_RAMP_WORDS
    # The server's real-time factor, when known: a first piece shorter than first_piece_min_words is then
    # taken at a clause mark if the speech model says the piece after it is ready in time.
    rtf: float | None = None
    # And its cost per piece beyond rtf x audio, when it advertises one (None: PIECE_OVERHEAD_S).
    piece_overhead_s: float | None = None
    # With the speech model, a piece may end at a weak cut inside a clause where the natural cuts are too far
    # apart to keep the listener fed (speech_protocol.pieces.cuts.weak_cuts; docs/decisions/165-weak-cuts.md).
    weak_cuts: bool = True

    def __post_init__(self) -> None:
        _check_int("first_piece_min_words", self.first_piece_min_words, 1)
        if self.rtf is not None:
            _speech_model(self.rtf, self.piece_overhead_s)
        elif self.piece_overhead_s is not None:
            _speech_model(1.0, self.piece_overhead_s)  # the overhead's bounds, without an rtf
        for name in ("first_piece_clause", "weak_cuts"):
            if not isinstance(getattr(self, name), bool):
                raise SegmentPolicyError(f"{name} must be a bool, got {getattr(self, name)!r}")
        _check_int("max_chars", self.max_chars, MIN_MAX_CHARS)
        _check_int("ramp_words", self.ramp_words, 0)

    def speech_model(self) -> SpeechModel:
        """The speech model of the server this policy was sized for (it must know the server's rtf)."""
        if self.rtf is None:
            raise SegmentPolicyError("no speech model without the server's rtf")
        return _speech_model(self.rtf, self.piece_overhead_s)


def cautious(model: SpeechModel) -> SpeechModel:
    """``model`` slowed by :data:`PACE_MARGIN`: what the first piece is judged against."""
    return replace(model, rtf=model.rtf * PACE_MARGIN, overhead_s=model.overhead_s * PACE_MARGIN)


def sustaining_words(model: SpeechModel) -> float:
    """Fewest words a piece after the first needs: its audio outlasts its own synthesis by
    ``SUSTAIN_FIXED_COSTS - 1`` more fixed costs, towards the next cut's. Shorter pieces eat into the audio
    queued ahead. ``inf`` on a server slower than real time."""
    if model.rtf >= 1:
        return math.inf
    return SUSTAIN_FIXED_COSTS * model.overhead_s * model.words_per_s / (1 - model.rtf)


def fewest_sustaining_words(model: SpeechModel) -> int:
    """:func:`sustaining_words` as a piece's word count, at least 1 and at most ``MAX_RAMP_WORDS``."""
    words = sustaining_words(model)
    return MAX_RAMP_WORDS if words >= MAX_RAMP_WORDS else max(1, math.ceil(words))


def next_piece_words(model: SpeechModel) -> int:
    """The typical piece after the first: ``NEXT_PIECE_WORDS``, or more where pieces that short would not
    sustain themselves."""
    return max(NEXT_PIECE_WORDS, fewest_sustaining_words(model))


def first_piece_words(rtf: float, piece_overhead_s: float | None = None) -> int:
    """Fewest first-piece words whose cut does not stall the ramp's next piece, within ``ADAPTIVE_FIRST_WORDS``."""
    model = _speech_model(rtf, piece_overhead_s)
    low, high = ADAPTIVE_FIRST_WORDS
    return next((n for n in range(low, high) if not model.cut_stalls(n, next_piece_words(model))), high)


def ramp_words(rtf: float, piece_overhead_s: float | None = None) -> int:
    """Words after which the audio queued ahead covers a long sentence's synthesis: where the ramp ends.

    Synthesis is serial and faster than the LLM, so after ``W`` words the lead is about ``(1 - rtf)`` of
    their audio; the ramp ends at the first ``W`` whose lead no long sentence's cut would outrun, at most
    ``MAX_RAMP_WORDS`` (an rtf of 1 or more never gets there).
    """
    model = _speech_model(rtf, piece_overhead_s)
    if rtf >= 1:
        return MAX_RAMP_WORDS
    needed = model.synth_s(LONG_SENTENCE_WORDS) / ((1 - rtf) / model.words_per_s)
    return min(math.ceil(needed), MAX_RAMP_WORDS)


def adaptive_policy(
    rtf: float | None, base: SegmentPolicy = SegmentPolicy(), piece_overhead_s: float | None = None
) -> SegmentPolicy:
    """``base`` with its clause-cut length and ramp sized for a server of real-time factor ``rtf`` and
    cost per piece ``piece_overhead_s`` (None: ``PIECE_OVERHEAD_S``).

    ``None`` (a server that advertises no rtf) keeps ``base`` as it is.
    """
    if rtf is None:
        return base
    return replace(
        base,
        first_piece_min_words=first_piece_words(rtf, piece_overhead_s),
        ramp_words=ramp_words(rtf, piece_overhead_s),
        rtf=rtf,
        piece_overhead_s=piece_overhead_s,
    )


class AnswerPacing:
    """One answer's standing against the speech model: what the segmenter asks when it chooses among cuts.

    Tracks the pieces emitted so far (whether any has, how many words while the ramp lasts, and the audio
    they queue ahead of the listener beyond the synthesis they owe). ``policy`` may be replaced mid-answer
    (the server's Ready arriving); the counts carry over.
    """

    def __init__(self, policy: SegmentPolicy) -> None:
        self.policy = policy
        self.spoken_any = False  # a piece has been emitted (the first-piece rule is over)
        self._emitted_words = 0  # words in the pieces emitted so far, counted while the ramp lasts
        self._slack_s = 0.0  # the speech model's audio queued minus synthesis owed, over the ramp's pieces

    def clause_cuts_allowed(self) -> bool:
        """The first piece, and later ones while the ramp lasts, may end at a clause mark.

        The ramp lasts ``ramp_words`` words; one sized by the speech model goes on, up to ``MAX_RAMP_WORDS``,
        until the audio queued ahead covers a long sentence's synthesis, since :func:`ramp_words` leaves out
        what each piece's fixed cost takes from the lead (docs/decisions/165-weak-cuts.md)."""
        policy = self.policy
        if not policy.first_piece_clause:
            return False
        if not self.spoken_any or self._emitted_words < policy.ramp_words:
            return True
        return (
            policy.ramp_words > 0
            and policy.rtf is not None
            and self._emitted_words < MAX_RAMP_WORDS
            and self._slack_s < policy.speech_model().synth_s(LONG_SENTENCE_WORDS)
        )

    def fewest_words_before_a_cut(self) -> int:
        """The shortest piece a clause or function-word cut may end: ``first_piece_min_words``, or, when the
        server's rtf is known, ``ADAPTIVE_FIRST_WORDS[0]`` if the speech model says it does not stall."""
        return ADAPTIVE_FIRST_WORDS[0] if self.policy.rtf is not None else self.policy.first_piece_min_words

    def one_word_clause_allowed(self, word: str) -> bool:
        """Whether a first piece may be the single ``word`` before a clause mark, if the speech model says it
        does not stall: only when the server's rtf is known and the word is long enough to be heard alone
        (:data:`ONE_WORD_PIECE_MIN_LETTERS`)."""
        letters = sum(ch.isalpha() for ch in word)
        return self.policy.rtf is not None and not self.spoken_any and letters >= ONE_WORD_PIECE_MIN_LETTERS

    def next_piece_floor(self) -> int:
        """Fewest words of the piece after a first-piece cut, as the ramp will cut it: one that sustains
        itself (:func:`fewest_sustaining_words`). Later cuts look at the very next natural end."""
        return 1 if self.spoken_any else fewest_sustaining_words(self.policy.speech_model())

    def cut_wanted(self, words: int, following: int) -> bool:
        """The speech model's verdict on a natural cut after ``words``, ``following`` words before the next.

        The first piece ends at the earliest such cut whose next piece is ready before it has played, on a
        server :data:`PACE_MARGIN` slower than advertised (:func:`cautious`): that is what brings speech
        forward. A later piece ends there only when running on to the next cut would
        outlast the audio queued ahead: each extra cut is a seam in the prosody, so it must buy a stall that
        would otherwise happen, and hold enough words to pay towards the next cut (:func:`sustaining_words`):
        a piece that merely breaks even leaves nothing for the next cut's fixed cost, and the stall comes one
        piece later (088-piece-overhead.md).
        """
        model = self.policy.speech_model()
        if not self.spoken_any:
            return not cautious(model).cut_stalls(words, following)
        return words >= sustaining_words(model) and self._lead_s(words + following) < 0

    def cut_possible(self, words: int, written_after: int) -> bool:
        """Whether :meth:`cut_wanted` could still say yes to a cut after ``words``, ``written_after`` words
        being written past it: a later piece must sustain itself, and once the next piece's shortest length
        (:meth:`next_piece_floor`) is written, the first piece must outlast that. A cut that cannot be wanted
        is passed over without waiting for the end of the piece after it."""
        model = self.policy.speech_model()
        if self.spoken_any:
            return words >= sustaining_words(model)
        floor = self.next_piece_floor()
        return written_after < floor or not cautious(model).cut_stalls(words, floor)

    def emitted(self, raw: str) -> None:
        """A piece of ``raw`` text was emitted. Words are counted only while the ramp may last: linear time."""
        if self._emitted_words < max(self.policy.ramp_words, MAX_RAMP_WORDS if self.policy.rtf is not None else 0):
            words = word_count(raw)
            if self.policy.rtf is not None:  # the first piece's synthesis is the wait before playback
                model = self.policy.speech_model()
                self._slack_s += model.audio_s(words) - (model.synth_s(words) if self._emitted_words else 0.0)
            self._emitted_words += words
        self.spoken_any = True

    def _lead_s(self, words: int) -> float:
        """Audio queued ahead of a piece of ``words`` once it is synthesized (0 for the first piece).

        The speech model's view: the LLM writes far faster than speech, so each piece after the first is
        synthesized right after the one before, and what the listener has queued grows by every piece's
        audio and shrinks by every later piece's synthesis.
        """
        if not self.spoken_any:
            return 0.0
        return self._slack_s - self.policy.speech_model().synth_s(words)
