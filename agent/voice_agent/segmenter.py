"""LLM text deltas -> speakable pieces, each released the moment its end is certain (008-three-interfaces.md).

Why the first piece matters (005-latency-and-first-piece.md): it alone decides when the listener hears anything; later
pieces are synthesised long before playback needs them. So a piece leaves as soon as its boundary is
certain, and the first one may end at a clause once it holds a few words.

Why hand-written rules and not pysbd: pysbd 0.3.4 (installed) segments well but is not incremental. It
re-segments the whole text on each call (measured here: 0.27 ms per call on 100 characters, 0.9 ms on
300, 3.7 ms on 1,000, 18 ms on 3,000), it cannot tell a certain boundary from a guess at the end of the
text ("I met Dr." and "It is 3." come back as finished sentences), and it took 56 s on 60 kB of
"a. a. a. ". Called on every delta it would be slow and wrong. The rules below look at most two
characters past a full stop and never further back than the current piece, so each character is
examined a bounded number of times: linear time, 3.4 us per 4-character delta of a typical answer
(pysbd on just the last 300 characters: 810 us).

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

import math
import re
from dataclasses import dataclass, replace

from .speakable import is_fence, speakable

# Measured in 005-latency-and-first-piece.md: a 4-word first piece gave first audio at 1.4 s with no playback stall;
# 2 words stalled for 1.1 s, 6 words delayed first audio to 2.5 s.
DEFAULT_FIRST_PIECE_MIN_WORDS = 4
# Far below the protocol's MAX_TEXT_CHARS (5,000) and about one pass of Kokoro's 510-phoneme context
# (English runs near one phoneme per character), so one long sentence never holds back the next for long.
DEFAULT_MAX_CHARS = 300
# A cut needs room for a few words; below this every piece would be a forced cut.
MIN_MAX_CHARS = 16
# No ramp by default: without a server's rtf the first piece is the measured-safe 4 words and the rest are
# sentences, exactly as before the ramp existed. adaptive_policy() turns it on.
DEFAULT_RAMP_WORDS = 0

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
    "vs cf e.g i.e viz approx fig figs no nos vol vols ch sec eq eqs ref refs ed eds"
    .split()
)
_CANDIDATES = re.compile(f"[\n{re.escape(_TERMINALS)}]")
_FIRST_PIECE_CANDIDATES = re.compile(f"[\n{re.escape(_TERMINALS)},;:\\-–—]")
_CODE_CANDIDATES = re.compile("\n")
# A word, for the first-piece rule: a run between spaces or dashes that holds a letter or digit. Clause
# ends that are counted up to are followed by a space or are dashes, so no word straddles two counts.
_WORD = re.compile("[^\\W_][^\\s–—]*")
_OPENERS = "\"'“‘«([{*_`"
# Input hygiene, applied to each delta before scanning. Control and invisible characters are dropped
# (a lone surrogate would also break UTF-8 encoding on the wire); every line break becomes "\n" and
# every other run of whitespace one space, which keeps the look-ahead after a full stop at two characters.
_INVISIBLE = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\u200b-\u200d\u2060\ufeff\ud800-\udfff]")
_LINE_BREAKS = re.compile("\r\n?|[\x0b\x0c\x85\u2028\u2029]")
_SPACES = re.compile("[^\\S\n]+")


@dataclass(frozen=True)
class SegmentPolicy:
    """How eagerly pieces are cut. Small and frozen so that an adaptive policy can swap in another.

    ``first_piece_min_words``: a piece may end at a clause mark once it holds this many words; always for
    the first piece (when ``first_piece_clause``), and for later ones while fewer than ``ramp_words`` words
    have been emitted in the answer (0: the first piece only).
    """

    first_piece_min_words: int = DEFAULT_FIRST_PIECE_MIN_WORDS
    first_piece_clause: bool = True
    max_chars: int = DEFAULT_MAX_CHARS
    ramp_words: int = DEFAULT_RAMP_WORDS

    def __post_init__(self) -> None:
        _check_int("first_piece_min_words", self.first_piece_min_words, 1)
        if not isinstance(self.first_piece_clause, bool):
            raise SegmentPolicyError(f"first_piece_clause must be a bool, got {self.first_piece_clause!r}")
        _check_int("max_chars", self.max_chars, MIN_MAX_CHARS)
        _check_int("ramp_words", self.ramp_words, 0)


class SegmentPolicyError(ValueError):
    """A policy value out of range: raised when the policy is built, never mid-answer."""


def _check_int(name: str, value: object, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SegmentPolicyError(f"{name} must be an int, got {value!r}")
    if value < low:
        raise SegmentPolicyError(f"{name} must be >= {low}, got {value}")


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

    def adapt_to(self, rtf: float | None) -> None:
        """Size the clause cuts for a server of real-time factor ``rtf`` (see :func:`adaptive_policy`).

        ``None`` (the server advertised none) keeps the policy. Meant for the moment the speech session's
        Ready arrives, usually before the first delta; called later, it applies from the next undecided
        boundary on. A malformed ``rtf`` raises :class:`SegmentPolicyError` and leaves the policy as it was.
        """
        self._policy = adaptive_policy(rtf, self._policy)

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
        self._counted_to = 0  # the current piece's words before this index ...
        self._words = 0  # ... number this many (counted once, for the first-piece rule)

    def _scan(self, *, final: bool) -> list[str]:
        """Emit every piece whose end is certain; keep the rest, compacted to the current piece."""
        buf, pieces = self._buf, []
        start, limit = 0, self._policy.max_chars
        while True:
            while start < len(buf) and buf[start] == " ":
                start += 1
            pos = max(self._pos, start)
            end, resume = self._next_boundary(buf, start, pos, final)
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
        self._words += sum(1 for _ in _WORD.finditer(buf, self._counted_to, end))
        self._counted_to = end
        return self._words >= self._policy.first_piece_min_words

    def _emit(self, raw: str, pieces: list[str]) -> None:
        if self._line_start and is_fence(raw):
            self._in_code = not self._in_code
            return
        piece = speakable(raw, line_start=self._line_start, in_code=self._in_code)
        if piece:
            pieces.append(piece)
            self._spoken_any = True
            if self._emitted_words < self._policy.ramp_words:  # counting stops with the ramp: linear time
                self._emitted_words += sum(1 for _ in _WORD.finditer(raw))


def _forced_cut(buf: str, start: int, limit: int) -> int:
    """Where a piece longer than ``limit`` is cut: last clause mark, else last space, else the limit."""
    window = buf[start : start + limit + 1]
    last_clause = None
    for last_clause in _CLAUSE_CUT.finditer(window):
        pass
    if last_clause is not None:
        return start + last_clause.end()
    space = window.rfind(" ")
    return start + space if space > 0 else start + limit


# ----------------------------------------------------------------------------- adaptive first piece and ramp
# Why adaptive (005-latency-and-first-piece.md): the first piece alone decides when speech starts, but its audio
# must outlast the synthesis of the piece after it, or the listener hears a few words and then a gap. How
# long that synthesis takes is the server's real-time factor (Ready.rtf, or measured) times that piece's
# length, so the fewest safe words follow from the rtf; a GPU's small rtf allows a very short first piece.
#
# Why a ramp: a short first piece is only safe if the next piece is short too. Without the ramp the next
# piece is the rest of the sentence (the bench's 3-word "Yes, of course," then 15 words: audible at 0.83 s,
# then a 1.11 s stall). With it, the next pieces also end at clause marks while little audio is queued, so
# each one's synthesis fits in the audio ahead of it; every piece adds (1 - rtf) of its own length to that
# lead, and once the lead covers a whole long sentence's synthesis the ramp ends and pieces are sentences
# again (fewer seams, better prosody). The constants are the figures `python -m bench` measured (README,
# "Benchmark"); with them, the 2-core CPU's advertised rtf 0.33 gives a 3-word first piece and clause cuts
# until 10 words are out: the typical answer is audible at 0.71 s with no stall, where the same 3-word first
# piece without the ramp stalls for 1.14 s and the 4-word rule is audible at 1.54 s.
# The piece after the first, cut at its first clause by the ramp ("the museum is open every day,").
NEXT_PIECE_WORDS = 6
# Per piece beyond synthesis: the server's own cost (the bench measured ~10 ms of socket and scheduler on
# loopback) and the engine's fixed cost per call, which weighs more on a short piece than the rtf says.
PIECE_OVERHEAD_S = 0.05
SPEECH_WORDS_PER_S = 3.6  # Kokoro af_heart at speed 1.0, trimmed edges (bench: 3.6-3.75 on typical/long)
ADAPTIVE_FIRST_WORDS = (2, 12)  # a 1-word piece sounds clipped; past 12 the first sentence ends anyway
LONG_SENTENCE_WORDS = 20  # the ramp lasts until a sentence this long fits in the audio queued (typical: 19)
MAX_RAMP_WORDS = 60  # a server slower than real time never catches up; the ramp would not end


def _check_rtf(rtf: float) -> None:
    if isinstance(rtf, bool) or not isinstance(rtf, (int, float)) or not math.isfinite(rtf) or rtf <= 0:
        raise SegmentPolicyError(f"rtf must be a positive number, got {rtf!r}")


def first_piece_words(rtf: float) -> int:
    """Fewest first-piece words whose audio outlasts synthesising the next piece.

    Audio of ``n`` words lasts ``n / SPEECH_WORDS_PER_S``; the next piece is ready after
    ``rtf * NEXT_PIECE_WORDS / SPEECH_WORDS_PER_S + PIECE_OVERHEAD_S``. So
    ``n >= rtf * NEXT_PIECE_WORDS + PIECE_OVERHEAD_S * SPEECH_WORDS_PER_S``, kept within ``ADAPTIVE_FIRST_WORDS``.
    """
    _check_rtf(rtf)
    needed = rtf * NEXT_PIECE_WORDS + PIECE_OVERHEAD_S * SPEECH_WORDS_PER_S  # inf for a huge rtf: no ceil
    low, high = ADAPTIVE_FIRST_WORDS
    return high if needed >= high else max(math.ceil(needed), low)


def ramp_words(rtf: float) -> int:
    """Words after which the audio queued ahead covers a long sentence's synthesis: where the ramp ends.

    Synthesis is serial and faster than the LLM, so after ``W`` words the lead is about
    ``(1 - rtf) * W / SPEECH_WORDS_PER_S``; it must cover ``rtf * LONG_SENTENCE_WORDS / SPEECH_WORDS_PER_S +
    PIECE_OVERHEAD_S``. So ``W >= (rtf * LONG_SENTENCE_WORDS + PIECE_OVERHEAD_S * SPEECH_WORDS_PER_S) / (1 - rtf)``,
    at most ``MAX_RAMP_WORDS`` (an rtf of 1 or more never gets there).
    """
    _check_rtf(rtf)
    if rtf >= 1:
        return MAX_RAMP_WORDS
    needed = (rtf * LONG_SENTENCE_WORDS + PIECE_OVERHEAD_S * SPEECH_WORDS_PER_S) / (1 - rtf)
    return min(math.ceil(needed), MAX_RAMP_WORDS)


def adaptive_policy(rtf: float | None, base: SegmentPolicy = SegmentPolicy()) -> SegmentPolicy:
    """``base`` with its clause-cut length and ramp sized for a server of real-time factor ``rtf``.

    ``None`` (a server that advertises no rtf) keeps ``base`` as it is.
    """
    if rtf is None:
        return base
    return replace(base, first_piece_min_words=first_piece_words(rtf), ramp_words=ramp_words(rtf))
