"""pipecat's streaming TTS for the Kokoro model server: the LLM's tokens, cut as they arrive, spoken on one session.

pipecat hands a token-streaming service every LLM token of a turn under one context id (one audio context
per turn) and says when the turn's text has ended (``flush_audio``). The turn is spoken as every client of
the session speaks one (:mod:`speech_protocol.turn`): each token goes to the project's segmenter, sized by
the server's running pace (so the first piece may end at a clause), and each piece is sent the moment it is complete on one long-lived
session shared by every turn (:class:`speech_protocol.shared_session.SharedSession`); the server renders
the next piece while the previous one plays. Audio goes into the turn's audio context as it arrives, and
each piece's ``words`` event becomes pipecat word timestamps, timed from the start of the turn's audio. An
interruption cancels the turn's pieces on the server, which stops their synthesis at once; the session
stays open for the next turn (docs/decisions/157-pipecat-service.md).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

from pipecat.frames.frames import EndFrame, Frame, StartFrame, TTSAudioRawFrame, TTSStoppedFrame
from pipecat.services.settings import NOT_GIVEN, NotGiven, TTSSettings
from pipecat.services.tts_service import TextAggregationMode, TTSService

from speech_protocol.errors import TtsError, TtsSessionClosed, TtsUnreachable
from speech_protocol.framing import SAMPLE_RATE
from speech_protocol.pieces.segmenter import Segmenter
from speech_protocol.server_events import Audio, End, Words
from speech_protocol.shared_session import Route, SharedSession, session_connector
from speech_protocol.transports.part_stream import Connector
from speech_protocol.turn import TurnAudio, TurnText
from speech_protocol.voices import DEFAULT_VOICE

from .errors import category, message

logger = logging.getLogger(__name__)

# How long the session waits for the server's next part while audio is owed (a piece is seconds of audio).
TIMEOUT_S = 60.0
# Sessions a turn may use before its first audio: the one it found, and one new one if that had died.
RESEND_ATTEMPTS = 2
_LOST = (TtsUnreachable, TtsSessionClosed)  # the session is gone, not the request refused


@dataclass
class KokoroServerTTSSettings(TTSSettings):
    """``voice``: a Kokoro voice (its prefix names the language, ``af_heart`` American English);
    ``speed``: Kokoro's speaking rate, 1.0 its natural pace. Both apply from the next piece sent."""

    speed: float | None | NotGiven = field(default_factory=lambda: NOT_GIVEN)


class _Turn:
    """One audio context: its text, its route on the session, its audio, and whether its text has all come.

    Until its first audio arrives the turn keeps what it sent (``unheard``): a session that turns out to be
    dead (the server restarted since the last turn) is then replaced once and the pieces sent again, with
    nothing heard twice."""

    def __init__(self, context_id: str, route: Route, text: TurnText) -> None:
        self.context_id = context_id
        self.route = route
        self.text = text
        self.audio = TurnAudio()
        self.input_done = False
        self.reader: asyncio.Task[None] | None = None
        self.unheard: list[tuple[str, str, float]] | None = []  # (text, voice, speed); None once heard
        self.attempts = 1

    @property
    def may_resend(self) -> bool:
        return self.unheard is not None and self.attempts < RESEND_ATTEMPTS


