"""The SageMaker container contract as a Starlette app: /ping, /invocations and the session route."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable
from typing import TypeVar

from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from kokoro_server.admission import ServerBusy
from kokoro_server.assets import ModelAssets
from kokoro_server.audio import streaming_wav_header, to_pcm16
from kokoro_server.errors import RequestError, http_error_body, session_error
from kokoro_server.g2p_pool import G2PFailed
from kokoro_server.openai_api.routes import openai_routes
from kokoro_server.runtime import NotReady, SpeechRuntime
from kokoro_server.scheduler import PlaybackClock
from kokoro_server.settings import ServerSettings
from kokoro_server.synthesis_session import SynthesisSession
from speech_protocol.browser_access import BrowserGuard
from speech_protocol.messages import (
    MAX_FRAME_BYTES,
    SAMPLE_RATE,
    SESSION_PATH,
    ProtocolError,
    declares_json,
    encode_event,
    loads,
    validate_normalize,
    validate_synthesis_fields,
)

T = TypeVar("T")
MAX_BODY_BYTES = MAX_FRAME_BYTES  # one request is one utterance: the bound of one session frame
MEDIA_TYPES = {"wav": "audio/wav", "pcm": f"audio/pcm;rate={SAMPLE_RATE};encoding=signed-int;bits=16"}


def _runtime(scope_owner: Request | WebSocket) -> SpeechRuntime:
    return scope_owner.app.state.runtime


async def ping(request: Request) -> Response:
    runtime = _runtime(request)
    if runtime.ready:  # a busy server is healthy too: SageMaker must not replace it
        return JSONResponse(
            {
                "status": "ready",
                "engine": runtime.settings.engine,
                **runtime.admission.snapshot(),
                **runtime.g2p_status(),
            }
        )
    state = "failed" if runtime.load_error else "loading"
    return JSONResponse({"status": state}, status_code=503)


async def _read_json(request: Request) -> dict:
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


async def _unless_hung_up(request: Request, work: Awaitable[T]) -> T | None:
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


async def invocations(request: Request) -> Response:
    """One complete text in, its audio streamed out chunk by chunk as each is synthesized."""
    runtime = _runtime(request)
    try:
        payload = await _read_json(request)
        text, voice, speed = validate_synthesis_fields(payload)
        normalize = validate_normalize(payload)
        fmt = payload.get("format", "wav")
        if not isinstance(fmt, str) or fmt not in MEDIA_TYPES:
            raise RequestError(400, "bad_format", "format must be 'wav' or 'pcm'")
        clock = PlaybackClock()
        chunks = await _unless_hung_up(request, runtime.plan(text, voice, speed, clock, normalize=normalize))
        if chunks is None:
            return Response(status_code=499)  # nobody is listening; the status only reaches the log
        ticket = runtime.admission.admit()  # last: a request refused for its content holds no share
    except (RequestError, ProtocolError, NotReady, ServerBusy, G2PFailed, ValueError) as exc:
        status, body, headers = http_error_body(exc)
        return JSONResponse(body, status_code=status, headers=headers)

    async def audio() -> AsyncIterator[bytes]:
        try:
            if fmt == "wav":
                yield streaming_wav_header()
            for chunk in chunks:
                pcm = (await runtime.render(chunk, clock)).audio
                clock.played(len(pcm) / SAMPLE_RATE)
                yield to_pcm16(pcm)
        finally:
            ticket.release()

    # The background task releases the share too when the client left before the first byte.
    return StreamingResponse(audio(), media_type=MEDIA_TYPES[fmt], background=BackgroundTask(ticket.release))


async def _refuse(websocket: WebSocket, error: Exception) -> None:
    """Accept the socket only to send the error event, then close it with 1013 (try again later)."""
    await websocket.accept()
    for frame in encode_event(session_error(error)):
        if isinstance(frame, bytes):
            await websocket.send_bytes(frame)
        else:
            await websocket.send_text(frame)
    await websocket.close(code=1013)


async def session(websocket: WebSocket) -> None:
    runtime = _runtime(websocket)
    if not runtime.ready:
        await _refuse(websocket, NotReady("model is loading"))
        return
    try:
        ticket = runtime.admission.admit()
    except ServerBusy as busy:
        await _refuse(websocket, busy)
        return
    try:
        await SynthesisSession(websocket, runtime).run()
    finally:
        ticket.release()


def create_app(settings: ServerSettings, assets: ModelAssets) -> Starlette:
    """The ASGI app; the model loads in the background of its lifespan while the socket is already up."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        runtime = SpeechRuntime(settings, assets)
        app.state.runtime = runtime
        loading = asyncio.create_task(runtime.load())
        try:
            yield
        finally:
            loading.cancel()
            runtime.close()

    return Starlette(
        routes=[
            Route("/ping", ping, methods=["GET"]),
            Route("/invocations", invocations, methods=["POST"]),
            WebSocketRoute(SESSION_PATH, session),
            *openai_routes(_read_json, _unless_hung_up),  # self-hosting only: SageMaker routes /invocations alone
        ],
        lifespan=lifespan,
        middleware=[Middleware(BrowserGuard, access=settings.access)],  # 100-browser-reachable-servers.md
    )
