"""LLM text deltas -> speakable pieces, each released the moment its end is certain (008-three-interfaces.md).

Why the first piece matters (005-latency-and-first-piece.md): it alone decides when the listener hears anything; later
pieces are synthesised long before playback needs them. So a piece leaves as soon as its boundary is
certain, and the first one may end at a clause once it holds a few words.

This module is the incremental driver: it keeps the text not yet emitted, asks :mod:`speech_protocol.pieces.cuts`
where it may be cut (line, sentence, clause, before a function word, forced), and chooses among those cuts
with the policy of :mod:`speech_protocol.pieces.first_piece` (:class:`SegmentPolicy` and the answer's
:class:`AnswerPacing`):

- a line or sentence cut is always taken;
- a clause or function-word cut only while clause cuts are allowed (the first piece, then the ramp), once
  the piece holds ``first_piece_min_words`` words, or fewer when the server's speech model says the piece
  after it is ready in time; with the speech model, a weak cut inside a clause too, where natural cuts
  are too far apart;
- a forced cut when a piece would exceed ``max_chars`` with no other cut.

Hand-written rules, not pysbd, which re-segments the whole text on each call and cannot tell a certain
boundary from a guess at the end of the text (docs/decisions/117-segmenter-cuts-and-policy.md). The cuts
look at most two characters past a full stop and never further back than the current piece: linear time.
"""

from __future__ import annotations

import re
from typing import Literal

from ..pace import WORD
from . import cuts
from .cuts import Cut, Kind, Undecided
from .first_piece import AnswerPacing, SegmentPolicy, SegmentPolicyError, adaptive_policy
from .speakable import is_fence, speakable

__all__ = ["SegmentPolicy", "SegmentPolicyError", "Segmenter"]

# Words after a function-word cut that must be written and hold no clause mark, without a speech model:
# "soon" (~0.1 s of LLM at 40 tok/s); a clause mark that close is worth the wait.
_FUNCTION_LOOKAHEAD = 3


