"""LLM text deltas -> speakable pieces, each released the moment its end is certain (008-three-interfaces.md).

Why the first piece matters (005-latency-and-first-piece.md): it alone decides when the listener hears anything; later
pieces are synthesised long before playback needs them. So a piece leaves as soon as its boundary is
certain, and the first one may end at a clause once it holds a few words.

Why hand-written rules and not pysbd: pysbd 0.3.4 (measured, then dropped as a dependency) segments
well but is not incremental. It re-segments the whole text on each call (measured: 0.27 ms per call on
100 characters, 0.9 ms on 300, 3.7 ms on 1,000, 18 ms on 3,000), it cannot tell a certain boundary
from a guess at the end of the text ("I met Dr." and "It is 3." come back as finished sentences), and
it took 56 s on 60 kB of "a. a. a. ". Called on every delta it would be slow and wrong. The rules
below look at most two characters past a full stop and never further back than the current piece, so
each character is examined a bounded number of times: linear time, 3.4 us per 4-character delta of a
typical answer (pysbd on just the last 300 characters: 810 us).

A boundary is:
- a newline (markdown headings, bullets and code lines are lines);
- ``.``, ``!``, ``?``, ``…`` (a run of them), then closing quotes, brackets or emphasis, then a space,
  unless the next character is lower case ("e.g. the", "Wait... what", '"Why?" she asked') or the full
  stop ends a title ("Dr."), an initial ("J."), or a list number at the start of a line ("1.");
  a full stop followed by anything but a space (3.14, v2.1, example.com, bob.smith@x.org) never is;
- for the first piece, a clause mark (``,`` ``;`` ``:`` followed by a space, a spaced hyphen, an
  em or en dash) once the piece holds ``first_piece_min_words`` words; the same for every later piece
  while the answer's emitted words are fewer than ``ramp_words`` (the ramp, see the end of this module);
- a forced cut when a piece would exceed ``max_chars``: at its last clause mark, else its last space,
  else exactly at ``max_chars``.
Inside a fenced code block only newlines (and forced cuts) are boundaries.
"""

from __future__ import annotations

import re

from speech_protocol.pace import WORD

from .first_piece import (
    ADAPTIVE_FIRST_WORDS,
    SegmentPolicy,
    SegmentPolicyError,
    adaptive_policy,
    fewest_sustaining_words,
    sustaining_words,
)
from .speakable import is_fence, speakable

__all__ = ["SegmentPolicy", "SegmentPolicyError", "Segmenter", "natural_cut_after"]

