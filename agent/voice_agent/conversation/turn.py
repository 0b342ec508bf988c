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

from speech_protocol.messages import SAMPLE_RATE, SAMPLE_WIDTH

from ..events import AgentEvent, AudioChunk, ErrorEvent, SpokenWords, Summary, TextDelta, WordSpan
from . import messages
from .outbox import AudioGate, Outbox


@dataclass
class Turn:
    id: str
    started: float = field(default_factory=time.monotonic)
    gate: AudioGate = field(default_factory=AudioGate)
    text: str = ""
    words: list[WordSpan] = field(default_factory=list)
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

    def end_event(self, heard: str, played_s: float | None = None) -> str:
        """``turn_end``: ``heard_text`` is what the listener heard (all of it unless interrupted)."""
        timings = {"ttfa_s": self.first_audio_s, "total_s": round(time.monotonic() - self.started, 3)}
        if self.summary is not None:
            timings["llm_s"] = self.summary.llm_s
        return messages.event(
            "turn_end",
            turn=self.id,
            interrupted=self.interrupted,
            heard_text=heard,
            text=self.text,
            audio_s=self.audio_s,
            played_s=played_s,
            **timings,
        )


async def stream_turn(turn: Turn, answer: AsyncIterator[AgentEvent], outbox: Outbox) -> None:
    """Forward the answer's events until it ends; the caller cancels this task to interrupt."""
    try:
        async for item in answer:
            if isinstance(item, TextDelta):
                turn.text += item.text
                await outbox.text(messages.event("text", turn=turn.id, text=item.text))
            elif isinstance(item, AudioChunk):
                if turn.first_audio_s is None:
                    turn.first_audio_s = round(time.monotonic() - turn.started, 4)
                turn.audio_bytes += await outbox.audio(item.pcm, turn.gate)
            elif isinstance(item, SpokenWords):
                turn.words.extend(item.words)
                spans = [{"text": w.text, "start_s": w.start_s, "end_s": w.end_s} for w in item.words]
                await outbox.text(messages.event("words", turn=turn.id, words=spans))
            elif isinstance(item, ErrorEvent):
                turn.failed = True
                await outbox.text(messages.error(item.code, item.message, turn.id))
            elif isinstance(item, Summary):
                turn.summary = item
    finally:
        await answer.aclose()  # type: ignore[attr-defined]  # speak_answer is an async generator typed AsyncIterator