class KokoroServerTTSService(TTSService):
    """``base_url``: the model server (``http://host:port``); or ``connector``: any session transport of
    ``speech_protocol`` (``speech_protocol.transports.sagemaker.SageMakerConnector(endpoint, region)`` for a
    SageMaker endpoint). The session opens when the pipeline starts and serves every turn."""

    Settings = KokoroServerTTSSettings
    _settings: KokoroServerTTSSettings

    def __init__(
        self,
        *,
        base_url: str | None = None,
        connector: Connector | None = None,
        settings: KokoroServerTTSSettings | None = None,
        timeout_s: float = TIMEOUT_S,
        **kwargs: Any,
    ) -> None:
        transport = session_connector(base_url, connector, "KokoroServerTTSService")
        store = KokoroServerTTSSettings(model="kokoro-82m", voice=DEFAULT_VOICE, language=None, speed=1.0)
        if settings is not None:
            store.apply_update(settings)
        super().__init__(
            # Every token comes here: the project's segmenter, not pipecat's sentence aggregator, decides
            # where a piece ends (its first piece may end at a clause).
            text_aggregation_mode=TextAggregationMode.TOKEN,
            # Word timestamps become the TTSTextFrames, as the words are heard.
            push_text_frames=False,
            push_start_frame=True,
            # A context ends when its last piece has ended (or it failed), never because the server was quiet
            # for pipecat's default 3 s: on a busy CPU server a piece's first audio can take longer.
            stop_frame_timeout_s=timeout_s,
            sample_rate=SAMPLE_RATE,
            settings=store,
            **kwargs,
        )
        self._session = SharedSession(transport, timeout_s=timeout_s)
        self._turns: dict[str, _Turn] = {}
        # Turns whose session failed: their audio context is closed, the rest of their text is dropped.
        self._failed: set[str] = set()

    def can_generate_metrics(self) -> bool:
        return True

    async def start(self, frame: StartFrame) -> None:
        await super().start(frame)
        try:  # before the first turn, so that its first piece does not wait for a connection and Ready
            await self._session.open()
        except TtsError as err:  # reported; the first turn tries again
            await self.push_error(error_msg=message(err), exception=err, category=category(err))

    async def stop(self, frame: EndFrame) -> None:
        await super().stop(frame)
        await self._close()

    async def cancel(self, frame: Any) -> None:
        await super().cancel(frame)
        await self._close()

    async def run_tts(self, text: str, context_id: str) -> AsyncGenerator[Frame | None, None]:
        """Feed one token to the turn's segmenter and send the pieces it completed; audio comes on the
        turn's reader task, so this yields ``None`` (pipecat's sign for a service with a receive loop)."""
        if context_id in self._failed:
            yield None
            return
        try:
            turn = self._turns.get(context_id) or await self._begin(context_id)
            await self._send(turn, turn.text.feed(text))
        except TtsError as err:
            await self._fail(context_id, err)
        yield None

    async def flush_audio(self, context_id: str | None = None) -> None:
        """The turn's text has all come: send the rest of it, and end the turn once its pieces have."""
        context_id = context_id or self.get_active_audio_context_id()
        if context_id is None:
            return
        self._failed.discard(context_id)
        turn = self._turns.get(context_id)
        if turn is None or turn.input_done:
            return
        try:
            await self._send(turn, turn.text.flush())
        except TtsError as err:
            await self._fail(context_id, err)
            return
        turn.input_done = True
        if not turn.route.unfinished:
            await self._finish(context_id)

    async def on_audio_context_interrupted(self, context_id: str) -> None:
        """Barge-in: stop the server's work on this turn now; the session stays open for the next."""
        self._failed.discard(context_id)
        turn = self._turns.pop(context_id, None)
        if turn is not None:
            await self._end(turn)
            await self._session.cancel(set(turn.route.unfinished))
        await super().on_audio_context_interrupted(context_id)

    async def _begin(self, context_id: str) -> _Turn:
        route = await self._session.join(context_id)
        session = self._session
        turn = _Turn(context_id, route, TurnText(Segmenter(), lambda: session.pace))
        self._turns[context_id] = turn
        turn.reader = self.create_task(self._read(turn), name=f"kokoro.read.{context_id}")
        return turn

    async def _send(self, turn: _Turn, pieces: list[str]) -> None:
        for piece in pieces:
            speed = self._settings.speed
            sent = (piece, str(self._settings.voice), speed if isinstance(speed, (int, float)) else 1.0)
            if turn.unheard is not None:
                turn.unheard.append(sent)
            try:
                await turn.route.send(sent[0], voice=sent[1], speed=sent[2])
            except _LOST:
                if not turn.may_resend:
                    raise
                # The session had died: its reader gets the same error from the route and resends.

    async def _resend(self, turn: _Turn) -> None:
        """The turn's pieces, none of them heard yet, again on a new route (and so a new session)."""
        assert turn.unheard is not None
        turn.attempts += 1
        turn.route.close()
        turn.route = await self._session.join(f"{turn.context_id}.{turn.attempts}")
        for text, voice, speed in list(turn.unheard):
            await turn.route.send(text, voice=voice, speed=speed)

    async def _read(self, turn: _Turn) -> None:
        """The turn's audio and words into its audio context, until its last piece ends."""
        context_id = turn.context_id
        while True:
            event = await turn.route.events.get()
            if isinstance(event, _LOST) and turn.may_resend:
                logger.info(
                    "the model server's session was lost before %s was heard (%s); resending", context_id, event
                )
                try:
                    await self._resend(turn)
                    continue
                except TtsError as err:
                    event = err
            if isinstance(event, BaseException):
                await self._fail(context_id, event if isinstance(event, TtsError) else TtsError(str(event)))
                return
            turn.unheard = None  # the server has answered on this session: no piece of it is sent twice
            offset_s = turn.audio.place(event)
            if isinstance(event, Audio):
                frame = TTSAudioRawFrame(
                    audio=event.pcm, sample_rate=SAMPLE_RATE, num_channels=1, context_id=context_id
                )
                await self.append_to_audio_context(context_id, frame)
            elif isinstance(event, Words):
                await self.add_word_timestamps(
                    [(word.text, offset_s + word.start_s) for word in event.words], context_id
                )
            elif isinstance(event, End):
                turn.route.unfinished.discard(event.id)
                if turn.input_done and not turn.route.unfinished:
                    await self._finish(context_id)
                    return

    async def _finish(self, context_id: str) -> None:
        """Close the turn's audio context after everything it was sent (pipecat then plays it out)."""
        turn = self._turns.pop(context_id, None)
        if turn is not None:
            await self._end(turn)
            await self._close_context(context_id)

    async def _fail(self, context_id: str, err: TtsError) -> None:
        """Report the failure as pipecat's ErrorFrame and end the turn, so that the pipeline never waits on it;
        the next turn opens a new session if this one is gone."""
        await self.push_error(error_msg=message(err), exception=err, category=category(err))
        self._failed.add(context_id)
        turn = self._turns.pop(context_id, None)
        if turn is not None:
            await self._end(turn)
        if self.audio_context_available(context_id):
            await self._close_context(context_id)

    async def _close_context(self, context_id: str) -> None:
        await self.append_to_audio_context(context_id, TTSStoppedFrame(context_id=context_id))
        await self.remove_audio_context(context_id)

    async def _end(self, turn: _Turn) -> None:
        turn.route.close()
        reader, turn.reader = turn.reader, None
        if reader is not None and reader is not asyncio.current_task():
            await self.cancel_task(reader)

    async def _close(self) -> None:
        for context_id in list(self._turns):
            await self._end(self._turns.pop(context_id))
        self._failed.clear()
        await self._session.aclose()