_TERMINALS = ".!?…"
_CLOSERS = "\"'”’»)]}*_`"
_TERMINAL_RUN = re.compile(f"[{re.escape(_TERMINALS)}]+[{re.escape(_CLOSERS)}]*")
_CLAUSE_RUN = re.compile(f"(?:[,;:]|-+|[–—]+)[{re.escape(_CLOSERS)}]*")
# Where a forced cut may fall: just after a clause mark that a space follows, or after a dash run.
_CLAUSE_CUT = re.compile(f"(?:(?:[,;:]|\\s-+)[{re.escape(_CLOSERS)}]*(?= )|[–—]+[{re.escape(_CLOSERS)}]*(?=.))")
# Abbreviations whose full stop does not end a sentence even before a capital ("Dr. Smith", "e.g. Paris").
# Others ("a.m.", "U.S.", "etc.") end one before a capital: "We left at 7 a.m. Then it rained."
_NEVER_ENDS = frozenset(
    "mr mrs ms mx dr prof sr jr st mt ft gen col lt sgt capt cmdr adm gov sen rep rev hon pres "
    "vs cf e.g i.e viz approx fig figs no nos vol vols ch sec eq eqs ref refs ed eds".split()
)
_CANDIDATES = re.compile(f"[\n{re.escape(_TERMINALS)}]")
_FIRST_PIECE_CANDIDATES = re.compile(f"[\n{re.escape(_TERMINALS)},;:\\-–—]")
_CODE_CANDIDATES = re.compile("\n")
# Words (speech_protocol.pace.WORD) end at spaces and dashes, and the clause ends that words are counted up
# to are followed by a space or are dashes, so no word straddles two counts.
# Where a phrase starts: a first piece may end just before one of these (prepositions and conjunctions
# that open a phrase of their own; not "of", "to", "that", "as", which bind to the word before).
_FUNCTION_WORDS = frozenset(
    "for in on at with from into about after before until while when where because and but or so if "
    "since during through across without within near by".split()
)
_FUNCTION_LOOKAHEAD = 3  # words after the cut that must hold no clause mark: "soon" (~0.1 s of LLM at 40 tok/s)
_SOON_BOUNDARY = re.compile(f"[\n{re.escape(_TERMINALS)},;:–—]| -")
_SENTENCE_END_WORD = re.compile(f"[{re.escape(_TERMINALS)}][{re.escape(_CLOSERS)}]*$")
_CLAUSE_END_WORD = re.compile(f"[,;:][{re.escape(_CLOSERS)}]*$")
_OPENERS = "\"'“‘«([{*_`"
# Input hygiene, applied to each delta before scanning. Control and invisible characters are dropped
# (a lone surrogate would also break UTF-8 encoding on the wire); every line break becomes "\n" and
# every other run of whitespace one space, which keeps the look-ahead after a full stop at two characters.
_INVISIBLE = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\u200b-\u200d\u2060\ufeff\ud800-\udfff]")
_LINE_BREAKS = re.compile("\r\n?|[\x0b\x0c\x85\u2028\u2029]")
_SPACES = re.compile("[^\\S\n]+")


