"""Stop an answer the moment its caller hangs up, not when the app next writes to the gone client.

Under uvicorn (ASGI spec 2.4) Starlette's StreamingResponse notices a gone client only when a write
fails, and BedrockAgentCoreApp runs an async-generator entrypoint on its own worker loop. An answer can
go seconds between events while the next piece is synthesized, so the LLM and the speech session ran on
for nothing (measured: the model server's session closed 3.1 s after the caller hung up). So
:class:`HangupSignal` (ASGI middleware, on the server's loop) listens for ``http.disconnect`` once the
body has been read and sets a thread-safe flag in the request's scope; :func:`until_hangup`, on the
worker loop, polls that flag and closes the answer's event stream, which cancels the LLM stream and
closes the speech session.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from typing import Any, TypeVar

from starlette.types import ASGIApp, Message, Receive, Scope, Send

T = TypeVar("T")
POLL_S = 0.1
SCOPE_KEY = "hung_up"


class HangupSignal:
    """Pure ASGI middleware: ``scope["state"]["hung_up"]`` is set when the HTTP client disconnects."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        hung_up = threading.Event()
        scope.setdefault("state", {})[SCOPE_KEY] = hung_up
        body_read = asyncio.Event()

        async def tracking_receive() -> Message:
            message = await receive()
            if message["type"] == "http.disconnect":
                hung_up.set()
            elif not message.get("more_body", False):
                body_read.set()
            return message

        async def listen() -> None:
            await body_read.wait()
            while (await receive())["type"] != "http.disconnect":
                pass
            hung_up.set()

        listener = asyncio.create_task(listen())
        try:
            await self.app(scope, tracking_receive, send)
        finally:
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listener


def hangup_flag(request: Any) -> threading.Event | None:
    """The flag :class:`HangupSignal` put in this request's scope, if it is there."""
    scope = getattr(request, "scope", None) or {}
    return scope.get("state", {}).get(SCOPE_KEY)


async def _hung_up(flag: threading.Event) -> None:
    while not flag.is_set():
        await asyncio.sleep(POLL_S)


async def until_hangup(events: AsyncIterator[T], flag: threading.Event | None) -> AsyncIterator[T]:
    """``events`` as they come; on hang-up stop waiting and close ``events`` (cancelling its work)."""
    watcher = asyncio.create_task(_hung_up(flag)) if flag is not None else None
    try:
        while True:
            following = asyncio.ensure_future(anext(events))
            await asyncio.wait({following} | ({watcher} if watcher else set()), return_when=asyncio.FIRST_COMPLETED)
            if not following.done():  # the caller is gone
                following.cancel()
                await asyncio.gather(following, return_exceptions=True)
                return
            try:
                event = following.result()
            except StopAsyncIteration:
                return
            yield event
    finally:
        if watcher is not None:
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)
        await events.aclose()  # type: ignore[attr-defined]  # speak_answer is an async generator typed AsyncIterator
