"""Tiny real model-server look-alikes on loopback sockets, each broken in one way the smoke must catch."""

from __future__ import annotations

import asyncio
import contextlib
import math
import struct
from collections.abc import Iterator

from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from kokoro_processes.servers import agent_server_thread
from speech_protocol.framing import SAMPLE_RATE, SESSION_PATH
from speech_protocol.server_events import Ready, encode_event

ONE_SECOND_OF_TONE = b"".join(
    struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * i / SAMPLE_RATE))) for i in range(SAMPLE_RATE)
)


async def ping(request) -> Response:
    return Response("{}", media_type="application/json")


async def invocations(request) -> Response:
    """A healthy /invocations, so only the session path is broken."""
    return Response(ONE_SECOND_OF_TONE, media_type=f"audio/pcm;rate={SAMPLE_RATE}")


async def text_frames_only(websocket: WebSocket) -> None:
    """The trap of 001-sagemaker-container-contract.md: a server that opens the session as it should
    (Ready) but reads with receive_text(), which raises KeyError('text') on the SDK's BINARY frames."""
    await websocket.accept()
    for frame in encode_event(Ready(session="broken", rtf=0.3)):
        await websocket.send_text(frame) if isinstance(frame, str) else await websocket.send_bytes(frame)
    while True:
        await websocket.receive_text()


async def answers_garbage(websocket: WebSocket) -> None:
    """Opens the session with a line that is not the protocol (where Ready belongs)."""
    await websocket.accept()
    await websocket.send_text("this is not json\n")
    await asyncio.sleep(5)


async def never_answers(websocket: WebSocket) -> None:
    await websocket.accept()
    await asyncio.sleep(30)


def app_with(session) -> Starlette:
    return Starlette(
        routes=[
            Route("/ping", ping),
            Route("/invocations", invocations, methods=["POST"]),
            WebSocketRoute(SESSION_PATH, session),
        ]
    )


@contextlib.contextmanager
def serving(app: Starlette) -> Iterator[str]:
    """Run ``app`` with uvicorn in a thread on a free loopback port; yields its base URL."""
    with agent_server_thread(app, graceful_s=1) as url:  # a silent session must not hold the shutdown
        yield url