class Segmenter:
    """Cuts one answer's text stream into speakable pieces. Create one per answer.

    ``feed`` returns the pieces a delta completed; ``flush`` returns the rest at the end of the answer
    and makes the segmenter ready for a new answer. The pieces are the same whatever the delta sizes.
    """

    def __init__(self, policy: SegmentPolicy = SegmentPolicy()) -> None:
        if not isinstance(policy, SegmentPolicy):
            raise TypeError(f"policy must be a SegmentPolicy, got {type(policy).__name__}")
        self._policy = policy
        self._reset()

    @property
    def policy(self) -> SegmentPolicy:
        return self._policy

    def adapt_to(self, rtf: float | None, piece_overhead_s: float | None = None) -> None:
        """Size the clause cuts for a server of real-time factor ``rtf`` and cost per piece
        ``piece_overhead_s``, both from its Ready (see :func:`adaptive_policy`).

        ``None`` (the server advertised none) keeps the policy. Meant for the moment the speech session's
        Ready arrives, usually before the first delta; called later, it applies from the next undecided
        boundary on. A malformed value raises :class:`SegmentPolicyError` and leaves the policy as it was.
        """
        self._policy = adaptive_policy(rtf, self._policy, piece_overhead_s)

    def feed(self, delta: str) -> list[str]:
        """Pieces completed by this delta, already made speakable (possibly none)."""
        if not isinstance(delta, str):
            raise TypeError(f"delta must be str, got {type(delta).__name__}")
        text = _SPACES.sub(" ", _LINE_BREAKS.sub("\n", _INVISIBLE.sub("", delta)))
        if text.startswith(" ") and self._buf.endswith(" "):
            text = text[1:]
        self._buf += text
        return self._scan(final=False)

    def flush(self) -> list[str]:
        """The rest of the answer, even without final punctuation; then start afresh."""
        pieces = self._scan(final=True)
        self._reset()
        return pieces

    def _reset(self) -> None:
        self._buf = ""  # text not yet emitted; starts at the current piece
        self._pos = 0  # everything before this index is known not to end the current piece
        self._line_start = True  # the current piece begins a line
        self._in_code = False  # inside a fenced code block
        self._spoken_any = False  # a piece has been emitted (the first-piece rule is over)
        self._emitted_words = 0  # words in the pieces emitted so far, counted while the ramp lasts
        self._slack_s = 0.0  # the speech model's audio queued minus synthesis owed, over the ramp's pieces
        self._counted_to = 0  # the current piece's words before this index ...
        self._words = 0  # ... number this many (counted once, for the first-piece rule)

    def _scan(self, *, final: bool) -> list[str]:
        """Emit every piece whose end is certain; keep the rest, compacted to the current piece."""
        buf = self._buf
        pieces: list[str] = []
        start, limit = 0, self._policy.max_chars
        while True:
            while start < len(buf) and buf[start] == " ":
                start += 1
            pos = max(self._pos, start)
            end, resume = self._next_boundary(buf, start, pos, final)
            if not self._in_code and self._clause_cuts_allowed():
                cut = self._before_function_word(buf, start, final)
                if cut is not None and cut < (end if end is not None else resume or len(buf) + 1):
                    end = resume = cut  # whichever comes first, so the cut never depends on delta sizes
            if end is None:
                if resume is not None:  # undecided: wait for more text at `resume`
                    self._pos = resume
                    break
                if len(buf) - start > limit:
                    end = resume = _forced_cut(buf, start, limit)
                elif final and start < len(buf):
                    end = resume = len(buf)
                else:
                    self._pos = len(buf)
                    break
            self._emit(buf[start:end], pieces)
            self._line_start = resume > end  # the boundary consumed a newline
            start = self._pos = self._counted_to = resume
            self._words = 0
        self._buf = buf[start:]
        self._pos -= start
        self._counted_to = max(self._counted_to - start, 0)
        return pieces

    def _next_boundary(self, buf: str, start: int, pos: int, final: bool) -> tuple[int | None, int | None]:
        """(end of the piece, where the next one starts), or (None, index to wait at), or (None, None).

        Only candidates whose piece fits in ``max_chars`` are examined (a run of marks is matched no
        further than that), so each call reads a bounded window; (None, None) means there is no
        boundary in it, so the caller cuts the piece or waits for more text.
        """
        limit = self._policy.max_chars
        window_end = min(len(buf), start + limit + 1)
        if self._in_code:
            candidates = _CODE_CANDIDATES
        elif self._clause_cuts_allowed():
            candidates = _FIRST_PIECE_CANDIDATES
        else:
            candidates = _CANDIDATES
        while (found := candidates.search(buf, pos, window_end)) is not None:
            i = found.start()
            if buf[i] == "\n":
                return i, i + 1
            is_terminal = buf[i] in _TERMINALS
            end = (_TERMINAL_RUN if is_terminal else _CLAUSE_RUN).match(buf, i, window_end).end()
            pos = end
            if end - start > limit:
                continue  # the piece would be too long: a forced cut will come first
            if is_terminal:
                verdict = self._sentence_ends(buf, start, i, end, final)
            else:
                verdict = self._clause_ends(buf, start, i, end, final)
            if verdict is None:
                return None, i
            if verdict:
                return end, end
        return None, None

    def _before_function_word(self, buf: str, start: int, final: bool) -> int | None:
        """Where a piece may end before a conjunction or preposition, if no clause mark comes soon.

        "Here is a plan | for your first day | in the city," keeps each part's natural prosody where a cut
        at a bare space inside a phrase would not (docs/decisions/083-cut-before-a-function-word.md). For
        the first piece, and later ones while the ramp lasts. The piece needs ``first_piece_min_words``,
        or, when the server's rtf is known, as few as ``ADAPTIVE_FIRST_WORDS[0]`` if the speech model says
        the piece after the cut (up to its own natural end) is ready before this one has played. Past
        ``first_piece_min_words``, the ``_FUNCTION_LOOKAHEAD`` words after the cut must be written and hold
        no clause mark (else that natural boundary is worth the wait). Reads at most ``max_chars`` characters.
        """
        policy = self._policy
        window = buf[start : start + policy.max_chars + 1]
        words = list(WORD.finditer(window))
        if words and not final and words[-1].end() == len(window):
            words.pop()  # the last word may still be growing ("fo" -> "for", "day" -> "day,")
        fewest = ADAPTIVE_FIRST_WORDS[0] if policy.rtf is not None else policy.first_piece_min_words
        by_model = policy.rtf is not None
        for i in range(fewest, len(words)):
            word = words[i]
            if not by_model and i + _FUNCTION_LOOKAHEAD >= len(words):
                return None  # its look-ahead is not written yet
            if word.group().lower() not in _FUNCTION_WORDS or window[words[i - 1].end() : word.start()] != " ":
                continue
            if _SOON_BOUNDARY.search(words[i - 1].group()):
                continue  # the word before ends a clause: that boundary is the cut
            if not by_model:
                after = window[word.start() : words[i + _FUNCTION_LOOKAHEAD].end()]
                if _SOON_BOUNDARY.search(after):
                    continue
            else:  # a short piece, taken only if the speech model says the next one is ready in time
                following = _words_to_natural_end([w.group() for w in words[i:]], final, self._next_piece_floor())
                if following is None:
                    return None  # the next piece's end is not written yet: decide once it is
                if not self._cut_wanted(i, following):
                    continue
            return start + words[i - 1].end()
        return None

    def _clause_cuts_allowed(self) -> bool:
        """The first piece, and later ones while the ramp lasts, may end at a clause mark."""
        policy = self._policy
        return policy.first_piece_clause and (not self._spoken_any or self._emitted_words < policy.ramp_words)

    def _sentence_ends(self, buf: str, start: int, i: int, end: int, final: bool) -> bool | None:
        """Whether the terminal run buf[i:end] ends a sentence; None while the next characters are unknown."""
        following = buf[end : end + 2]
        if following.startswith("\n"):
            return True
        if not final and len(following) < 2:
            return None
        if following[:1] not in ("", " "):
            return False  # 3.14, v2.1, example.com, bob.smith@example.org
        nxt = following[1:2]
        if nxt.islower():
            return False  # "e.g. the", "Wait... what", '"Why?" she asked'
        if buf[i:end].rstrip(_CLOSERS) != "." or nxt in ("", "\n"):
            return True
        token_start = max(buf.rfind(" ", start, i) + 1, start)
        token = buf[token_start:i].lstrip(_OPENERS)
        if token.lower() in _NEVER_ENDS:
            return False
        if len(token) == 1 and token.isupper():
            return False  # an initial: "J. R. R. Tolkien"
        is_list_number = token.isdigit() and self._line_start and token_start == start
        return not is_list_number

    def _clause_ends(self, buf: str, start: int, i: int, end: int, final: bool) -> bool | None:
        """Whether the clause mark buf[i:end] may end the piece (first or ramp); None while undecided."""
        if end == len(buf) and not final:
            return None
        spaced = end == len(buf) or buf[end] in " \n"
        if buf[i] in "–—":
            spaced = True
        elif buf[i] == "-":
            spaced = spaced and i > start and buf[i - 1] == " "
        if not spaced:
            return False
        self._words += sum(1 for _ in WORD.finditer(buf, self._counted_to, end))
        self._counted_to = end
        if self._words >= self._policy.first_piece_min_words:
            return True
        if self._policy.rtf is None or self._words < ADAPTIVE_FIRST_WORDS[0]:
            return False
        return self._next_piece_in_time(buf, end, final)

    def _next_piece_in_time(self, buf: str, end: int, final: bool) -> bool | None:
        """Ask the speech model whether this shorter piece would stall, given the piece after it.

        ``first_piece_min_words`` is safe against a typical next piece; a shorter piece is safe when the
        piece that follows (up to its first natural cut: a clause or sentence end, or before a
        phrase-opening word) is synthesized before the audio queued by then runs out. Waits (None) until
        that cut is written; reads at most ``max_chars`` characters.
        """
        policy = self._policy
        window = buf[end : end + policy.max_chars + 1]
        words = list(WORD.finditer(window))
        if words and not final and words[-1].end() == len(buf) - end:
            words.pop()  # this word may still grow ("day" -> "day,")
        following = _words_to_natural_end(
            [w.group() for w in words], final or len(buf) - end > len(window), self._next_piece_floor()
        )
        if following is None:
            return None
        return self._cut_wanted(self._words, following)

    def _cut_wanted(self, words: int, following: int) -> bool:
        """The speech model's verdict on a natural cut after ``words``, ``following`` words before the next.

        The first piece ends at the earliest such cut whose next piece is ready before it has played:
        that is what brings speech forward. A later piece ends there only when running on to the next
        cut would outlast the audio queued ahead: each extra cut is a seam in the prosody, so it must buy
        a stall that would otherwise happen, and hold enough words to pay towards the next cut
        (:func:`~voice_agent.first_piece.sustaining_words`): a piece that merely breaks even leaves nothing for the
        next cut's fixed cost, and the stall comes one piece later (088-piece-overhead.md).
        """
        model = self._policy.speech_model()
        if not self._spoken_any:
            return not model.cut_stalls(words, following)
        return words >= sustaining_words(model) and self._lead_s(words + following) < 0

    def _next_piece_floor(self) -> int:
        """Fewest words of the piece after a first-piece cut, as the ramp will cut it: one that sustains
        itself (:func:`~voice_agent.first_piece.fewest_sustaining_words`). Later cuts look at the very next natural end."""
        return 1 if self._spoken_any else fewest_sustaining_words(self._policy.speech_model())

    def _emit(self, raw: str, pieces: list[str]) -> None:
        if self._line_start and is_fence(raw):
            self._in_code = not self._in_code
            return
        piece = speakable(raw, line_start=self._line_start, in_code=self._in_code)
        if piece:
            pieces.append(piece)
            self._spoken_any = True
            if self._emitted_words < self._policy.ramp_words:  # counting stops with the ramp: linear time
                words = sum(1 for _ in WORD.finditer(raw))
                if self._policy.rtf is not None:  # the first piece's synthesis is the wait before playback
                    model = self._policy.speech_model()
                    self._slack_s += model.audio_s(words) - (model.synth_s(words) if self._emitted_words else 0.0)
                self._emitted_words += words

    def _lead_s(self, words: int) -> float:
        """Audio queued ahead of a piece of ``words`` once it is synthesized (0 for the first piece).

        The speech model's view: the LLM writes far faster than speech, so each piece after the first is
        synthesized right after the one before, and what the listener has queued grows by every piece's
        audio and shrinks by every later piece's synthesis (``_slack_s``).
        """
        if not self._spoken_any:
            return 0.0
        return self._slack_s - self._policy.speech_model().synth_s(words)


