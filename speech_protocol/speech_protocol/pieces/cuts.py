"""Where an answer's text may be cut into pieces, and of what kind each cut is: no timing, no policy, no state.

The segmenter (:mod:`speech_protocol.pieces.segmenter`) feeds these functions the text written so far and chooses among
the cuts they offer with the policy (:mod:`speech_protocol.pieces.first_piece`). A cut is:

- ``LINE``: a newline (markdown headings, bullets and code lines are lines);
- ``SENTENCE``: ``.``, ``!``, ``?``, ``…``, Hindi's ``।`` (a run of them), then closing quotes, brackets or
  emphasis, then a space, unless the next character is lower case ("e.g. the", "Wait... what", '"Why?" she asked') or the
  full stop ends a title ("Dr."), an initial ("J."), or a list number at the start of a line ("1."); a
  full stop followed by anything but a space (3.14, v2.1, example.com, bob.smith@x.org) never is; the
  full-width ``。！？`` of Japanese and Chinese, which no space follows, always are;
- ``CLAUSE``: ``,`` ``;`` ``:`` followed by a space, a spaced hyphen, an em or en dash, the full-width
  ``、，；：``;
- ``FUNCTION_WORD``: just before a conjunction or preposition that opens a phrase of its own
  (docs/decisions/083-cut-before-a-function-word.md);
- ``WEAK``: inside a clause, where English prosody suffers least: just before an auxiliary or a form of
  "be" that follows a noun ("the museum | is open"), or before a determiner that follows a content word
  ("is open | every day"); taken only where the speech model says every natural cut would stall
  (docs/decisions/165-weak-cuts.md);
- ``FORCED``: where a piece too long for ``max_chars`` is cut: its last clause mark, else its last space,
  else exactly at the limit;
- ``END``: the end of the answer.

Inside a fenced code block only newlines (and forced cuts) are cuts. Every function reads a bounded window
(at most ``max_chars`` past the current piece's start, two characters past a full stop), so a text is read
in linear time however it arrives (docs/decisions/117-segmenter-cuts-and-policy.md).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from ..pace import WORD

_WIDE_TERMINALS = "。！？"  # Japanese and Chinese: no space after them, none between words
_WIDE_CLAUSES = "、，；："
_TERMINALS = ".!?…।" + _WIDE_TERMINALS
_CLOSERS = "\"'”’»)]}*_`」』）】》"
_OPENERS = "\"'“‘«([{*_`¿¡「『（【《"
_TERMINAL_RUN = re.compile(f"[{re.escape(_TERMINALS)}]+[{re.escape(_CLOSERS)}]*")
_CLAUSE_RUN = re.compile(f"(?:[,;:{_WIDE_CLAUSES}]|-+|[–—]+)[{re.escape(_CLOSERS)}]*")
# Where a forced cut may fall: just after a clause mark that a space follows, or after a dash run.
_CLAUSE_CUT = re.compile(
    f"(?:(?:[,;:]|\\s-+)[{re.escape(_CLOSERS)}]*(?= )|[–—{_WIDE_CLAUSES}]+[{re.escape(_CLOSERS)}]*(?=.))"
)
# Abbreviations whose full stop does not end a sentence even before a capital ("Dr. Smith", "e.g. Paris").
# Others ("a.m.", "U.S.", "etc.") end one before a capital: "We left at 7 a.m. Then it rained."
_NEVER_ENDS = frozenset(
    "mr mrs ms mx dr prof sr jr st mt ft gen col lt sgt capt cmdr adm gov sen rep rev hon pres "
    "vs cf e.g i.e viz approx fig figs no nos vol vols ch sec eq eqs ref refs ed eds".split()
)
_MARKS = re.compile(f"[\n{re.escape(_TERMINALS)}]")
_MARKS_WITH_CLAUSES = re.compile(f"[\n{re.escape(_TERMINALS)},;:{_WIDE_CLAUSES}\\-–—]")
_CODE_MARKS = re.compile("\n")
# Where a phrase starts: a piece may end just before one of these (prepositions and conjunctions that open
# a phrase of their own; not "of", "to", "that", "as", which bind to the word before).
_FUNCTION_WORDS = frozenset(
    "for in on at with from into about after before until while when where because and but or so if "
    "since during through across without within near by".split()
)
# Where a clause may be cut when its natural cuts are too far apart: before the verb that follows its subject
# (auxiliaries and forms of "be", "have", "do") or before a determiner that opens a noun phrase ...
_PHRASE_HEADS = frozenset(
    "is are was were has have had will would can could should may might must does did "
    "the a an this these those my your our their his her its every each some".split()
)
# ... but never after a word that such a head binds to: a preposition or conjunction ("in | the city"), a
# head itself ("will | have", "is | a"), "of", "to", "as", "not", or a subject pronoun ("it | is").
_NO_WEAK_CUT_AFTER = (
    _FUNCTION_WORDS
    | _PHRASE_HEADS
    | frozenset("of to as that than not no i you he she it we they there here who which what".split())
)
_SOON_BOUNDARY = re.compile(f"[\n{re.escape(_TERMINALS)},;:{_WIDE_CLAUSES}–—]| -")
_SENTENCE_END_WORD = re.compile(f"[{re.escape(_TERMINALS)}][{re.escape(_CLOSERS)}]*$")
_CLAUSE_END_WORD = re.compile(f"[,;:{_WIDE_CLAUSES}][{re.escape(_CLOSERS)}]*$")
# Input hygiene, applied to each delta before scanning. Control and invisible characters are dropped
# (a lone surrogate would also break UTF-8 encoding on the wire); every line break becomes "\n" and
# every other run of whitespace one space, which keeps the look-ahead after a full stop at two characters.
_INVISIBLE = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\u200b-\u200d\u2060\ufeff\ud800-\udfff]")
_LINE_BREAKS = re.compile("\r\n?|[\x0b\x0c\x85\u2028\u2029]")
_SPACES = re.compile("[^\\S\n]+")


class Kind(enum.Enum):
    LINE = "line"
    SENTENCE = "sentence"
    CLAUSE = "clause"
    FUNCTION_WORD = "function word"
    WEAK = "weak"
    FORCED = "forced"
    END = "end of the answer"


@dataclass(frozen=True)
class Cut:
    """A piece may end at ``end`` (the mark that allows it starts at ``at``); the next starts at ``resume``."""

    kind: Kind
    at: int
    end: int
    resume: int


@dataclass(frozen=True)
class Undecided:
    """Whether the mark at ``at`` ends a piece depends on text not written yet."""

    at: int


def clean(delta: str) -> str:
    """A delta as the cuts read it: no control or invisible characters, ``\\n`` line breaks, single spaces."""
    return _SPACES.sub(" ", _LINE_BREAKS.sub("\n", _INVISIBLE.sub("", delta)))


def marked_cuts(
    buf: str, start: int, pos: int, *, final: bool, max_chars: int, clauses: bool, in_code: bool, line_start: bool
) -> Iterator[Cut | Undecided]:
    """The cuts at marks (line, sentence, and clause when ``clauses``) of the piece that starts at ``start``,
    in text order from ``pos``, within ``max_chars``; an :class:`Undecided` ends them. ``line_start``: the
    piece begins a line (a "1." there is a list number). ``final``: no more text will come."""
    window_end = min(len(buf), start + max_chars + 1)
    marks = _CODE_MARKS if in_code else _MARKS_WITH_CLAUSES if clauses else _MARKS
    while (found := marks.search(buf, pos, window_end)) is not None:
        i = found.start()
        if buf[i] == "\n":
            yield Cut(Kind.LINE, i, i, i + 1)
            return
        is_terminal = buf[i] in _TERMINALS
        run = (_TERMINAL_RUN if is_terminal else _CLAUSE_RUN).match(buf, i, window_end)
        assert run is not None  # the mark found at i begins its own run
        end = pos = run.end()
        if end - start > max_chars:
            continue  # the piece would be too long: a forced cut will come first
        if is_terminal:
            verdict = _sentence_ends(buf, start, i, end, final=final, line_start=line_start)
        else:
            verdict = _clause_mark_ends(buf, start, i, end, final=final)
        if verdict is None:
            yield Undecided(i)
            return
        if verdict:
            yield Cut(Kind.SENTENCE if is_terminal else Kind.CLAUSE, i, end, end)


def _sentence_ends(buf: str, start: int, i: int, end: int, *, final: bool, line_start: bool) -> bool | None:
    """Whether the terminal run buf[i:end] ends a sentence; None while the next characters are unknown."""
    following = buf[end : end + 2]
    if following.startswith("\n"):
        return True
    if buf[i] in _WIDE_TERMINALS:
        return True if following or final else None  # None: a closing bracket may still come
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
    is_list_number = token.isdigit() and line_start and token_start == start
    return not is_list_number


def _clause_mark_ends(buf: str, start: int, i: int, end: int, *, final: bool) -> bool | None:
    """Whether the clause mark buf[i:end] is spaced as a clause end; None while the next character is unknown."""
    if end == len(buf) and not final:
        return None
    spaced = end == len(buf) or buf[end] in " \n"
    if buf[i] in "–—" or buf[i] in _WIDE_CLAUSES:
        return True
    if buf[i] == "-":
        return spaced and i > start and buf[i - 1] == " "
    return spaced


def written_words(window: str, *, complete: bool) -> list[re.Match[str]]:
    """The words of ``window``; unless ``complete``, without a last word that reaches its end and may still
    grow ("fo" -> "for", "day" -> "day,")."""
    words = list(WORD.finditer(window))
    if words and not complete and words[-1].end() == len(window):
        words.pop()
    return words


def function_word_cuts(window: str, words: list[re.Match[str]], first: int) -> Iterator[int]:
    """Each ``i >= first`` where a piece of ``window`` may end just before ``words[i]``: a phrase-opening
    word one space after a word that ends no clause (a clause end there is the cut itself)."""
    for i in range(max(first, 1), len(words)):
        word, before = words[i], words[i - 1]
        if word.group().lower() in _FUNCTION_WORDS and window[before.end() : word.start()] == " ":
            if not _SOON_BOUNDARY.search(before.group()):
                yield i


def weak_cut_before(word: str, next_word: str) -> bool:
    """Whether a piece may end between these two words at a weak cut (see ``WEAK`` above): ``next_word`` is a
    verb's auxiliary or a determiner, and ``word`` a content word that ends no clause."""
    return (
        next_word.lower() in _PHRASE_HEADS
        and word.lower() not in _NO_WEAK_CUT_AFTER
        and not _SOON_BOUNDARY.search(word)
    )


