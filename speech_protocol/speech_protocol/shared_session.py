"""One speech session shared by every turn of a framework's TTS: opened once, routed by piece id, cancelled per turn.

A voice-agent framework (LiveKit's ``SynthesizeStream``, pipecat's audio context) starts a stream per turn.
Opening a session per turn would put a connection and the server's Ready in front of every first audio, so
the framework plugin keeps one :class:`~speech_protocol.tts_session.TtsSession` open (the protocol allows
any number of utterances on it) and each turn takes a :class:`Route`: its own piece-id prefix and the queue
its events arrive on. One reader task drains the session and hands each event to the route its id names;
events of a route that has gone (the turn was interrupted and its pieces cancelled) are dropped.

A session failure ends every open route with that :class:`~speech_protocol.errors.TtsError` and drops the
session; the next turn opens a new one. Failures stay :class:`TtsError` s here: each plugin turns them into
its framework's own error types.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging

from .errors import TtsError
from .transports.part_stream import Connector
from .tts_session import SessionEvent, TtsSession

logger = logging.getLogger(__name__)


def session_connector(base_url: str | None, connector: Connector | None, owner: str) -> Connector:
    """The transport a plugin's ``base_url`` or ``connector`` names (exactly one of them): a model server's URL
    is reached over WebSocket; any other transport (a SageMaker endpoint) comes as its connector."""
    if (base_url is None) == (connector is None):
        raise ValueError(
            f"give {owner} one of base_url (a model server, e.g. http://127.0.0.1:8080) or connector (e.g. "
            "speech_protocol.transports.sagemaker.SageMakerConnector(endpoint_name, region))"
        )
    if connector is not None:
        return connector
    from .transports.websocket import WebSocketConnector  # its extra is installed where a URL is given

    return WebSocketConnector(str(base_url))


class Route:
    """One turn's share of the session: the ids it sent, and the queue of their events (or the error)."""

    def __init__(self, owner: SharedSession, prefix: str) -> None:
        self._owner = owner
        self._prefix = prefix
        self._count = itertools.count()
        self.events: asyncio.Queue[SessionEvent | BaseException] = asyncio.Queue()
        self.unfinished: set[str] = set()

    async def send(self, text: str, *, voice: str, speed: float) -> None:
        piece_id = f"{self._prefix}.{next(self._count)}"
        self.unfinished.add(piece_id)
        await self._owner.send(piece_id, text, voice=voice, speed=speed)

    def close(self) -> None:
        self._owner.leave(self._prefix)


class SharedSession:
    """The plugin's session: :meth:`join` opens it on first use (or after a failure) and gives a route."""

    def __init__(self, connector: Connector, *, timeout_s: float) -> None:
        self._connector = connector
        self._timeout_s = timeout_s
        self._lock = asyncio.Lock()
        self._session: TtsSession | None = None
        self._reader: asyncio.Task[None] | None = None
        self._routes: dict[str, Route] = {}

    @property
    def pace(self) -> tuple[float | None, float | None] | None:
        """The server's running pace, for the turns' segmenters; ``None`` until the session is open."""
        return None if self._session is None else self._session.pace

    async def open(self) -> TtsSession:
        async with self._lock:
            if self._session is None:
                session = TtsSession(self._connector, timeout_s=self._timeout_s)
                await session.__aenter__()
                self._session = session
                self._reader = asyncio.create_task(self._read(session), name="kokoro.session_reader")
            return self._session

    async def join(self, prefix: str) -> Route:
        await self.open()
        route = Route(self, prefix)
        self._routes[prefix] = route
        return route

    def leave(self, prefix: str) -> None:
        self._routes.pop(prefix, None)

    async def send(self, piece_id: str, text: str, *, voice: str, speed: float) -> None:
        session = await self.open()
        try:
            await session.synthesize(piece_id, text, voice, speed)
        except TtsError as err:
            await self._drop(session, err)
            raise

    async def cancel(self, piece_ids: set[str]) -> None:
        """Drop these pieces on the server (queued or speaking); the session stays open for other turns.
        Best effort: a server too busy to take the cancel gets the session closed instead."""
        session = self._session
        if session is None or not piece_ids:
            return
        try:
            await session.cancel(piece_ids)
        except TtsError as err:
            logger.warning("cancel not sent (%s); the session is reopened on next use", err)
            await self._drop(session, err)

    async def _read(self, session: TtsSession) -> None:
        try:
            async for event in session.events():
                route = self._routes.get(event.id.rpartition(".")[0])
                if route is not None:
                    route.events.put_nowait(event)
        except TtsError as err:
            await self._drop(session, err)

    async def _drop(self, session: TtsSession, err: BaseException) -> None:
        """End every route with ``err`` and forget ``session`` (if it is still the current one)."""
        if session is not self._session:
            return
        self._session = None
        for route in self._routes.values():
            route.events.put_nowait(err)
        reader, self._reader = self._reader, None
        if reader is not None and reader is not asyncio.current_task():
            reader.cancel()
        with contextlib.suppress(TtsError):
            await session.__aexit__(None)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._drop(self._session, asyncio.CancelledError())
