"""One bidirectional stream bridged to one WebSocket on the model container.

The order follows the platform: validate the request, open the container's WebSocket (refused ->
HTTP 424 ``ModelError``), answer 200, then carry request parts in and container frames out until
the container closes its socket. A container that drops the socket without a close handshake ends
the stream with ``ModelStreamError`` (``StreamBroken``). A malformed event ends only its own stream,
with an event-stream ``error`` message (decision record 030).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import uuid
from dataclasses import dataclass

import websockets

from kokoro_devtools.sagemaker_emulator import wire
from kokoro_devtools.sagemaker_emulator.eventstream import Decoder, MalformedMessage
from kokoro_devtools.sagemaker_emulator.http2 import StreamGone, StreamPort

PATH = re.compile(r"^/endpoints/([A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))/invocations-bidirectional-stream\??$")
EVENT_STREAM = "application/vnd.amazon.eventstream"
SESSION_PATH = "/invocations-bidirectional-stream"


@dataclass(frozen=True)
class Settings:
    container: str  # http(s)://host:port of the model container
    open_timeout_s: float = 2.0  # the platform wants ~250 ms; the tests' CPU is shared, so looser
    variant: str = "AllTraffic"
    ping_interval_s: float = 60.0  # the platform's keep-alive: a ping every 60 s, 5 missed -> closed

    @property
    def container_ws(self) -> str:
        return "ws" + self.container.removeprefix("http")


def request_problem(headers: dict[str, str]) -> wire.HttpError | None:
    """Why SageMaker would refuse this request before opening the stream, if it would."""
    if headers.get(":method") != "POST" or not PATH.match(headers.get(":path", "")):
        return wire.HttpError(404, "UnknownOperationException", f"no operation at {headers.get(':path')!r}")
    if not headers.get("authorization", "").startswith("AWS4-HMAC-SHA256 "):
        return wire.HttpError(403, "MissingAuthenticationTokenException", "the request is not SigV4-signed")
    if headers.get("x-amz-content-sha256") != "STREAMING-AWS4-HMAC-SHA256-EVENTS":
        return wire.HttpError(
            400, "InputValidationError", "x-amz-content-sha256 must be STREAMING-AWS4-HMAC-SHA256-EVENTS"
        )
    if headers.get("content-type") != EVENT_STREAM:
        return wire.HttpError(400, "InputValidationError", f"content-type must be {EVENT_STREAM}")
    return None


def container_url(settings: Settings, headers: dict[str, str]) -> str:
    path = headers.get("x-amzn-sagemaker-model-invocation-path")
    query = headers.get("x-amzn-sagemaker-model-query-string")
    return settings.container_ws + ("/" + path.lstrip("/") if path else SESSION_PATH) + (f"?{query}" if query else "")


class Bridge:
    def __init__(self, port: StreamPort, body: asyncio.Queue, settings: Settings):
        self._port, self._body, self._settings = port, body, settings
        self._finished = False

    async def _finish(self, last_event: bytes | None) -> None:
        """End the response stream once, with an error event first when there is one."""
        if not self._finished:
            self._finished = True
            await self._port.send(last_event or b"", end=True)

    async def _pump_in(self, ws: websockets.ClientConnection) -> None:
        decoder = Decoder()
        try:
            while (chunk := await self._body.get()) is not None:
                for envelope in decoder.feed(chunk):
                    part = wire.request_part(envelope)
                    if part is not wire.END_OF_INPUT:
                        await ws.send(part)  # str -> TEXT frame, bytes -> BINARY frame
            decoder.finish()
        except MalformedMessage as err:
            await self._finish(wire.stream_error("InputValidationError", f"malformed event stream: {err}"))
            await ws.close(1008, "malformed request stream")
        except websockets.ConnectionClosed:
            pass  # the container went away: _pump_out reports it

    async def _pump_out(self, ws: websockets.ClientConnection) -> None:
        try:
            async for frame in ws:
                await self._port.send(wire.payload_part(frame))
        except websockets.ConnectionClosedError as err:
            message = f"the model container's stream broke: {err}"
            await self._finish(wire.stream_exception("ModelStreamError", message, "StreamBroken"))
        else:
            await self._finish(None)

    async def run(self, headers: dict[str, str]) -> None:
        if problem := request_problem(headers):
            return await self._port.respond(problem.headers(), problem.body())
        url = container_url(self._settings, headers)
        try:
            ws = await websockets.connect(
                url,
                open_timeout=self._settings.open_timeout_s,
                max_size=None,
                ping_interval=self._settings.ping_interval_s,
                ping_timeout=5 * self._settings.ping_interval_s,
            )
        except (OSError, TimeoutError, websockets.InvalidHandshake) as err:
            refusal = wire.HttpError(424, "ModelError", f"the model container refused the WebSocket at {url}: {err}")
            return await self._port.respond(refusal.headers(), refusal.body())
        try:
            await self._port.respond(
                [
                    (":status", "200"),
                    ("content-type", EVENT_STREAM),
                    ("x-amzn-invoked-production-variant", self._settings.variant),
                    ("x-amzn-requestid", str(uuid.uuid4())),
                ]
            )
            await self._carry(ws)
        finally:
            with contextlib.suppress(Exception):
                await ws.close()

    async def _carry(self, ws: websockets.ClientConnection) -> None:
        """Both directions at once, until the container closes (or bad input ends the stream)."""
        pump_in = asyncio.create_task(self._pump_in(ws))
        pump_out = asyncio.create_task(self._pump_out(ws))
        try:
            await asyncio.wait({pump_in, pump_out}, return_when=asyncio.FIRST_COMPLETED)
            if not pump_out.done() and not self._finished:
                await asyncio.wait({pump_out})  # the input ended: the container answers until it closes
            for task in (pump_in, pump_out):
                if task.done() and not task.cancelled() and (error := task.exception()) is not None:
                    raise error
        finally:
            pump_in.cancel()
            pump_out.cancel()


async def serve_stream(settings: Settings, port: StreamPort, headers: dict[str, str], body: asyncio.Queue) -> None:
    with contextlib.suppress(StreamGone):
        await Bridge(port, body, settings).run(headers)
