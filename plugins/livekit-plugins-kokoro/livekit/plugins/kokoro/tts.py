"""LiveKit's streaming TTS for the Kokoro model server: the LLM's text, cut as it arrives, spoken on one session.

A :class:`SynthesizeStream` speaks one turn as every client of the session does (:mod:`speech_protocol.turn`):
every pushed token goes to the project's segmenter, sized by the server's running pace (so the first piece
may end at a clause), and each piece is sent the moment it is complete; the server synthesises the next
piece while the previous one plays. Audio goes out as it arrives, and each piece's ``words`` event becomes
LiveKit ``TimedString`` s, timed from the start of the stream's audio. Closing a stream before its audio
has all arrived (an interruption) cancels its pieces on the server, which stops their synthesis at once;
the session stays open for the next turn (docs/decisions/152-livekit-plugin.md).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace

from livekit.agents import DEFAULT_API_CONNECT_OPTIONS, APIConnectOptions, tts, utils
from livekit.agents.types import TimedString

from speech_protocol.errors import TtsError
from speech_protocol.framing import SAMPLE_RATE
from speech_protocol.pieces.segmenter import Segmenter
from speech_protocol.server_events import Audio, End, Words, WordSpan
from speech_protocol.shared_session import Route, SharedSession, session_connector
from speech_protocol.transports.part_stream import Connector
from speech_protocol.turn import TurnAudio, TurnText
from speech_protocol.voices import DEFAULT_VOICE

from .errors import api_error

# How long the session waits for the server's next part while audio is owed (a piece is seconds of audio).
TIMEOUT_S = 60.0


@dataclass(frozen=True)
class _Options:
    voice: str
    speed: float


class TTS(tts.TTS):
    """``base_url``: the model server (``http://host:port``); or ``connector``: any session transport of
    ``speech_protocol`` (``speech_protocol.transports.sagemaker.SageMakerConnector(endpoint, region)`` for a
    SageMaker endpoint). ``voice`` and ``speed`` apply to the next stream; change them per turn with
    :meth:`update_options`. One session serves every stream; :meth:`prewarm` opens it before the first turn."""

    def __init__(
        self,
        *,
        base_url: str | None = None,
        connector: Connector | None = None,
        voice: str = DEFAULT_VOICE,
        speed: float = 1.0,
        timeout_s: float = TIMEOUT_S,
    ) -> None:
        super().__init__(
            capabilities=tts.TTSCapabilities(streaming=True, aligned_transcript=True),
            sample_rate=SAMPLE_RATE,
            num_channels=1,
        )
        self._opts = _Options(voice=voice, speed=speed)
        self._session = SharedSession(session_connector(base_url, connector, "kokoro.TTS"), timeout_s=timeout_s)
        self._prewarm: asyncio.Task[object] | None = None

    @property
    def model(self) -> str:
        return "kokoro-82m"

    @property
    def provider(self) -> str:
        return "kokoro"

    def update_options(self, *, voice: str | None = None, speed: float | None = None) -> None:
        self._opts = replace(
            self._opts,
            voice=self._opts.voice if voice is None else voice,
            speed=self._opts.speed if speed is None else speed,
        )

    def prewarm(self) -> None:
        if self._prewarm is None:
            self._prewarm = asyncio.ensure_future(self._session.open())
            self._prewarm.add_done_callback(lambda task: task.cancelled() or task.exception())

    def stream(self, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS) -> SynthesizeStream:
        return SynthesizeStream(tts=self, conn_options=conn_options)

    def synthesize(
        self, text: str, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> tts.ChunkedStream:
        return self._synthesize_with_stream(text, conn_options=conn_options)

    async def aclose(self) -> None:
        if self._prewarm is not None:
            self._prewarm.cancel()
        await self._session.aclose()


class SynthesizeStream(tts.SynthesizeStream):
    """One turn: the pushed text, cut into pieces and sent at once; its audio and word timings out."""

    def __init__(self, *, tts: TTS, conn_options: APIConnectOptions) -> None:
        super().__init__(tts=tts, conn_options=conn_options)
        self._kokoro = tts

    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        try:
            await self._speak(output_emitter)
        except TtsError as err:  # as LiveKit's own error types, so that its retry and error events work
            raise api_error(err) from err

    async def _speak(self, output_emitter: tts.AudioEmitter) -> None:
        request_id = utils.shortuuid()
        opts = self._kokoro._opts
        output_emitter.initialize(
            request_id=request_id, sample_rate=SAMPLE_RATE, num_channels=1, mime_type="audio/pcm", stream=True
        )
        route = await self._kokoro._session.join(request_id)
        sender = asyncio.create_task(self._send(route, opts), name="kokoro.send_pieces")
        done = False
        try:
            output_emitter.start_segment(segment_id=request_id)
            await self._receive(route, sender, output_emitter)
            done = True
        finally:
            route.close()
            if not sender.done():
                sender.cancel()
            if not done and route.unfinished:  # interrupted: stop the server's work on this turn now
                await asyncio.shield(self._kokoro._session.cancel(set(route.unfinished)))

    async def _send(self, route: Route, opts: _Options) -> None:
        session = self._kokoro._session
        text = TurnText(Segmenter(), lambda: session.pace)
        async for item in self._input_ch:
            if isinstance(item, self._FlushSentinel):
                pieces = text.flush()
            else:
                self._mark_started()
                pieces = text.feed(item)
            for piece in pieces:
                await route.send(piece, voice=opts.voice, speed=opts.speed)
        for piece in text.flush():
            await route.send(piece, voice=opts.voice, speed=opts.speed)

    async def _receive(self, route: Route, sender: asyncio.Task[None], emitter: tts.AudioEmitter) -> None:
        """Push audio and timed words until every piece sent has ended and no more will be sent."""
        audio = TurnAudio()
        waiter: asyncio.Future[object] | None = None
        try:
            while not (sender.done() and not route.unfinished):
                if waiter is None:
                    waiter = asyncio.ensure_future(route.events.get())
                # Once the sender is done only the next event is waited for: a finished task in the set would
                # return at once, and the loop would spin the client's CPU until the last piece ends.
                watched = {waiter} if sender.done() else {waiter, sender}
                await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
                if sender.done() and (failure := sender.exception()) is not None:
                    raise failure
                if not waiter.done():
                    continue
                event, waiter = waiter.result(), None
                if isinstance(event, BaseException):
                    raise event
                offset_s = audio.place(event)
                if isinstance(event, Audio):
                    emitter.push(event.pcm)
                elif isinstance(event, Words):
                    emitter.push_timed_transcript([_timed(word, offset_s) for word in event.words])
                elif isinstance(event, End):
                    route.unfinished.discard(event.id)
        finally:
            if waiter is not None:
                waiter.cancel()
        emitter.end_segment()


def _timed(word: WordSpan, offset_s: float) -> TimedString:
    """One word as LiveKit times it: from the start of the stream's audio, followed by its space."""
    return TimedString(f"{word.text} ", start_time=offset_s + word.start_s, end_time=offset_s + word.end_s)
