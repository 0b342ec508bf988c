"""What both HTTP front doors (``/invocations`` and the OpenAI routes) do with a request before it speaks:
read its JSON body within one session frame's bound, and wait on work only while the client is still there."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from starlette.requests import HTTPConnection, Request

from kokoro_server.errors import RequestError
from kokoro_server.runtime import SpeechRuntime
from speech_protocol.client_messages import MAX_FRAME_BYTES
from speech_protocol.framing import loads
from speech_protocol.http.content_type import declares_json

T = TypeVar("T")
MAX_BODY_BYTES = MAX_FRAME_BYTES  # one request is one utterance: the bound of one session frame


def runtime_of(connection: HTTPConnection) -> SpeechRuntime:
    """The runtime the application's lifespan owns (for a request or a WebSocket)."""
    return connection.app.state.runtime


async def read_json(request: Request) -> dict:
    """The body as a JSON object, or a :class:`RequestError` (415, 413, 400) before anything is read in full."""
    if not declares_json(request.headers.get("content-type", "")):
        raise RequestError(415, "unsupported_media_type", "send the request as application/json")
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise RequestError(413, "body_too_large", f"request body over {MAX_BODY_BYTES} bytes")
    body = bytearray()
    async for part in request.stream():
        body += part
        if len(body) > MAX_BODY_BYTES:
            raise RequestError(413, "body_too_large", f"request body over {MAX_BODY_BYTES} bytes")
    payload = loads(bytes(body))
    if not isinstance(payload, dict):
        raise RequestError(400, "bad_message", "body must be a JSON object")
    return payload


async def unless_hung_up(request: Request, work: Awaitable[T]) -> T | None:
    """``await work``, or cancel it and return None if the client disconnects first (the body is read,
    so the next ASGI message can only be the disconnect). Once audio streams, Starlette watches instead."""
    task = asyncio.ensure_future(work)
    hangup = asyncio.ensure_future(request.receive())
    try:
        done, _ = await asyncio.wait({task, hangup}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        hangup.cancel()
        if not task.done():
            task.cancel()  # hung up (or this handler was cancelled): drop the queued G2P job
    return task.result() if task in done else None
