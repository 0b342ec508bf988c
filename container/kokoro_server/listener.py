"""How the server meets the network: its socket, slow clients, too many clients, and SIGTERM.

* The socket is bound before anything else, so ``kokoro-serve`` on a port in use stops at once with one
  line (uvicorn binds after the app's start-up, and the model would have loaded first).
* A client must send its complete request head within ``header_timeout_s`` of connecting (or of its first
  byte on a kept-alive connection). uvicorn has no such timeout: its keep-alive timer is reset by every
  byte, so a client trickling one byte a second is never timed out (docs/decisions/041-network-limits-and-shutdown.md).
  Reading the head is the only part with no deadline of its own: bodies are capped at 64 KiB, and WebSocket sessions have
  their own protocol.
* Each connection's kernel send buffer is capped, and a WebSocket whose peer stopped reading is dropped
  when its session ends (:class:`DropsPeersThatStopReading`): a client that reads nothing gets a few
  seconds of audio synthesized, not a minute, and gives its session's slot back (decision 142).
* ``max_connections`` caps open connections (uvicorn's ``limit_concurrency``: a request over the cap gets
  503), so file descriptors and memory stay bounded whatever the clients do.
* On SIGTERM (how SageMaker stops a container) in-flight responses get ``SHUTDOWN_GRACE_S`` seconds, then
  they are cancelled along with every queued job; the process is gone within a few seconds, with exit
  code 0 (a stop that was asked for is the normal end of a server: decision 110).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
from collections.abc import Iterator
from types import FrameType

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from kokoro_server.settings import ServerSettings

log = logging.getLogger("kokoro_server")
SHUTDOWN_GRACE_S = 3  # SageMaker waits 30 s after SIGTERM before it kills; a few seconds is plenty
WS_MAX_FRAME = 1 << 20  # bytes; larger client frames close the socket (1009) before reaching the app
# Each connection's kernel send buffer (accepted sockets inherit it from the listener). Autotuned, it grew
# to 4 MiB: about 75 s of 24 kHz audio synthesized for a client that reads none of it (decision 142).
SEND_BUFFER_BYTES = 256 * 1024


class PortInUse(OSError):
    """The address is taken (or not ours to bind)."""


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``, or :class:`PortInUse` with the fix in its message."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)
    try:
        sock.bind((host, port))
    except OSError as err:
        sock.close()
        raise PortInUse(
            f"cannot listen on {host}:{port} ({err.strerror}); stop whatever uses that port, "
            "or choose another with --port"
        ) from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def header_deadline_protocol(timeout_s: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol with a deadline on each request head (see the module docstring)."""

    class HeaderDeadline(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            if self._deadline is None and self.conn.their_state is h11.IDLE:
                self._arm()  # the first byte of a new request on a kept-alive connection
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:  # the head is complete (or broken and answered)
                self._disarm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(timeout_s, self._expire)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expire(self) -> None:
            self._deadline = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                log.info("closed a connection that sent no complete request head in %.0f s", timeout_s)
                self.transport.close()

    return HeaderDeadline


class DropsPeersThatStopReading(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, except that a connection whose peer has stopped reading is dropped
    when the app closes it, instead of waiting for the peer.

    uvicorn's close waits until the socket can be written (it never can: the peer reads nothing), then
    queues the close frame behind the unsent audio and, 10 s later, calls the transport's ``close()``, which
    waits for that audio to leave. So a session ended by the send timeout kept its admission slot until the
    peer itself hung up, and forever for a peer that never does (decision 142)."""

    async def send(self, message) -> None:
        if message["type"] == "websocket.close" and not self.writable.is_set():
            self.transport.abort()  # connection_lost follows: the app receives its disconnect
            return
        await super().send(message)
        if message["type"] == "websocket.close" and self.close_timer is not None:
            self.close_timer.cancel()  # the peer gets close_timeout to answer or drain, then the socket goes
            self.close_timer = self.loop.call_later(self.close_timeout, self.transport.abort)


def serve(app, settings: ServerSettings, sock: socket.socket, log_level: str) -> bool:
    """Run ``app`` on the already bound ``sock`` until SIGTERM/SIGINT; False if it failed to start."""
    config = uvicorn.Config(
        app,
        log_level=log_level,
        # uvicorn's sans-I/O protocol (the legacy "websockets" one warns at every start: deprecated)
        ws=DropsPeersThatStopReading,
        ws_max_size=WS_MAX_FRAME,
        http=header_deadline_protocol(settings.header_timeout_s),
        limit_concurrency=settings.max_connections,
        timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
    )
    server = uvicorn.Server(config)
    with stop_requests_end(server):
        server.run(sockets=[sock])
    return server.started


@contextlib.contextmanager
def stop_requests_end(server: uvicorn.Server) -> Iterator[None]:
    """SIGINT and SIGTERM stop ``server`` and the process exits 0 (decision 110).

    uvicorn shuts down gracefully, then raises the signal again under the handler that was in place before
    it ran: with Python's defaults the process would die by SIGTERM or end in KeyboardInterrupt (130). The
    handler put in place here receives that second raise and asks the server to exit, which it already
    has; a signal that arrives before uvicorn installs its own handlers stops the server the same way.
    """

    def stop(signum: int, frame: FrameType | None) -> None:
        server.should_exit = True

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
