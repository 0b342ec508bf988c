"""One HTTP/2 connection: h2's state machine on an asyncio stream, with flow control both ways.

Received data is acknowledged as it is handed on, so the client's send window reopens; sent data
never exceeds the peer's window and waits for its WINDOW_UPDATE. Without both, any transfer beyond
the initial 64 KiB window stalls. Each request stream is served by its own task (``serve_stream``),
so one stream's bad input never disturbs the others.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any

import h2.config
import h2.connection
import h2.events
import h2.exceptions


class StreamGone(Exception):
    """The client reset the stream or dropped the connection: nothing more can be sent on it."""


class StreamPort:
    """What a stream's handler may do: respond, send data (flow-controlled) and end the stream."""

    def __init__(self, connection: Http2Connection, stream_id: int):
        self._connection, self.stream_id = connection, stream_id

    async def respond(self, headers: list[tuple[str, str]], body: bytes | None = None) -> None:
        self._connection.h2.send_headers(self.stream_id, headers)
        await self._connection.flush()
        if body is not None:
            await self.send(body, end=True)

    async def send(self, data: bytes, *, end: bool = False) -> None:
        connection = self._connection
        view = memoryview(data)
        try:
            while view:
                window = min(
                    connection.h2.local_flow_control_window(self.stream_id), connection.h2.max_outbound_frame_size
                )
                if window <= 0:
                    await connection.window_opened(self.stream_id)
                    continue
                connection.h2.send_data(self.stream_id, bytes(view[:window]))
                view = view[window:]
                await connection.flush()
            if end:
                connection.h2.end_stream(self.stream_id)
                await connection.flush()
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError, ConnectionError) as err:
            raise StreamGone(str(err)) from err


# (port, request headers, request body chunks: bytes, then None at END_STREAM) -> served
StreamHandler = Callable[[StreamPort, dict[str, str], asyncio.Queue], Coroutine[Any, Any, None]]


class Http2Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, serve_stream: StreamHandler):
        self._reader, self._writer, self._serve = reader, writer, serve_stream
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self._bodies: dict[int, asyncio.Queue] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._window = asyncio.Condition()
        self._closed = False

    async def flush(self) -> None:
        if self._closed:
            raise ConnectionError("the connection is closed")
        self._writer.write(self.h2.data_to_send())
        await self._writer.drain()

    async def window_opened(self, stream_id: int) -> None:
        async with self._window:
            await self._window.wait_for(
                lambda: self._closed or stream_id not in self._tasks or self.h2.local_flow_control_window(stream_id) > 0
            )
        if self._closed or stream_id not in self._tasks:
            raise StreamGone("the stream ended while waiting for the client's window")

    async def _window_changed(self) -> None:
        async with self._window:
            self._window.notify_all()

    async def serve(self) -> None:
        self.h2.initiate_connection()
        try:
            await self.flush()
            while data := await self._reader.read(65536):
                events = self.h2.receive_data(data)
                for event in events:
                    await self._dispatch(event)
                await self.flush()
        except (h2.exceptions.ProtocolError, ConnectionError, asyncio.IncompleteReadError):
            pass  # a broken client loses its own connection; the server carries on
        finally:
            self._closed = True
            await self._window_changed()
            for task in list(self._tasks.values()):
                task.cancel()
            with contextlib.suppress(Exception):
                self._writer.close()
                await self._writer.wait_closed()

    async def _dispatch(self, event: h2.events.Event) -> None:
        if isinstance(event, h2.events.RequestReceived):
            body: asyncio.Queue = asyncio.Queue()
            self._bodies[event.stream_id] = body
            port = StreamPort(self, event.stream_id)
            headers: dict[str, str] = dict(event.headers)  # type: ignore[arg-type]  # h2 declares bytes; header_encoding="utf-8" gives str
            stream_id = event.stream_id
            task = asyncio.create_task(self._serve(port, headers, body))
            self._tasks[stream_id] = task
            task.add_done_callback(lambda _: self._forget(stream_id))
            if event.stream_ended:
                body.put_nowait(None)
        elif isinstance(event, h2.events.DataReceived):
            self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            if event.stream_id in self._bodies:
                self._bodies[event.stream_id].put_nowait(event.data)
        elif isinstance(event, h2.events.StreamEnded):
            if event.stream_id in self._bodies:
                self._bodies[event.stream_id].put_nowait(None)
        elif isinstance(event, h2.events.StreamReset):
            if served := self._tasks.get(event.stream_id):
                served.cancel()
        elif isinstance(event, (h2.events.WindowUpdated, h2.events.RemoteSettingsChanged)):
            await self._window_changed()
        elif isinstance(event, h2.events.ConnectionTerminated):
            self._closed = True

    def _forget(self, stream_id: int) -> None:
        self._bodies.pop(stream_id, None)
        self._tasks.pop(stream_id, None)
        if not self._closed:
            asyncio.get_running_loop().create_task(self._window_changed())
