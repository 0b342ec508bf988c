"""The three ways to speak a streamed answer, each recorded as a :class:`Trace` on one real session.

* ``whole``: wait for the complete answer, synthesize all of it, then play it: the design a
  request/response TTS call gives (the "whole answer" row of 005-latency-and-first-piece.md). It is sent
  as one utterance and its audio counts as delivered when the utterance ends; when the server's own
  sentence streaming would have delivered the first byte is kept too (``Trace.streamed_first_byte_s``);
* ``sequential``: the published design: send a sentence, wait until its audio has finished arriving,
  send the next (sentences queue up meanwhile; the LLM is never held back);
* ``pipelined``: this project's agent pipeline, :func:`voice_agent.pipeline.speak_answer`, unchanged:
  by default its segmenter is sized from the server's Ready.rtf exactly as the agent's is; the first-piece
  sweep gives it a fixed policy instead.

All three read the same paced scripted LLM through the agent's own Strands path, open their speech
session at the request (while the LLM writes) and stamp every event on one clock.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field

from speech_protocol.errors import TtsError
from speech_protocol.pieces.segmenter import Segmenter, SegmentPolicy
from speech_protocol.server_events import Audio, End
from speech_protocol.transports.websocket import WebSocketConnector
from speech_protocol.tts_session import TtsSession
from voice_agent.events import AudioChunk, ErrorEvent, PieceSent
from voice_agent.pipeline import VoiceChoice, speak_answer
from voice_agent.settings import LlmSettings

from ..errors import BenchError
from .timeline import AudioArrival

STRATEGIES = ("whole", "sequential", "pipelined")
SENTENCES = SegmentPolicy(first_piece_clause=False)  # what the two baselines cut: whole sentences


@dataclass
class Trace:
    """What happened during one answer, in seconds since the request."""

    strategy: str
    text: str
    deltas: list[float] = field(default_factory=list)  # each LLM text delta's arrival
    written: list[str] = field(default_factory=list)  # ... and its text (the lower bound's LLM timeline)
    pieces: list[tuple[float, str]] = field(default_factory=list)  # each piece sent to speech
    audio: list[AudioArrival] = field(default_factory=list)
    streamed_first_byte_s: float | None = None  # first audio byte as the server streamed it


@dataclass(frozen=True)
class Run:
    """One answer to speak: where, how fast the LLM writes, and how the pipeline cuts its pieces
    (``policy=None``: as the agent does, sized from the server's advertised rtf)."""

    url: str
    reply: str
    tokens_per_s: float
    voice: str
    policy: SegmentPolicy | None = None
    timeout_s: float = 120.0


async def speak(strategy: str, text_name: str, run: Run) -> Trace:
    """Speak ``run.reply`` with ``strategy``; every failure becomes a :class:`BenchError`."""
    if strategy not in STRATEGIES:
        raise BenchError(f"unknown strategy {strategy!r}: use one of {', '.join(STRATEGIES)}")
    from voice_agent.llm import build_agent, text_deltas  # Strands loads only now, not for the other commands

    trace = Trace(strategy, text_name)
    agent = build_agent(LlmSettings(provider="scripted", reply=run.reply, tokens_per_s=run.tokens_per_s))
    session = TtsSession(WebSocketConnector(run.url), timeout_s=run.timeout_s)
    start = time.perf_counter()

    def now() -> float:
        return time.perf_counter() - start

    deltas = _stamped(text_deltas(agent, "benchmark"), trace, now)
    try:
        if strategy == "pipelined":
            await _pipelined(deltas, session, run, trace, now)
        else:
            await _in_turns(deltas, session, run, trace, now, whole=strategy == "whole")
    except TtsError as err:
        raise BenchError(f"{strategy} on {text_name}: {err.code}: {err.message}") from err
    return trace


async def _stamped(deltas: AsyncGenerator[str, None], trace: Trace, now) -> AsyncGenerator[str, None]:
    try:
        async for delta in deltas:
            trace.deltas.append(now())
            trace.written.append(delta)
            yield delta
    finally:
        await deltas.aclose()


async def _pipelined(deltas: AsyncIterator[str], session: TtsSession, run: Run, trace: Trace, now) -> None:
    segmenter = Segmenter(run.policy or SegmentPolicy())
    adapt = run.policy is None
    async for event in speak_answer(deltas, session, segmenter, VoiceChoice(run.voice, 1.0), adapt_to_server=adapt):
        if isinstance(event, PieceSent):
            trace.pieces.append((now(), event.text))
        elif isinstance(event, AudioChunk):
            trace.audio.append(AudioArrival(now(), event.pcm))
        elif isinstance(event, ErrorEvent):
            raise BenchError(f"pipelined on {trace.text}: {event.code}: {event.message}")


async def _write(deltas: AsyncIterator[str], pieces: asyncio.Queue, *, whole: bool) -> None:
    """The LLM side of the baselines: never waits for speech; sentences (or the whole text) queue up."""
    segmenter = Segmenter(SENTENCES)
    held: list[str] = []
    put = held.append if whole else pieces.put_nowait
    try:
        async for delta in deltas:
            for piece in segmenter.feed(delta):
                put(piece)
        for piece in segmenter.flush():
            put(piece)
        if whole and held:
            pieces.put_nowait(" ".join(held))
    finally:
        pieces.put_nowait(None)


async def _in_turns(
    deltas: AsyncIterator[str], session: TtsSession, run: Run, trace: Trace, now, *, whole: bool
) -> None:
    """Send one piece, wait for its End, send the next; with ``whole`` the only piece is the full text."""
    pieces: asyncio.Queue[str | None] = asyncio.Queue()
    ended: dict[str, asyncio.Event] = {}
    held: list[bytes] = []  # whole: audio is delivered when the utterance is complete

    async def listen() -> None:
        async for event in session.events():
            if isinstance(event, Audio):
                if trace.streamed_first_byte_s is None:
                    trace.streamed_first_byte_s = now()
                if whole:
                    held.append(event.pcm)
                else:
                    trace.audio.append(AudioArrival(now(), event.pcm))
            elif isinstance(event, End):
                if held:
                    trace.audio.append(AudioArrival(now(), b"".join(held)))
                    held.clear()
                if event.id in ended:  # anything else is not this answer's: ignore it
                    ended[event.id].set()

    writer = asyncio.create_task(_write(deltas, pieces, whole=whole))
    listener: asyncio.Task | None = None
    try:
        async with session:
            listener = asyncio.create_task(listen())
            while (piece := await _first_of(pieces.get(), listener)) is not None:
                piece_id = f"p{len(trace.pieces)}"
                ended[piece_id] = asyncio.Event()
                await session.synthesize(piece_id, piece, run.voice, 1.0)
                trace.pieces.append((now(), piece))
                await _first_of(ended[piece_id].wait(), listener)
            await writer  # the LLM's own failure, if any
            await session.finish()
            await listener
    finally:
        tasks = [t for t in (listener, writer) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _first_of(awaitable, listener: asyncio.Task):
    """Await ``awaitable`` unless the listener fails first, in which case its error is raised."""
    waiter = asyncio.ensure_future(awaitable)
    done, _ = await asyncio.wait({waiter, listener}, return_when=asyncio.FIRST_COMPLETED)
    if waiter in done:
        return waiter.result()
    waiter.cancel()
    listener.result()  # raises the listener's error
    raise BenchError("the speech session ended before the answer was spoken")
