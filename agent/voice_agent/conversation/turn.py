"""One turn of a conversation: a prompt answered aloud, until it ends or the listener interrupts it.

The answer is the same pipeline ``/invocations`` uses (:func:`voice_agent.pipeline.speak_answer`), asked
for word timing. The turn forwards its events to the socket and keeps what an interruption needs: the
answer's text, its words on the turn's audio timeline and how much audio was sent.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from speech_protocol.framing import SAMPLE_RATE, SAMPLE_WIDTH

from ..events import AgentEvent, AudioChunk, ErrorEvent, SpokenWords, Summary, TextDelta, WordSpan
from .events import ErrorNotice, TurnEnd, TurnText, TurnWords
from .outbox import AudioGate, Outbox

# The words of a piece follow its audio (the model server sends them once the piece's last chunk is
# rendered); an interrupt waits this long at most for those of pieces already heard (decision 071).
WORDS_WAIT_S = 2.0


@dataclass
class Turn:
    id: str
    started: float = field(default_factory=time.monotonic)
    gate: AudioGate = field(default_factory=AudioGate)
    text: str = ""
    words: list[WordSpan] = field(default_factory=list)
    piece_start_s: dict[str, float] = field(default_factory=dict)  # pieces whose audio was sent, and where
    worded: set[str] = field(default_factory=set)  # pieces whose words arrived
    words_arrived: asyncio.Event = field(default_factory=asyncio.Event)
    audio_bytes: int = 0
    first_audio_s: float | None = None
    summary: Summary | None = None
    failed: bool = False
    interrupted: bool = False
    ended: bool = False  # its turn_end went out after the whole answer
    task: asyncio.Task | None = None

    @property
    def audio_s(self) -> float:
        return round(self.audio_bytes / SAMPLE_WIDTH / SAMPLE_RATE, 3)

    @property
    def speaking(self) -> bool:
        return self.task is not None and not self.task.done()

    def words_missing(self, played_s: float) -> bool:
        """Whether a piece the listener began to hear before ``played_s`` still lacks its word spans."""
        return any(start < played_s and piece not in self.worded for piece, start in self.piece_start_s.items())

    async def await_words(self, played_s: float, timeout_s: float = WORDS_WAIT_S) -> None:
        """Let a still-speaking turn deliver the words of what was heard before it is cancelled.

        The audio gate is already closed, so nothing more is heard while this waits; it returns as soon as
        every piece heard before ``played_s`` has its words, the turn ends, or ``timeout_s`` passes.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while self.task is not None and self.speaking and self.words_missing(played_s):
            remaining = deadline - loop.time()
            if remaining <= 0:
                return
            self.words_arrived.clear()
            arrival = asyncio.ensure_future(self.words_arrived.wait())
            await asyncio.wait({arrival, self.task}, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
            arrival.cancel()

    def end_event(self, heard: str, played_s: float | None = None) -> TurnEnd:
        """``turn_end``: ``heard_text`` is what the listener heard (all of it unless interrupted)."""
        return TurnEnd(
            turn=self.id,
            interrupted=self.interrupted,
            heard_text=heard,
            text=self.text,
            audio_s=self.audio_s,
            played_s=played_s,
            ttfa_s=self.first_audio_s,
            total_s=round(time.monotonic() - self.started, 3),
            llm_s=None if self.summary is None else self.summary.llm_s,
        )


async def stream_turn(turn: Turn, answer: AsyncIterator[AgentEvent], outbox: Outbox) -> None:
    """Forward the answer's events until it ends; the caller cancels this task to interrupt."""
    try:
        async for item in answer:
            if isinstance(item, TextDelta):
                turn.text += item.text
                await outbox.send(TurnText(turn.id, item.text))
            elif isinstance(item, AudioChunk):
                if turn.first_audio_s is None:
                    turn.first_audio_s = round(time.monotonic() - turn.started, 4)
                start_s = turn.audio_s
                sent = await outbox.audio(item.pcm, turn.gate)
                if sent:
                    turn.piece_start_s.setdefault(item.id, start_s)
                turn.audio_bytes += sent
            elif isinstance(item, SpokenWords):
                turn.words.extend(item.words)
                turn.worded.add(item.id)
                turn.words_arrived.set()
                await outbox.send(TurnWords(turn.id, item.words))
            elif isinstance(item, ErrorEvent):
                turn.failed = True
                await outbox.send(ErrorNotice(item.code, item.message, turn.id))
            elif isinstance(item, Summary):
                turn.summary = item
    finally:
        await answer.aclose()  # type: ignore[attr-defined]  # speak_answer is an async generator typed AsyncIterator
