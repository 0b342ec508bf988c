"""The earliest first audio ANY cut of a text could reach with zero stall, on the same run.

Figures on a shared machine swing by 2x from run to run, so a ratio against one-at-a-time alone cannot
say whether the first-piece policy is good. This bound can: given the run's own LLM timeline (when each
word was written) and its measured synthesis speed (:class:`speech_protocol.pace.SpeechModel`, the
model the agent's policy is sized from, fitted on the run's own pieces), it finds the cut points, at word boundaries, whose first piece
is ready soonest while every later piece is ready before the listener needs it. The pipelined strategy's
first audio over this bound says how much a policy could still gain (goal <= 1.2).

Search: for each first-piece length ``c`` (shortest first) a dynamic program over cut points asks whether
the rest can follow without a stall; the first ``c`` that can gives the bound. ``F[j]``, the earliest time
the pieces up to word ``j`` are all synthesized without a stall, only gets better when smaller, so keeping
the minimum per ``j`` is exact. Serial synthesis (one worker), as the server runs it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from speech_protocol.pace import WORD, PaceError, SpeechModel, Timing
from speech_protocol.pieces.cuts import natural_cut_after

from ..errors import BenchError
from ..stats import median
from .timeline import play


@dataclass(frozen=True)
class Bound:
    first_audio_s: float  # earliest first audio byte any zero-stall cut reaches
    first_piece: str  # the words of that first piece


def word_ready_times(deltas: list[tuple[float, str]]) -> tuple[list[str], list[float]]:
    """The words the LLM wrote and when each was certainly complete (the character after it arrived)."""
    text, owner = "", []
    for index, (_t, delta) in enumerate(deltas):
        text += delta
        owner += [index] * len(delta)
    words, ready = [], []
    for match in WORD.finditer(text):
        words.append(match.group())
        after = match.end()
        ready.append(deltas[owner[after]][0] if after < len(text) else deltas[-1][0])
    if not words:
        raise BenchError("the LLM wrote no words")
    return words, ready


def fit_speech_model(synth_s: list[float], audio_s: list[float], words_per_s: float) -> SpeechModel:
    """The speech model of the run's own pieces (:meth:`SpeechModel.fitted`)."""
    try:
        return SpeechModel.fitted([Timing(s, a) for s, a in zip(synth_s, audio_s)], words_per_s)
    except PaceError as err:
        raise BenchError(str(err)) from None


def natural_cuts(words: list[str]) -> set[int]:
    """The word counts after which the agent's segmenter could end a piece without breaking a phrase."""
    return {k for k in range(1, len(words)) if natural_cut_after(words[k - 1], words[k])}


def lower_bound(words: list[str], ready: list[float], model: SpeechModel, cuts: set[int] | None = None) -> Bound:
    """The earliest zero-stall first audio over every cut of ``words`` (see the module docstring).

    ``cuts``: the word counts after which a piece may end (None: after any word). The end of the text is
    always a cut.
    """
    allowed = set(range(1, len(words))) if cuts is None else set(cuts)
    allowed.add(len(words))
    for first in sorted(allowed):
        first_audio = ready[first - 1] + model.synth_s(first)
        if _rest_follows(first, first_audio, ready, model, allowed):
            return Bound(round(first_audio, 4), " ".join(words[:first]))
    raise AssertionError("one piece holding every word never stalls")  # pragma: no cover


def _rest_follows(first: int, first_audio: float, ready: list[float], model: SpeechModel, allowed: set[int]) -> bool:
    n = len(ready)
    done = [math.inf] * (n + 1)  # done[j]: earliest moment words [0, j) are synthesized, no stall so far
    done[first] = first_audio
    for j in range(first + 1, n + 1):
        if j not in allowed:
            continue
        for i in range(first, j):
            if done[i] == math.inf:
                continue
            finish = max(ready[j - 1], done[i]) + model.synth_s(j - i)
            if (
                finish <= first_audio + model.audio_s(i) + 1e-9 and finish < done[j]
            ):  # ready before needed (to rounding)
                done[j] = finish
    return done[n] < math.inf


@dataclass(frozen=True)
class BoundResult:
    """One text's pipelined first audio against its lower bound on the same run (medians over repeats)."""

    text: str
    rtf: float  # the fitted synthesis speed the bound assumes
    overhead_s: float
    words_per_s: float
    bound_audible_s: float
    pipelined_audible_s: float
    ratio: float  # pipelined / bound: 1.0 is the best any cut could do
    bound_first_piece: str
    pipelined_first_piece: str
    # The same search allowing only the segmenter's natural cuts (clause and sentence ends, before a
    # phrase-opening word): what a policy could reach without cutting inside a phrase.
    natural_audible_s: float | None = None
    natural_ratio: float | None = None
    natural_first_piece: str = ""


def against_bound(text: str, traces: list, model: SpeechModel) -> BoundResult:
    """``traces``: the pipelined strategy's runs of ``text`` (each with its LLM timeline and audio)."""
    if not traces:
        raise BenchError(f"no pipelined run of {text!r} to bound")
    bounds: list[tuple[float, str]] = []
    natural: list[tuple[float, str]] = []
    heard: list[float] = []
    for trace in traces:
        words, ready = word_ready_times(list(zip(trace.deltas, trace.written)))
        playback = play(trace.audio)
        audible = playback.audible_s if playback.audible_s is not None else playback.end_s
        # The same near-silence before the first audible sample as the run's own pieces had.
        silence = audible - playback.ttfa_s
        for found, cuts in ((bounds, None), (natural, natural_cuts(words))):
            bound = lower_bound(words, ready, model, cuts)
            found.append((bound.first_audio_s + silence, bound.first_piece))
        heard.append(audible)
    bound_s, natural_s, mine_s = _median([b for b, _ in bounds]), _median([b for b, _ in natural]), _median(heard)
    return BoundResult(
        text=text,
        rtf=round(model.rtf, 3),
        overhead_s=round(model.overhead_s, 3),
        words_per_s=round(model.words_per_s, 2),
        bound_audible_s=round(bound_s, 3),
        pipelined_audible_s=round(mine_s, 3),
        ratio=round(mine_s / bound_s, 3),
        bound_first_piece=bounds[0][1],
        pipelined_first_piece=traces[0].pieces[0][1] if traces[0].pieces else "",
        natural_audible_s=round(natural_s, 3),
        natural_ratio=round(mine_s / natural_s, 3),
        natural_first_piece=natural[0][1],
    )


def _median(values: list[float]) -> float:
    """The median of a sample that is never empty (one figure per run)."""
    found = median([*values])
    assert found is not None, "a median of no figures"
    return found