class Segmenter:
    """Cuts one answer's text stream into speakable pieces. Create one per answer.

    ``feed`` returns the pieces a delta completed; ``flush`` returns the rest at the end of the answer
    and makes the segmenter ready for a new answer. The pieces are the same whatever the delta sizes.
    """

    def __init__(self, policy: SegmentPolicy = SegmentPolicy()) -> None:
        if not isinstance(policy, SegmentPolicy):
            raise TypeError(f"policy must be a SegmentPolicy, got {type(policy).__name__}")
        self._pacing = AnswerPacing(policy)
        self._reset()

    @property
    def policy(self) -> SegmentPolicy:
        return self._pacing.policy

    def adapt_to(self, rtf: float | None, piece_overhead_s: float | None = None) -> None:
        """Size the clause cuts for a server of real-time factor ``rtf`` and cost per piece
        ``piece_overhead_s``, both from its Ready (see :func:`adaptive_policy`).

        ``None`` (the server advertised none) keeps the policy. Meant for the moment the speech session's
        Ready arrives, usually before the first delta; called later, it applies from the next undecided
        boundary on. A malformed value raises :class:`SegmentPolicyError` and leaves the policy as it was.
        """
        self._pacing.policy = adaptive_policy(rtf, self._pacing.policy, piece_overhead_s)

    def feed(self, delta: str) -> list[str]:
        """Pieces completed by this delta, already made speakable (possibly none)."""
        if not isinstance(delta, str):
            raise TypeError(f"delta must be str, got {type(delta).__name__}")
        text = cuts.clean(delta)
        if text.startswith(" ") and self._buf.endswith(" "):
            text = text[1:]
        self._buf += text
        return self._scan(final=False)

    def flush(self) -> list[str]:
        """The rest of the answer, even without final punctuation; then start afresh."""
        pieces = self._scan(final=True)
        self._pacing = AnswerPacing(self._pacing.policy)
        self._reset()
        return pieces

    def _reset(self) -> None:
        self._buf = ""  # text not yet emitted; starts at the current piece
        self._pos = 0  # everything before this index is known not to end the current piece
        self._line_start = True  # the current piece begins a line
        self._in_code = False  # inside a fenced code block
        self._counted_to = 0  # the current piece's words before this index ...
        self._words = 0  # ... number this many (counted once, for the clause rule)

    def _scan(self, *, final: bool) -> list[str]:
        """Emit every piece whose end is certain; keep the rest, compacted to the current piece."""
        buf = self._buf
        pieces: list[str] = []
        start, limit = 0, self._pacing.policy.max_chars
        while True:
            while start < len(buf) and buf[start] == " ":
                start += 1
            pos = max(self._pos, start)
            found = self._next_cut(buf, start, pos, final)
            if not self._in_code and self._pacing.clause_cuts_allowed():
                before = self._before_a_phrase(buf, start, final)
                # Whichever comes first, a wait included, so that the cut never depends on delta sizes.
                if before is not None and _first_index(before, 0) < _first_index(found, len(buf) + 1):
                    found = before
            if isinstance(found, Undecided):  # wait for more text at its mark
                self._pos = found.at
                break
            if found is None:
                if len(buf) - start > limit:
                    found = cuts.forced_cut(buf, start, limit)
                elif final and start < len(buf):
                    found = Cut(Kind.END, len(buf), len(buf), len(buf))
                else:
                    self._pos = len(buf)
                    break
            self._emit(buf[start : found.end], pieces)
            self._line_start = found.resume > found.end  # the cut consumed a newline
            start = self._pos = self._counted_to = found.resume
            self._words = 0
        self._buf = buf[start:]
        self._pos -= start
        self._counted_to = max(self._counted_to - start, 0)
        return pieces

    def _next_cut(self, buf: str, start: int, pos: int, final: bool) -> Cut | Undecided | None:
        """The first cut at a mark the policy takes, or where to wait, or None (no mark in ``max_chars``)."""
        for found in cuts.marked_cuts(
            buf,
            start,
            pos,
            final=final,
            max_chars=self._pacing.policy.max_chars,
            clauses=self._pacing.clause_cuts_allowed(),
            in_code=self._in_code,
            line_start=self._line_start,
        ):
            if isinstance(found, Undecided) or found.kind is not Kind.CLAUSE:
                return found
            taken = self._clause_taken(buf, start, found.end, final)
            if taken is None:
                return Undecided(found.at)
            if taken:
                return found
        return None

    def _clause_taken(self, buf: str, start: int, end: int, final: bool) -> bool | None:
        """Whether the piece from ``start`` ends at the clause mark that ends at ``end``; None while undecided."""
        self._words += sum(1 for _ in WORD.finditer(buf, self._counted_to, end))
        self._counted_to = end
        policy = self._pacing.policy
        if self._words >= policy.first_piece_min_words:
            return True
        if policy.rtf is None:
            return False
        if self._words < self._pacing.fewest_words_before_a_cut() and not (
            self._words == 1 and self._pacing.one_word_clause_allowed(buf[start:end])
        ):
            return False
        return self._next_piece_in_time(buf, end, final)

    def _next_piece_in_time(self, buf: str, end: int, final: bool) -> bool | None:
        """Ask the speech model whether this shorter piece would stall, given the piece after it.

        ``first_piece_min_words`` is safe against a typical next piece; a shorter piece is safe when the
        piece that follows (up to its first natural cut: a clause or sentence end, or before a
        phrase-opening word) is synthesized before the audio queued by then runs out. Waits (None) until
        that cut is written; reads at most ``max_chars`` characters.
        """
        window = buf[end : end + self._pacing.policy.max_chars + 1]
        complete = final or len(buf) - end > len(window)
        written = cuts.written_words(window, complete=complete)
        if not self._pacing.cut_possible(self._words, len(written)):
            return False
        following = self._following(written, complete, self._words)
        if following is None:
            return None
        return self._pacing.cut_wanted(self._words, following)

    def _following(self, words: list[re.Match[str]], complete: bool, piece_words: int) -> int | None:
        """Words in the piece after a cut that ends a piece of ``piece_words``, up to the cut that would end
        the next one. After the first piece: its first natural or weak cut past the words it needs to sustain
        itself if the ramp goes on to cut it there, else its sentence end. After later pieces: the next
        natural cut (a weak cut is taken only where running on to that would stall). None while that cut is
        not written."""
        finest: Literal["sentence", "natural", "weak"] = "natural"
        if not self._pacing.spoken_any:
            ramp_goes_on = piece_words < self._pacing.policy.ramp_words
            finest = "sentence" if not ramp_goes_on else "weak" if self._pacing.policy.weak_cuts else "natural"
        return cuts.words_to_natural_end(
            [w.group() for w in words], complete, self._pacing.next_piece_floor(), finest=finest
        )

    def _before_a_phrase(self, buf: str, start: int, final: bool) -> Cut | Undecided | None:
        """Where a piece may end before a conjunction or preposition (or, sized by the speech model, at a weak
        cut inside a clause), if no clause mark comes soon.

        "Here is a plan | for your first day | in the city," keeps each part's natural prosody where a cut
        at a bare space inside a phrase would not (docs/decisions/083-cut-before-a-function-word.md). For
        the first piece, and later ones while the ramp lasts. The piece needs ``first_piece_min_words``,
        or, when the server's rtf is known, as few as ``ADAPTIVE_FIRST_WORDS[0]`` if the speech model says
        the piece after the cut is ready before this one has played (:meth:`_following`). Only then are weak
        cuts (``cuts.weak_cuts``: "the museum | is open") candidates too, where natural ones are too far
        apart (docs/decisions/165-weak-cuts.md). Without the rtf, past ``first_piece_min_words``, the
        ``_FUNCTION_LOOKAHEAD`` words after the cut must be written and hold no clause mark (else that
        natural boundary is worth the wait). :class:`Undecided` at a cut whose look-ahead or next piece is
        not written yet. Reads at most ``max_chars`` characters.
        """
        window = buf[start : start + self._pacing.policy.max_chars + 1]
        words = cuts.written_words(window, complete=final)
        fewest = self._pacing.fewest_words_before_a_cut()
        found = {i: Kind.FUNCTION_WORD for i in cuts.function_word_cuts(window, words, fewest)}
        by_model = self._pacing.policy.rtf is not None
        if by_model and self._pacing.policy.weak_cuts:
            found = {i: Kind.WEAK for i in cuts.weak_cuts(window, words, fewest)} | found
        for i in sorted(found):
            at = start + words[i - 1].end()
            if not by_model:
                if i + _FUNCTION_LOOKAHEAD >= len(words):  # its look-ahead is not written yet, or never will be
                    return None if final else Undecided(at)
                if cuts.boundary_in(window[words[i].start() : words[i + _FUNCTION_LOOKAHEAD].end()]):
                    continue
            else:  # a short piece, taken only if the speech model says the next one is ready in time
                if not self._pacing.cut_possible(i, len(words) - i):
                    continue
                following = self._following(words[i:], final, i)
                if following is None:
                    return Undecided(at)  # the next piece's end is not written yet: decide once it is
                if not self._pacing.cut_wanted(i, following):
                    continue
            return Cut(found[i], at, at, at)
        return None

    def _emit(self, raw: str, pieces: list[str]) -> None:
        if self._line_start and is_fence(raw):
            self._in_code = not self._in_code
            return
        piece = speakable(raw, line_start=self._line_start, in_code=self._in_code)
        if piece:
            pieces.append(piece)
            self._pacing.emitted(raw)


def _first_index(found: Cut | Undecided | None, otherwise: int) -> int:
    """Where ``found`` ends the piece, or the mark it waits at; ``otherwise`` for none (a wait at 0 included)."""
    if isinstance(found, Cut):
        return found.end
    return (found.at if found is not None else 0) or otherwise
