"""One bidirectional speech session: many utterances on one WebSocket, read while speaking.

Two tasks per connection: the *reader* decodes every frame as it arrives (TEXT or BINARY alike: the
SageMaker SDK sends BINARY by default, and a server that only reads text fails every real request while
``/ping`` stays green) and queues utterances; the *speaker* answers them in order. So a client can send
its next sentence before the previous one's audio has arrived, and a cancel is seen mid-utterance.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import logging
import re
import time
import uuid
from dataclasses import dataclass, field

from starlette.websockets import WebSocket, WebSocketDisconnect

from kokoro_server.audio import to_pcm16
from kokoro_server.engine.backend import CancelToken
from kokoro_server.errors import session_error
from kokoro_server.runtime import SpeechRuntime, Spoken
from kokoro_server.scheduler import PlaybackClock
from speech_protocol.client_messages import Cancel, Close, Synthesize, decode_client_frame
from speech_protocol.errors import ProtocolError
from speech_protocol.framing import SAMPLE_RATE
from speech_protocol.pace import SpeechModel
from speech_protocol.server_events import Audio, End, Ready, ServerEvent, Start, Words, encode_event

log = logging.getLogger("kokoro_server")
AUDIO_FRAME_SAMPLES = SAMPLE_RATE  # at most one second of audio per BINARY frame
_SERVER_NAME = re.compile(r"u[1-9][0-9]{0,17}")  # the ids the server gives utterances sent without one


class ClientGone(Exception):
    """The client hung up, or its socket can take no more: the session ends and its work is dropped. Not a
    refusal: nobody is left to answer."""


class ClientNotReading(ClientGone):
    """The client stopped reading for ``send_timeout_s``."""


async def send_event(websocket: WebSocket, event: ServerEvent) -> None:
    """One event as its frames (a JSON TEXT frame, and a BINARY one for audio); :class:`ClientGone` when
    the client has left (Starlette raises ``WebSocketDisconnect`` or ``RuntimeError`` for a closed socket,
    the server an ``OSError`` for a broken one)."""
    try:
        for frame in encode_event(event):
            if isinstance(frame, bytes):
                await websocket.send_bytes(frame)
            else:
                await websocket.send_text(frame)
    except (WebSocketDisconnect, RuntimeError, OSError) as exc:
        raise ClientGone(f"the client left ({type(exc).__name__})") from exc


@dataclass
class Utterance:
    """One queued utterance; ``stop`` is cancelled by a ``cancel`` naming it, and stops its running render."""

    message: Synthesize
    id: str
    received: float = field(default_factory=time.perf_counter)
    stop: CancelToken = field(default_factory=CancelToken)

    @property
    def cancelled(self) -> bool:
        return self.stop.cancelled


class SynthesisSession:
    def __init__(self, websocket: WebSocket, runtime: SpeechRuntime):
        self.ws = websocket
        self.runtime = runtime
        self.clock = PlaybackClock()
        self.queue: asyncio.Queue[Utterance | None] = asyncio.Queue()
        self.waiting: collections.deque[Utterance] = collections.deque()  # the queue's utterances: Queue has no view
        self.current: Utterance | None = None
        self.closing = False
        self._send_lock = asyncio.Lock()
        self._ids = itertools.count(1)
        self._told: SpeechModel | None = None  # the pace this client was last told
        self._taken: set[str] = set()  # client ids of the server's own form, u<n>: never handed out again

    def _pace_news(self) -> SpeechModel | None:
        """The server's running pace if this client has not been told it yet, else None: Ready carries it,
        then each ``end`` whose utterance left it changed (docs/decisions/121-first-piece-from-the-running-pace.md)."""
        pace = self.runtime.running_pace()
        if pace is None or pace == self._told:
            return None
        self._told = pace
        return pace

    async def send(self, event: ServerEvent) -> None:
        """Send one event; a client that reads nothing for ``send_timeout_s`` ends the session.

        Sending waits while the socket's buffers are full (backpressure), so a client that stops
        reading holds at most those buffers and the piece being sent, never a growing queue.
        """
        async with self._send_lock:  # an audio header and its PCM frame must never be split apart
            try:
                async with asyncio.timeout(self.runtime.settings.send_timeout_s):
                    await send_event(self.ws, event)
            except TimeoutError:
                limit = self.runtime.settings.send_timeout_s
                raise ClientNotReading(f"the client read nothing for {limit:g} s") from None

    async def run(self) -> None:
        await self.ws.accept()
        languages = self.runtime.synthesizer.voices.languages if self.runtime.synthesizer else {}
        pace = self._pace_news()
        await self.send(
            Ready(
                session=uuid.uuid4().hex[:12],
                voices=len(languages),
                rtf=pace.rtf if pace else None,
                piece_overhead_s=pace.overhead_s if pace else None,
                languages=languages or None,
            )
        )
        speaker = asyncio.create_task(self._speak_all())
        try:
            await self._read_all(speaker)
        except ClientGone as exc:  # an answer to the client's message found it gone
            log.info("session ended while reading: %s", exc)
        finally:
            speaker.cancel()  # client gone: queued and running work is dropped
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await speaker

    # ------------------------------------------------------------------ reader

    async def _read_all(self, speaker: asyncio.Task) -> None:
        while True:
            receive = asyncio.ensure_future(self.ws.receive())
            done, _ = await asyncio.wait({receive, speaker}, return_when=asyncio.FIRST_COMPLETED)
            if receive not in done:  # the speaker finished after a close: end the session
                receive.cancel()
                with contextlib.suppress(Exception):
                    await self.ws.close(code=1000)
                return
            message = receive.result()
            if message["type"] == "websocket.disconnect":
                return
            frame = message.get("bytes") if message.get("bytes") is not None else message.get("text")
            if frame is None:
                continue
            for item in decode_client_frame(frame):
                await self._handle(item)

    async def _handle(self, item) -> None:
        if isinstance(item, ProtocolError):
            await self.send(session_error(item))
        elif self.closing:
            await self.send(
                session_error(
                    ProtocolError(
                        "session_closing",
                        "the session is closing; open a new session for more speech",
                        getattr(item, "id", None),
                    )
                )
            )
        elif isinstance(item, Synthesize):
            if self.queue.qsize() >= self.runtime.settings.max_pending:
                await self.send(
                    session_error(
                        ProtocolError("too_many_pending", "too many utterances queued in this session", item.id)
                    )
                )
                return
            try:  # a bad voice is answered at once, in message order, not when its turn comes
                self.runtime.check_voice(item.voice)
            except Exception as exc:
                await self.send(session_error(exc, item.id))
                return
            utterance = Utterance(item, self._name(item.id))
            self.waiting.append(utterance)
            self.queue.put_nowait(utterance)
        elif isinstance(item, Cancel):
            self._cancel(item.id)
        elif isinstance(item, Close):
            self.closing = True
            self.queue.put_nowait(None)

    def _name(self, given: str | None) -> str:
        """The utterance's id: the client's own, or for a bare message the next ``u<n>`` that no message
        of this session has used, so a server-named utterance never shares its id with the client's."""
        if given:
            if _SERVER_NAME.fullmatch(given):
                self._taken.add(given)
            return given
        while (name := f"u{next(self._ids)}") in self._taken:
            pass
        return name

    def _cancel(self, utterance_id: str | None) -> None:
        """Cancel one utterance by id (queued or speaking), or everything when no id is given: a render
        running for it stops where it is (docs/decisions/120-cancel-the-running-inference.md)."""
        for utterance in [self.current, *self.waiting]:
            if utterance is not None and utterance_id in (None, utterance.id):
                utterance.stop.cancel()

    # ------------------------------------------------------------------ speaker

    async def _speak_all(self) -> None:
        while True:
            utterance = await self.queue.get()
            if utterance is None:
                return
            self.waiting.popleft()  # this utterance: both are first in, first out
            self.current = utterance
            try:
                await self._speak(utterance)
            except ClientGone as exc:
                log.info("session ended while speaking: %s", exc)
                return
            finally:
                self.current = None

    async def _speak(self, utterance: Utterance) -> None:
        msg = utterance.message
        if utterance.cancelled:
            await self.send(End(utterance.id, 0.0, 0.0, 0.0, 0.0, cancelled=True))
            return
        try:
            chunks = await self.runtime.plan(msg, self.clock)
        except Exception as exc:  # a bad voice or unspeakable text ends this utterance, not the session
            await self.send(session_error(exc, utterance.id))
            return
        await self.send(Start(utterance.id))
        spoken = Spoken(chunks)
        seq, synth_s, first_audio_s = 0, 0.0, 0.0
        t0 = started = time.perf_counter()
        queued_s = started - utterance.received
        try:  # a cancel ends the loop quietly (the utterance ends as cancelled); a fault of the engine
            # ends this utterance with an error event, not the session
            async for rendered in self.runtime.speak(spoken, self.clock, utterance.stop):
                synth_s += time.perf_counter() - t0
                audio = rendered.audio
                for i in range(0, len(audio), AUDIO_FRAME_SAMPLES):
                    await self.send(Audio(utterance.id, seq, to_pcm16(audio[i : i + AUDIO_FRAME_SAMPLES])))
                    if seq == 0:
                        first_audio_s = time.perf_counter() - utterance.received
                    seq += 1
                t0 = time.perf_counter()
        except ClientGone:
            raise
        except Exception as exc:
            await self.send(session_error(exc, utterance.id))
        await self.send(Words(utterance.id, spoken.words()))
        pace = self._pace_news()
        await self.send(
            End(
                utterance.id,
                audio_s=round(spoken.samples / SAMPLE_RATE, 4),
                first_audio_s=round(first_audio_s, 4),
                synth_s=round(synth_s, 4),
                queued_s=round(queued_s, 4),
                cancelled=utterance.cancelled,
                rtf=pace.rtf if pace else None,
                piece_overhead_s=pace.overhead_s if pace else None,
            )
        )
