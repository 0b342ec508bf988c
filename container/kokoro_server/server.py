"""The SageMaker container contract as a Starlette app: /ping, /invocations and the session route."""

from __future__ import annotations

import asyncio
import contextlib

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from kokoro_server.admission import ServerBusy
from kokoro_server.assets import ModelAssets
from kokoro_server.encoders import MEDIA_TYPES, encoded, open_encoder
from kokoro_server.errors import RequestError, http_error_body, session_error
from kokoro_server.front_door import admit, spoken_audio, streamed
from kokoro_server.http_requests import read_json, runtime_of
from kokoro_server.openai_api.routes import OPENAI_ROUTES
from kokoro_server.runtime import NotReady, SpeechRuntime
from kokoro_server.settings import ServerSettings
from kokoro_server.synthesis_session import SynthesisSession, send_event
from speech_protocol.client_messages import parse_synthesize
from speech_protocol.framing import SESSION_PATH
from speech_protocol.http.browser_access import BrowserGuard
from speech_protocol.http.server_status import FAILED, LOADING, READY, ServerStatus

INVOCATION_FORMATS = ("wav", "pcm")  # the model server's own streamed WAV and raw PCM16


async def ping(request: Request) -> Response:
    runtime = runtime_of(request)
    if runtime.ready:  # a busy server is healthy too: SageMaker must not replace it
        counts = {
            **runtime.admission.snapshot(),
            "batched": runtime.batched,
            "preempted": runtime.scheduler.preempted,
            "stopped": runtime.scheduler.stopped,
            **runtime.g2p_status(),
        }
        ready = ServerStatus(READY, runtime.settings.engine, **counts)
        return JSONResponse(ready.encode())
    return JSONResponse(ServerStatus(FAILED if runtime.load_error else LOADING).encode(), status_code=503)


async def invocations(request: Request) -> Response:
    """One complete text in, its audio streamed out chunk by chunk as each is synthesized."""
    try:
        payload = await read_json(request)
        synthesize = parse_synthesize(payload)
        fmt = payload.get("format", "wav")
        if not isinstance(fmt, str) or fmt not in INVOCATION_FORMATS:
            raise RequestError(400, "bad_format", "format must be 'wav' or 'pcm'")
        admitted = await admit(request, synthesize)
        if admitted is None:
            return Response(status_code=499)  # nobody is listening; the status only reaches the log
    except Exception as exc:  # every refusal, and a fault before any audio, as a JSON error
        status, body, headers = http_error_body(exc)
        return JSONResponse(body, status_code=status, headers=headers)
    encoder = open_encoder(fmt)
    audio = encoded(spoken_audio(request, admitted), encoder)
    return streamed(admitted, encoder, audio, MEDIA_TYPES[fmt])


async def _refuse(websocket: WebSocket, error: Exception) -> None:
    """Accept the socket only to send the error event, then close it with 1013 (try again later)."""
    await websocket.accept()
    await send_event(websocket, session_error(error))
    await websocket.close(code=1013)


async def session(websocket: WebSocket) -> None:
    runtime = runtime_of(websocket)
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
            *OPENAI_ROUTES,  # self-hosting only: SageMaker routes /invocations alone
        ],
        lifespan=lifespan,
        middleware=[Middleware(BrowserGuard, access=settings.access)],  # 100-browser-reachable-servers.md
    )
