"""Transport straight to a model server's WebSocket session (local development and tests)."""

from __future__ import annotations

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, ConnectionClosedOK, InvalidHandshake, InvalidURI

from ..errors import TtsSessionClosed, TtsUnreachable
from ..http.urls import ServerUrlError, server_urls
from .part_stream import PartStream

# A server frame holds one audio chunk (a few seconds of PCM16 at most); the default 1 MiB is tight.
MAX_FRAME_BYTES = 16 * 1024 * 1024
# Closing waits this long for the server's close frame: a server that stopped reading must not hold
# the caller (the library's default is 10 s).
CLOSE_TIMEOUT_S = 2.0


def session_url(base_url: str) -> str:
    """``http://host:port`` (or ws://) -> ``ws://host:port/invocations-bidirectional-stream``."""
    try:
        return server_urls(base_url).session
    except ServerUrlError as err:
        raise TtsUnreachable(str(err)) from None


class WebSocketParts:
    """A :class:`PartStream` over one client connection: one frame per part."""

    def __init__(self, connection: ClientConnection):
        self._connection = connection

    async def _send(self, message: str | bytes) -> None:
        try:
            await self._connection.send(message)  # str -> a TEXT frame, bytes -> a BINARY frame
        except ConnectionClosed as err:
            raise TtsSessionClosed(f"the model server closed the session ({err})") from err

    async def send_text(self, text: str) -> None:
        await self._send(text)

    async def send_binary(self, data: bytes) -> None:
        await self._send(data)

    async def receive(self) -> bytes | str | None:
        try:
            return await self._connection.recv()
        except ConnectionClosedOK:
            return None  # the session decides whether that end came too early
        except ConnectionClosed as err:  # the server failed (1011), refused the data (1003) or vanished
            code = err.rcvd.code if err.rcvd else 1006
            raise TtsSessionClosed(f"the model server closed the session (code {code})") from err

    async def aclose(self) -> None:
        await self._connection.close()


class WebSocketConnector:
    """Opens a session on a model server at ``base_url`` (see :mod:`speech_protocol.http.urls`)."""

    def __init__(self, base_url: str, *, open_timeout_s: float = 10.0):
        self.url = session_url(base_url)
        self._open_timeout_s = open_timeout_s

    async def connect(self) -> PartStream:
        try:
            connection = await connect(
                self.url,
                open_timeout=self._open_timeout_s,
                close_timeout=CLOSE_TIMEOUT_S,
                max_size=MAX_FRAME_BYTES,
                proxy=None,
            )
        except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as err:
            raise TtsUnreachable(f"cannot open a session at {self.url}: {err}") from err
        return WebSocketParts(connection)