def weak_cuts(window: str, words: list[re.Match[str]], first: int) -> Iterator[int]:
    """Each ``i >= first`` where a piece of ``window`` may end just before ``words[i]`` at a weak cut: the two
    words one space apart."""
    for i in range(max(first, 1), len(words)):
        word, before = words[i], words[i - 1]
        if window[before.end() : word.start()] == " " and weak_cut_before(before.group(), word.group()):
            yield i


def boundary_in(text: str) -> bool:
    """Whether ``text`` holds a mark that could end a piece (a clause or sentence end, a dash, a newline)."""
    return _SOON_BOUNDARY.search(text) is not None


def forced_cut(buf: str, start: int, limit: int) -> Cut:
    """Where a piece longer than ``limit`` is cut: last clause mark, else last space, else the limit."""
    window = buf[start : start + limit + 1]
    last_clause = next(reversed(list(_CLAUSE_CUT.finditer(window))), None)
    if last_clause is not None:
        end = start + last_clause.end()
    else:
        space = window.rfind(" ")
        end = start + space if space > 0 else start + limit
    return Cut(Kind.FORCED, end, end, end)


def natural_cut_after(word: str, next_word: str) -> bool:
    """Whether a piece may end between these two words with its prosody intact: after a sentence end or
    clause mark, at a dash, or before a phrase-opening conjunction or preposition.

    The benchmark's natural-cut lower bound (``kokoro_bench.measuring.lower_bound``) allows only these cuts, so the agent's
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


def words_to_natural_end(
    words: list[str], final: bool, at_least: int = 1, *, finest: Literal["sentence", "natural", "weak"] = "natural"
) -> int | None:
    """How many of ``words`` a piece starting at the first would hold up to its first cut of the ``finest``
    kind allowed (a sentence end; or any natural cut; or a natural or weak cut) after at least ``at_least``
    words; None while that cut is not written yet (all of them at the end of the answer)."""
    for k, word in enumerate(words):
        if k + 1 < at_least:
            continue
        if _SENTENCE_END_WORD.search(word) or (
            finest != "sentence" and natural_cut_after(word, words[k + 1] if k + 1 < len(words) else "")
        ):
            return k + 1  # a clause or sentence end needs no next word to be known
        if finest == "weak" and k + 1 < len(words) and weak_cut_before(word, words[k + 1]):
            return k + 1
    return len(words) if final else None


__all__ = [
    "Cut",
    "Kind",
    "Undecided",
    "boundary_in",
    "clean",
    "forced_cut",
    "function_word_cuts",
    "marked_cuts",
    "natural_cut_after",
    "weak_cut_before",
    "weak_cuts",
    "words_to_natural_end",
    "written_words",
]