def _words_to_natural_end(words: list[str], final: bool, at_least: int = 1) -> int | None:
    """How many of ``words`` a piece starting at the first would hold up to its first natural cut after
    at least ``at_least`` words; None while that cut is not written yet (all of them at the end of the answer)."""
    for k, word in enumerate(words):
        if k + 1 >= at_least and natural_cut_after(word, words[k + 1] if k + 1 < len(words) else ""):
            return k + 1  # a clause or sentence end needs no next word to be known
    return len(words) if final else None


def natural_cut_after(word: str, next_word: str) -> bool:
    """Whether a piece may end between these two words with its prosody intact, as this module cuts:
    after a sentence end or clause mark, at a dash, or before a phrase-opening conjunction or preposition.

    The benchmark's natural-cut lower bound (``bench.lower_bound``) allows only these cuts, so the agent's
    policy is compared with the best it could do without cutting inside a phrase.
    """
    return bool(
        _SENTENCE_END_WORD.search(word)
        or _CLAUSE_END_WORD.search(word)
        or word.endswith(("–", "—"))
        or next_word == "-"
        or next_word.startswith(("–", "—"))
        or next_word.lower() in _FUNCTION_WORDS
    )


def _forced_cut(buf: str, start: int, limit: int) -> int:
    """Where a piece longer than ``limit`` is cut: last clause mark, else last space, else the limit."""
    window = buf[start : start + limit + 1]
    last_clause = next(reversed(list(_CLAUSE_CUT.finditer(window))), None)
    if last_clause is not None:
        return start + last_clause.end()
    space = window.rfind(" ")
    return start + space if space > 0 else start + limit
