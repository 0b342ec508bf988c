"""A real WebSocket server on 127.0.0.1 that plays a test's script of the session protocol.

For the failures the real model server cannot be made to produce on cue: closing mid-answer,
stalling, sending garbage, or holding audio back until the next piece arrives (which proves the
client pipelines). Frames are encoded with ``speech_protocol.server_events`` like the real server's.

A script's own assertions are part of its test: whatever a script raises, other than the client going
away (``ConnectionClosed``), is raised again from the ``async with`` when the server stops, so a script
that asserts something false fails its test (tests/protocol/test_scripted_model_server.py). A script that needs
a message from the client before it goes away waits with :meth:`Peer.expect`: the socket closing first is then
an assertion that fails, not the end of the script.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import TypeVar

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from speech_protocol.client_messages import Synthesize, decode_client_frame
from speech_protocol.server_events import Audio, End, Ready, ServerEvent, Start, encode_event

Script = Callable[["Peer"], Awaitable[None]]
Message = TypeVar("Message")
PCM_CHUNK = b"\x01\x00" * 2400  # 0.1 s of audio at 24 kHz


class Peer:
    """The server side of one session, as a test script sees it."""

    def __init__(self, connection: ServerConnection):
        self.connection = connection
        self.received: list = []

    async def send(self, *events: ServerEvent) -> None:
        for event in events:
            for frame in encode_event(event):
                await self.connection.send(frame)

    async def next_message(self):
        """The next client message (Synthesize, Close, ...), decoded with the real protocol."""
        while True:
            if self.received:
                return self.received.pop(0)
            self.received.extend(decode_client_frame(await self.connection.recv()))

    async def expect(self, kind: type[Message]) -> Message:
        """The next client message, which must be a ``kind``: a client that closes the socket instead (or sends
        another message) fails the script."""
        try:
            message = await self.next_message()
        except ConnectionClosed:
            raise AssertionError(f"the client closed the socket without sending {kind.__name__}") from None
        assert isinstance(message, kind), f"expected {kind.__name__}, got {message!r}"
        return message

    async def speak(self, message: Synthesize, chunks: int = 2) -> None:
        """What a healthy server says for one piece."""
        await self.send(Start(id=message.id or ""))
        for seq in range(chunks):
            await self.send(Audio(id=message.id or "", seq=seq, pcm=PCM_CHUNK))
        await self.send(End(id=message.id or "", audio_s=0.1 * chunks, first_audio_s=0.0, synth_s=0.0, queued_s=0.0))


async def greet(peer: Peer) -> None:
    await peer.send(Ready(session="scripted"))


async def close_after_first_message(peer: Peer) -> None:
    """A server that goes away mid-answer: it greets, takes the first message, and closes the socket."""
    await greet(peer)
    await peer.next_message()
    await peer.connection.close()


@contextlib.asynccontextmanager
async def scripted_model_server(script: Script) -> AsyncIterator[str]:
    """Yields the base URL (``http://127.0.0.1:PORT``) of a server running ``script`` per session.

    Raises ``ExceptionGroup`` of what the scripts raised (their failed assertions) once the server has
    stopped, even when the test's own code failed first: a script's failure is usually the cause.
    """
    failures: list[Exception] = []

    async def handler(connection: ServerConnection) -> None:
        try:
            await script(Peer(connection))
        except ConnectionClosed:
            pass  # the client went away: sessions end so, and tests provoke it on purpose
        except Exception as exc:  # collected: raised again from the test below
            failures.append(exc)

    try:
        async with serve(handler, "127.0.0.1", 0) as server:
            port = next(iter(server.sockets)).getsockname()[1]
            yield f"http://127.0.0.1:{port}"
    except Exception as exc:
        if failures:
            raise ExceptionGroup("the scripted model server's script failed", failures) from exc
        raise
    if failures:
        raise ExceptionGroup("the scripted model server's script failed", failures)


@contextlib.contextmanager
def scripted_model_server_thread(script: Script) -> Iterator[str]:
    """:func:`scripted_model_server` on an event loop of its own thread, for a synchronous test or fixture
    (an agent served from a thread, driven with blocking calls). What the scripts raised is raised here."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="scripted-model-server", daemon=True)
    thread.start()
    server = scripted_model_server(script)
    try:
        yield asyncio.run_coroutine_threadsafe(server.__aenter__(), loop).result(timeout=30)
        asyncio.run_coroutine_threadsafe(server.__aexit__(None, None, None), loop).result(timeout=30)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()
