"""One turn of streamed speech, as every client of the session speaks it: the agent, the LiveKit plugin and the
pipecat service share these two halves, so they cut, size and time a turn alike.

* :class:`TurnText`, the text half: each delta of the LLM's answer goes to the segmenter, re-sized to the
  server's running pace whenever that pace changes (the server advertises it in its Ready and sends it again
  on an ``end`` when it moves: docs/decisions/121-first-piece-from-the-running-pace.md), so the first piece
  is as short as this server allows; the pieces it completes are the caller's to send at once, and
  :meth:`TurnText.flush` gives the rest when the answer ends (or a framework asks for a flush).
* :class:`TurnAudio`, the audio half: the server's events for the turn's pieces, in the order the session
  speaks them, placed on one timeline, the turn's audio. A piece starts where the audio before its
  ``start`` ended, so its words, timed from their own piece's start, are timed from the turn's start by
  adding :meth:`TurnAudio.place`'s offset.

What each client keeps is its framework's control flow: where the deltas come from (an async iterator, a
LiveKit input channel, pipecat's ``run_tts`` calls) and where audio and words go (the agent's events,
LiveKit's emitter, pipecat's frames).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from .framing import SAMPLE_RATE, SAMPLE_WIDTH
from .server_events import Audio, Start
from .tts_session import SessionEvent

Pace = tuple[float | None, float | None]
"""A server's real-time factor and cost per piece (seconds), as its Ready or an ``end`` advertised them."""


class PieceSegmenter(Protocol):
    """What a turn needs of a segmenter (:class:`speech_protocol.pieces.segmenter.Segmenter`, one per turn)."""

    def feed(self, delta: str) -> list[str]: ...

    def flush(self) -> list[str]: ...

    def adapt_to(self, rtf: float | None, piece_overhead_s: float | None = None) -> None: ...


class TurnText:
    """The turn's text cut into pieces, sized by the server's pace as it is when each delta arrives.

    ``pace`` says the server's pace now, or ``None`` while it is not known (the session's Ready has not come)
    or must not be followed (the benchmark's fixed policies): the segmenter's own policy stands until then.
    """

    def __init__(self, segmenter: PieceSegmenter, pace: Callable[[], Pace | None]) -> None:
        self._segmenter = segmenter
        self._pace = pace
        self._sized_for: Pace | None = None

    def feed(self, delta: str) -> list[str]:
        """The pieces this delta completed (possibly none)."""
        pace = self._pace()
        if pace is not None and pace != self._sized_for:
            self._segmenter.adapt_to(*pace)
            self._sized_for = pace
        return self._segmenter.feed(delta)

    def flush(self) -> list[str]:
        """The text held back, as pieces: the answer has ended, or the framework asked for what is held."""
        return self._segmenter.flush()


class TurnAudio:
    """Where the turn's audio and each piece's words fall, from its session events in the order they come."""

    def __init__(self, sample_rate: int = SAMPLE_RATE) -> None:
        self.sample_rate = sample_rate
        self.samples = 0  # of the turn's audio so far
        self._piece_start_s: dict[str, float] = {}

    @property
    def seconds(self) -> float:
        return self.samples / self.sample_rate

    def place(self, event: SessionEvent) -> float:
        """Note ``event`` on the timeline; the seconds into the turn's audio at which its piece starts (add it
        to the times of a ``words`` event). A piece whose ``start`` was not seen starts where the audio is."""
        if isinstance(event, Start):
            self._piece_start_s[event.id] = self.seconds
        offset_s = self._piece_start_s.get(event.id, self.seconds)
        if isinstance(event, Audio):
            self.samples += len(event.pcm) // SAMPLE_WIDTH
        return offset_s
