"""Refuse request bodies over a limit before they are read into memory, and bodies that are not JSON.

A body declared as anything but ``application/json`` is refused before it is read (415): the types a
cross-site form or ``fetch`` sends without asking first (``text/plain``, form encodings) never start a
turn. A body with no ``Content-Type`` is read, as AgentCore's contract leaves the header to the caller
(docs/decisions/101-json-only-as-json.md).

``BedrockAgentCoreApp`` reads the whole body with ``request.json()``; a valid payload is a prompt of
at most a few kilobytes (see :mod:`voice_agent.request`), so anything near this limit is hostile. It
catches only ``JSONDecodeError`` there: deep nesting (RecursionError) or a number past Python's
4,300-digit limit (ValueError) would be a plain-text 500, so :class:`JsonBody` parses first and answers
those with the same typed 400 ``bad_json`` as any other malformed body.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from speech_protocol.errors import ProtocolError
from speech_protocol.framing import loads
from speech_protocol.http.browser_access import refuse
from speech_protocol.http.content_type import declares_json

MAX_BODY_BYTES = 64 * 1024


class BodyTooLarge(Exception):
    pass


class BodyLimit:
    """Pure ASGI middleware: 413 with a JSON error for a declared or streamed body over ``limit``."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES):
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"0")
        if not declared.isdigit() or int(declared) > self.limit:
            await self._refuse(send)
            return
        seen = 0

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise BodyTooLarge
            return message

        try:
            await self.app(scope, counting_receive, send)
        except BodyTooLarge:
            await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        await refuse(send, 413, "body_too_large", f"request body over {self.limit} bytes")


class JsonBody:
    """Pure ASGI middleware (inside :class:`BodyLimit`): a POST body must parse as JSON, else 400."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-type")
        if declared is not None and not declares_json(declared.decode("latin-1")):
            await refuse(send, 415, "unsupported_media_type", "send the request as application/json")
            return
        chunks = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the caller left before sending the whole body
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        try:
            loads(body)  # the model server's parser: its messages speak to a remote client, not to Python
        except ProtocolError as err:
            await refuse(send, 400, "bad_json", err.message)  # the only code loads() raises
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # later reads watch for the caller hanging up
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)
