"""LLM text deltas -> segmenter -> one speech session -> the caller's events, all concurrently.

Three tasks share one answer: the *writer* reads the LLM stream and cuts pieces; the *speaker* opens
the speech session (while the LLM is still thinking), sends each piece the moment it exists and
starts the *listener*, which turns the server's audio into events as it arrives. Nothing waits for
the LLM to finish or for one piece's audio before the next piece is sent (005-latency-and-first-piece.md).

The cutting and the timeline are the ones every client of the session shares (:mod:`speech_protocol.turn`):
once the session's Ready has arrived (it normally does while the LLM is still thinking), the server's
running pace re-sizes the segmenter's clause cuts before the next delta is cut, and so does every later
change of pace it reports (docs/decisions/121-first-piece-from-the-running-pace.md); each piece's words are
timed on the answer's audio.

The first failure ends the answer with one typed error event; cancelling the consumer (the caller
went away) cancels all three, which closes the LLM stream and the speech session.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from speech_protocol.framing import SAMPLE_RATE
from speech_protocol.server_events import Audio, End, Words
from speech_protocol.tts_session import TtsSession
from speech_protocol.turn import PieceSegmenter, TurnAudio, TurnText

from .events import (
    AgentEvent,
    AudioChunk,
    PieceDone,
    PieceSent,
    SpokenWords,
    Summary,
    TextDelta,
    error_event,
    word_spans,
)


@dataclass(frozen=True)
class VoiceChoice:
    name: str
    speed: float


class _Done:
    """A task finished (its events are all queued before this marker)."""


@dataclass
class _Answer:
    """What the three tasks learn about one answer, for the summary."""

    started: float
    text: str = ""
    pieces: int = 0
    first_audio_s: float | None = None
    audio_samples: int = 0
    llm_s: float = 0.0


async def speak_answer(
    deltas: AsyncIterator[str],
    tts_session: TtsSession,
    segmenter: PieceSegmenter,
    voice: VoiceChoice,
    *,
    clock: Callable[[], float] = time.monotonic,
    adapt_to_server: bool = True,
    with_words: bool = False,
) -> AsyncIterator[AgentEvent]:
    """Yield the answer's events in the order they happen; ends with a Summary or an ErrorEvent.

    ``adapt_to_server=False`` keeps the segmenter's policy whatever the server advertises (the benchmark's
    fixed first-piece sweep). ``with_words=True`` adds a :class:`SpokenWords` per piece whose word timing
    the server sends, shifted onto the answer's audio timeline (the session speaks its pieces in order, so
    a piece starts where the audio before its ``start`` ends).
    """
    answer = _Answer(started=clock())
    queue: asyncio.Queue[AgentEvent | BaseException | _Done] = asyncio.Queue()
    pieces: asyncio.Queue[str | None] = asyncio.Queue()

    def elapsed() -> float:
        return round(clock() - answer.started, 4)

    async def write() -> None:
        text = TurnText(segmenter, lambda: tts_session.pace if adapt_to_server else None)
        try:
            async for delta in deltas:
                answer.text += delta
                queue.put_nowait(TextDelta(delta))
                for piece in text.feed(delta):
                    pieces.put_nowait(piece)
            answer.llm_s = elapsed()
            for piece in text.flush():
                pieces.put_nowait(piece)
        finally:
            pieces.put_nowait(None)
            await deltas.aclose()  # type: ignore[attr-defined]

    async def listen() -> None:
        first_audio: dict[str, float] = {}
        audio = TurnAudio(tts_session.sample_rate or SAMPLE_RATE)
        async for event in tts_session.events():
            offset_s = audio.place(event)
            answer.audio_samples = audio.samples
            if isinstance(event, Words):
                if with_words:
                    queue.put_nowait(SpokenWords(event.id, word_spans(event.words, offset_s)))
            elif isinstance(event, Audio):
                now = elapsed()
                first_audio.setdefault(event.id, now)
                if answer.first_audio_s is None:
                    answer.first_audio_s = now
                queue.put_nowait(AudioChunk(id=event.id, seq=event.seq, pcm=event.pcm, sample_rate=audio.sample_rate))
            elif isinstance(event, End):
                queue.put_nowait(
                    PieceDone(event.id, first_audio.get(event.id), elapsed(), event.audio_s, event.synth_s)
                )

    async def speak() -> None:
        async with tts_session:
            listener = asyncio.create_task(_guarded(listen(), queue))
            try:
                while (piece := await pieces.get()) is not None:
                    piece_id = f"p{answer.pieces}"
                    answer.pieces += 1
                    await tts_session.synthesize(piece_id, piece, voice.name, voice.speed)
                    queue.put_nowait(PieceSent(piece_id, piece, elapsed()))
                await tts_session.finish()
                await asyncio.shield(listener)
            finally:
                await _cancel(listener)

    tasks = [asyncio.create_task(_guarded(write(), queue)), asyncio.create_task(_guarded(speak(), queue))]
    running = 3  # writer, speaker and the listener the speaker starts
    try:
        while running:
            item = await queue.get()
            if isinstance(item, _Done):
                running -= 1
            elif isinstance(item, BaseException):
                yield error_event(item)
                return
            else:
                yield item
        yield Summary(
            ttfa_s=answer.first_audio_s,
            audio_s=round(answer.audio_samples / (tts_session.sample_rate or SAMPLE_RATE), 3),
            pieces=answer.pieces,
            text=answer.text,
            llm_s=answer.llm_s,
            total_s=elapsed(),
        )
    finally:  # all at once: a writer stopped alone would let the speaker finish the answer gracefully
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _guarded(work, queue: asyncio.Queue) -> None:
    """Run one task of the answer; its failure is queued for the consumer, then a done marker."""
    try:
        await work
    except asyncio.CancelledError:
        raise
    except Exception as err:  # every failure ends the answer as an error event
        queue.put_nowait(err)
    finally:
        queue.put_nowait(_Done())


async def _cancel(task: asyncio.Task) -> None:
    if not task.done():
        task.cancel()
    await asyncio.gather(task, return_exceptions=True)
