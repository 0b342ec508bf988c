"""Transport straight to a model server's WebSocket session (local development and tests)."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from kokoro_server.protocol import SESSION_PATH

from .base import PartStream, TtsSessionClosed, TtsUnreachable

# A server frame holds one audio chunk (a few seconds of PCM16 at most); the default 1 MiB is tight.
MAX_FRAME_BYTES = 16 * 1024 * 1024
_WS_SCHEMES = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}


def session_url(base_url: str) -> str:
    """``http://host:port`` (or ws://) -> ``ws://host:port/invocations-bidirectional-stream``."""
    parts = urlsplit(base_url)
    scheme = _WS_SCHEMES.get(parts.scheme)
    if scheme is None or not parts.netloc:
        raise TtsUnreachable(f"not a model server URL: {base_url[:100]!r}")
    path = parts.path if parts.path not in ("", "/") else SESSION_PATH
    return urlunsplit((scheme, parts.netloc, path, parts.query, ""))


class WebSocketParts:
    """A :class:`PartStream` over one client connection: one frame per part."""

    def __init__(self, connection: ClientConnection):
        self._connection = connection

    async def send_text(self, text: str) -> None:
        try:
            await self._connection.send(text)
        except ConnectionClosed as err:
            raise TtsSessionClosed(f"the model server closed the session ({err})") from err

    async def receive(self) -> bytes | str | None:
        try:
            return await self._connection.recv()
        except ConnectionClosed:
            return None  # the session decides whether that end came too early

    async def aclose(self) -> None:
        await self._connection.close()


class WebSocketConnector:
    """Opens a session on a model server at ``base_url`` (contract A)."""

    def __init__(self, base_url: str, *, open_timeout_s: float = 10.0):
        self.url = session_url(base_url)
        self._open_timeout_s = open_timeout_s

    async def connect(self) -> PartStream:
        try:
            connection = await connect(
                self.url, open_timeout=self._open_timeout_s, max_size=MAX_FRAME_BYTES, proxy=None
            )
        except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as err:
            raise TtsUnreachable(f"cannot open a session at {self.url}: {err}") from err
        return WebSocketParts(connection)
