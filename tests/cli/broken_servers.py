"""Tiny real model-server look-alikes on loopback sockets, each broken in one way the smoke must catch."""

from __future__ import annotations

import asyncio
import contextlib
import math
import struct
import threading
import time
from collections.abc import Iterator

import uvicorn
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from servers import free_port
from speech_protocol.messages import SESSION_PATH

ONE_SECOND_OF_TONE = b"".join(
    struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * i / 24000))) for i in range(24000)
)


async def ping(request) -> Response:
    return Response("{}", media_type="application/json")


async def invocations(request) -> Response:
    """A healthy /invocations, so only the session path is broken."""
    return Response(ONE_SECOND_OF_TONE, media_type="audio/pcm;rate=24000")


async def text_frames_only(websocket: WebSocket) -> None:
    """The trap of 001-sagemaker-container-contract.md: receive_text() raises KeyError('text') on the
    SDK's BINARY frames."""
    await websocket.accept()
    while True:
        await websocket.receive_text()


async def answers_garbage(websocket: WebSocket) -> None:
    await websocket.accept()
    await websocket.receive()
    await websocket.send_text("this is not json\n")
    await asyncio.sleep(5)


async def never_answers(websocket: WebSocket) -> None:
    await websocket.accept()
    await asyncio.sleep(30)


def app_with(session) -> Starlette:
    return Starlette(routes=[
        Route("/ping", ping), Route("/invocations", invocations, methods=["POST"]),
        WebSocketRoute(SESSION_PATH, session),
    ])


@contextlib.contextmanager
def serving(app: Starlette) -> Iterator[str]:
    """Run ``app`` with uvicorn in a thread on a free loopback port; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="critical", timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
