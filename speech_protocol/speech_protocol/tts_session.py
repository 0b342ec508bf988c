"""One speech session per answer: pieces go out as soon as they exist, audio comes back in order.

Sending and receiving are independent (the pipeline runs them in two tasks), so the next piece is
on its way while the previous one is still being synthesised: no send-then-wait. The session
decodes the server's byte stream with :class:`speech_protocol.server_events.StreamDecoder`, whatever
boundaries the transport's parts have, and turns every failure into a :class:`TtsError`.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Iterable

from .client_messages import Cancel, Close, Synthesize, encode_client_message
from .errors import (
    SERVER_BUSY,
    TtsBusy,
    TtsError,
    TtsProtocolError,
    TtsServerError,
    TtsSessionClosed,
    TtsTimeout,
    TtsUnreachable,
)
from .pace import usable_overhead, usable_rtf
from .server_events import Audio, End, Error, Ready, ServerEvent, Start, StreamDecoder, Words
from .transports.part_stream import Connector, PartStream

# An audio frame is at most a few seconds of PCM; anything held back beyond this is a broken stream.
MAX_PENDING_BYTES = 16 * 1024 * 1024
# A session abandoned mid-answer (the listener interrupted or hung up) tells the server to drop its queued
# and running pieces before closing; a server too busy to take that message within this time is just closed.
CANCEL_SEND_S = 0.5

SessionEvent = Start | Audio | Words | End
# Backoff between tries on a busy server: from the server's hint (or this), doubling up to the cap, each
# pause drawn at random from its upper half so that refused agents do not all come back at once.
FIRST_BACKOFF_S = 0.5
MAX_BACKOFF_S = 8.0


def backoff_s(attempt: int, hint_s: float | None) -> float:
    """Pause before try ``attempt + 1`` after a ``server_busy`` refusal (jittered, bounded)."""
    base = hint_s if isinstance(hint_s, (int, float)) and 0 < hint_s <= MAX_BACKOFF_S else FIRST_BACKOFF_S
    ceiling = min(base * 2**attempt, MAX_BACKOFF_S)
    return random.uniform(ceiling / 2, ceiling)


class TtsSession:
    """Async context manager: connects on enter, always closes the stream on exit.

    Entering waits for the server's Ready. A server at capacity answers ``server_busy`` instead: the
    session tries again after a jittered backoff until ``timeout_s`` has passed since it began, then
    raises :class:`TtsBusy`.

    ``binary_frames``: send every message as a BINARY frame, as the SageMaker SDK does unless told
    otherwise (the CLI's smoke check sends them so, to catch a server that reads TEXT frames only);
    the agent sends TEXT.
    """

    def __init__(self, connector: Connector, *, timeout_s: float, binary_frames: bool = False):
        self._connector = connector
        self._timeout_s = timeout_s
        self._binary_frames = binary_frames
        self._stream: PartStream | None = None
        self._ready = False
        self._finishing = False
        self._outstanding: set[str] = set()
        self._wake = asyncio.Event()
        self._decoder = StreamDecoder()
        self._early: list[SessionEvent] = []  # events that came with Ready, yielded first
        self.sample_rate: int | None = None
        # The server's advertised real-time factor and cost per utterance beyond it: from Ready, then the
        # latest an ``end`` carried (the server's running pace, sent when it changes).
        self.rtf: float | None = None
        self.piece_overhead_s: float | None = None

    @property
    def ready(self) -> bool:
        """The server's Ready has arrived (``sample_rate`` and ``rtf`` are known from here on)."""
        return self._ready

    @property
    def pace(self) -> tuple[float | None, float | None] | None:
        """The server's running pace (``rtf``, ``piece_overhead_s``) once its Ready has come, else ``None``:
        what :class:`speech_protocol.turn.TurnText` sizes a turn's pieces by."""
        return (self.rtf, self.piece_overhead_s) if self._ready else None

    async def __aenter__(self) -> TtsSession:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._timeout_s
        attempt = 0
        while True:
            try:
                async with asyncio.timeout_at(deadline):
                    self._stream = await self._connector.connect()
            except TimeoutError:
                raise TtsUnreachable(f"no connection within {self._timeout_s:g} s") from None
            try:
                refusal = await self._await_ready()
            except BaseException:
                await self.__aexit__(None)
                raise
            if refusal is None:
                return self
            await self.__aexit__(None)
            pause = backoff_s(attempt, refusal.retry_after_s)
            if loop.time() + pause >= deadline:
                raise TtsBusy(
                    f"the model server stayed at capacity for {self._timeout_s:g} s "
                    f"({attempt + 1} tries): {refusal.message}"
                )
            await asyncio.sleep(pause)
            self._decoder = StreamDecoder()
            attempt += 1

    async def _await_ready(self) -> Error | None:
        """Read until Ready (None) or a ``server_busy`` refusal (returned); anything else raises."""
        while not self._ready:
            part = await self._next_part()
            if part is None:
                raise TtsSessionClosed("the model server closed the session before it started")
            for event in self._decode(self._decoder, part):
                if isinstance(event, Error) and event.code == SERVER_BUSY:
                    return event
                self._admit(event)
        return None

    def _admit(self, event: ServerEvent) -> None:
        """Handle one decoded event: Ready and errors here, the rest queued for :meth:`events`."""
        if isinstance(event, Ready):
            self._ready = True
            self.sample_rate = event.sample_rate
            self.rtf = usable_rtf(event.rtf)
            self.piece_overhead_s = usable_overhead(event.piece_overhead_s)
        elif isinstance(event, Error):
            raise TtsServerError(f"{event.code}: {event.message}", server_code=event.code, piece_id=event.id)
        else:
            if isinstance(event, End) and usable_rtf(event.rtf) is not None:  # the server's pace has changed
                self.rtf = usable_rtf(event.rtf)
                self.piece_overhead_s = usable_overhead(event.piece_overhead_s)
            self._early.append(event)

    async def __aexit__(self, exc_type: object, *exc_info: object) -> None:
        if self._stream is not None:
            if exc_type is not None and (self._outstanding or not self._finishing):
                await self._cancel_all(self._stream)
            await self._stream.aclose()
            self._stream = None

    @staticmethod
    async def _cancel_all(stream: PartStream) -> None:
        """Best effort: the session is being abandoned, so whatever fails here changes nothing."""
        try:
            async with asyncio.timeout(CANCEL_SEND_S):
                await stream.send_text(encode_client_message(Cancel()))
        except (TtsError, TimeoutError):
            pass

    def _open_stream(self) -> PartStream:
        if self._stream is None or self._finishing:
            raise TtsSessionClosed("the speech session is closed")
        return self._stream

    async def _send(self, stream: PartStream, message: Synthesize | Close | str) -> None:
        text = message if isinstance(message, str) else encode_client_message(message)
        if self._binary_frames:
            await stream.send_binary(text.encode("utf-8"))
        else:
            await stream.send_text(text)

    async def synthesize(self, piece_id: str, text: str, voice: str | None, speed: float) -> None:
        """Queue one piece on the server; returns once it is sent, not when it is spoken.
        ``voice=None`` means the server's default voice."""
        stream = self._open_stream()
        message = Synthesize(text=text, id=piece_id, voice=voice, speed=speed)
        self._outstanding.add(piece_id)
        self._wake.set()
        await self._send(stream, message)

    async def cancel(self, piece_ids: Iterable[str]) -> None:
        """Drop these pieces on the server, queued or speaking, and keep the session for more: one frame,
        a cancel line per piece. Each still ends with its ``end`` (``cancelled``), so :meth:`events` stays
        in step. A server that takes no frame within ``CANCEL_SEND_S`` raises :class:`TtsTimeout`: the
        session is then of no further use."""
        ids = sorted(set(piece_ids))
        if not ids:
            return
        stream = self._open_stream()
        frame = "\n".join(encode_client_message(Cancel(id=piece_id)) for piece_id in ids)
        try:
            async with asyncio.timeout(CANCEL_SEND_S):
                await self._send(stream, frame)
        except TimeoutError:
            raise TtsTimeout(f"the server took no cancel within {CANCEL_SEND_S:g} s") from None

    async def finish(self) -> None:
        """No more pieces: the server speaks what is queued; :meth:`events` ends after the last one."""
        stream = self._open_stream()
        self._finishing = True
        self._wake.set()
        await self._send(stream, Close())

    def _waiting_for_server(self) -> bool:
        return not self._ready or bool(self._outstanding) or self._finishing

    async def _next_part(self) -> bytes | str | None:
        assert self._stream is not None, "events() outside 'async with'"
        try:
            # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation that lands
            # as the part arrives, and the listener would then wait forever for the next one.
            async with asyncio.timeout(self._timeout_s):
                return await self._stream.receive()
        except TimeoutError:
            waiting = ", ".join(sorted(self._outstanding)) or "the session to start"
            raise TtsTimeout(f"no audio for {self._timeout_s:g} s while waiting for {waiting}") from None
        except TtsSessionClosed as err:  # the transport saw the close (and knows its code)
            if err.piece_id is None:
                err.piece_id = min(self._outstanding, default=None)
            raise

    async def events(self) -> AsyncIterator[SessionEvent]:
        """Start, Audio, Words and End events in arrival order, until every sent piece has ended."""
        while True:
            if self._early:
                event = self._early.pop(0)
                if isinstance(event, End):
                    self._outstanding.discard(event.id)
                yield event
                continue
            if self._ready and self._finishing and not self._outstanding:
                return
            if not self._waiting_for_server():
                self._wake.clear()
                await self._wake.wait()
                continue
            part = await self._next_part()
            if part is None:
                raise TtsSessionClosed(
                    "the model server closed the session",
                    piece_id=min(self._outstanding, default=None),
                )
            for decoded in self._decode(self._decoder, part):
                self._admit(decoded)

    @staticmethod
    def _decode(decoder: StreamDecoder, part: bytes | str) -> list[ServerEvent]:
        try:
            events = decoder.feed(part)
        except (ValueError, TypeError, KeyError, AttributeError) as err:  # incl. ProtocolError
            raise TtsProtocolError(f"undecodable server stream: {str(err)[:200]}") from err
        if decoder.pending > MAX_PENDING_BYTES:
            raise TtsProtocolError(f"server event larger than {MAX_PENDING_BYTES} bytes")
        return events


__all__ = ["SessionEvent", "TtsError", "TtsSession"]
