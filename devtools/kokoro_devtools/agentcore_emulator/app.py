"""The data plane's routes: ``InvokeAgentRuntime`` and ``StopRuntimeSession`` over HTTP/1.1, as botocore calls them.

Each request is checked in AgentCore's order (signature, ARN, runtime, session id, rate) and refused with the
service's error shape: the status code, an ``x-amzn-ErrorType`` header naming the error and ``{"message": ...}``,
which botocore turns into a ``ClientError`` with that code. An accepted invocation is forwarded to the runtime's
agent (``POST /invocations`` with the session header) and its answer streamed back as it comes; an agent that
refuses, cannot be reached or stays silent past the timeout is ``RuntimeClientError`` (424), and one that breaks
off mid-answer breaks the client's stream off too.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import re
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from urllib.parse import unquote

import httpx
from starlette.applications import Starlette
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import WebSocketException

from kokoro_devtools.agentcore_emulator.sigv4 import SignatureRefused, Signer

SESSION_HEADER = "X-Amzn-Bedrock-AgentCore-Runtime-Session-Id"
FORWARDED = ("content-type", "accept", "x-amzn-bedrock-agentcore-runtime-user-id")  # and ...-Custom-* headers
RUNTIME_ARN = re.compile(r"arn:aws[a-z-]*:bedrock-agentcore:(?P<region>[a-z0-9-]+):\d{12}:runtime/[A-Za-z0-9_-]{1,100}")
QUALIFIERS = (None, "DEFAULT")
MAX_PAYLOAD_BYTES = 100_000_000  # InvokeAgentRuntime's payload, per botocore's service model


class Refused(Exception):
    """A request answered with one of the service's errors."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message

    def response(self) -> Response:
        return JSONResponse({"message": self.message}, self.status, headers={"x-amzn-ErrorType": self.code})


@dataclass
class Settings:
    runtimes: dict[str, str]  # runtime ARN -> its agent's base URL
    signer: Signer
    region: str  # the endpoint's, as bedrock-agentcore.<region>.amazonaws.com: what a signature is scoped to
    max_per_s: float | None = None  # a runtime's sustained invocations per second (a token bucket) before throttling
    timeout_s: float = 900.0  # AgentCore's request timeout: 15 minutes
    now: Callable[[], datetime.datetime] = lambda: datetime.datetime.now(datetime.UTC)
    buckets: dict[str, tuple[float, float]] = field(default_factory=dict)  # runtime -> (tokens, monotonic time)
    stopped: dict[str, asyncio.Event] = field(default_factory=dict)  # session id -> set once stopped


def client_url(connection: HTTPConnection) -> str:
    """The URL as the client signed it: its Host header and the path exactly as sent (still percent-encoded)."""
    raw_path = connection.scope["raw_path"].decode("latin-1")
    query = connection.scope["query_string"].decode("latin-1")
    return f"{connection.url.scheme}://{connection.headers.get('host', '')}{raw_path}" + (f"?{query}" if query else "")


async def checked(settings: Settings, request: Request) -> tuple[str, str, bytes]:
    """(runtime ARN, session id, body) of a request that passes every check; :class:`Refused` otherwise."""
    body = await payload_of(request)
    try:
        settings.signer.verify(
            request.method, client_url(request), request.headers, body, settings.region, settings.now()
        )
    except SignatureRefused as err:
        raise Refused(403, "AccessDeniedException", str(err)) from None
    return runtime_of(settings, request), session_of(request.headers.get(SESSION_HEADER, "")), body


async def payload_of(request: Request) -> bytes:
    """The body, refused before it is read whole once it is (or says it will be) over the service's limit."""
    too_large = Refused(400, "ValidationException", f"the payload is larger than {MAX_PAYLOAD_BYTES:,} bytes")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_PAYLOAD_BYTES:
        raise too_large
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_PAYLOAD_BYTES:
            raise too_large
    return bytes(body)


def runtime_of(settings: Settings, connection: HTTPConnection) -> str:
    """The runtime ARN the path names, once it is one this endpoint serves (the qualifier DEFAULT, or none)."""
    arn = unquote(connection.path_params["arn"])
    if RUNTIME_ARN.fullmatch(arn) is None:
        raise Refused(400, "ValidationException", f"agentRuntimeArn is not a runtime ARN: {arn[:200]!r}")
    if arn not in settings.runtimes or connection.query_params.get("qualifier") not in QUALIFIERS:
        raise Refused(404, "ResourceNotFoundException", f"no runtime {arn} (qualifier DEFAULT) here")
    return arn


def session_of(session: str) -> str:
    if not 33 <= len(session) <= 256:
        raise Refused(400, "ValidationException", f"{SESSION_HEADER} must be 33 to 256 characters long")
    return session


def admit(settings: Settings, arn: str) -> None:
    """ThrottlingException past the runtime's rate: a token bucket that holds ``max(1, max_per_s)`` invocations
    and refills at ``max_per_s`` (so a rate of 0.001 admits one, then refuses for 1,000 s)."""
    if settings.max_per_s is None:
        return
    burst, now = max(1.0, settings.max_per_s), time.monotonic()
    tokens, then = settings.buckets.get(arn, (burst, now))
    tokens = min(burst, tokens + (now - then) * settings.max_per_s)
    if tokens < 1.0:
        settings.buckets[arn] = (tokens, now)
        raise Refused(429, "ThrottlingException", "Rate exceeded")
    settings.buckets[arn] = (tokens - 1.0, now)


async def invoke(settings: Settings, client: httpx.AsyncClient, request: Request) -> Response:
    try:
        arn, session, body = await checked(settings, request)
        admit(settings, arn)
    except Refused as err:
        return err.response()
    headers = {name: value for name, value in request.headers.items() if name in FORWARDED}
    headers |= {k: v for k, v in request.headers.items() if k.startswith("x-amzn-bedrock-agentcore-runtime-custom-")}
    headers[SESSION_HEADER] = session
    stopped = settings.stopped.setdefault(session, asyncio.Event())
    stopped.clear()  # a stopped session's id starts a new session
    upstream = client.build_request("POST", f"{settings.runtimes[arn]}/invocations", headers=headers, content=body)
    try:
        reply = await client.send(upstream, stream=True)
    except httpx.HTTPError as err:
        return Refused(
            424, "RuntimeClientError", f"the runtime's agent did not answer: {type(err).__name__}"
        ).response()
    if reply.status_code >= 400:
        detail = (await reply.aread())[:500].decode("utf-8", errors="replace")
        await reply.aclose()
        return Refused(424, "RuntimeClientError", f"the agent answered HTTP {reply.status_code}: {detail}").response()

    async def stream() -> AsyncIterator[bytes]:
        """The agent's bytes until it ends, or until StopRuntimeSession stops the session (even mid-silence)."""
        chunks = reply.aiter_raw()
        stop = asyncio.ensure_future(stopped.wait())
        try:
            while True:
                chunk = asyncio.ensure_future(anext(chunks))
                await asyncio.wait((chunk, stop), return_when=asyncio.FIRST_COMPLETED)
                if stop.done():
                    chunk.cancel()
                    return
                try:
                    yield chunk.result()
                except StopAsyncIteration:
                    return
        finally:
            stop.cancel()
            await reply.aclose()

    media_type = reply.headers.get("content-type", "application/octet-stream")
    return StreamingResponse(stream(), media_type=media_type, headers={SESSION_HEADER: session})


async def stop_session(settings: Settings, request: Request) -> Response:
    try:
        _, session, _ = await checked(settings, request)
    except Refused as err:
        return err.response()
    if session not in settings.stopped:
        return Refused(404, "ResourceNotFoundException", f"no session {session} on this runtime").response()
    settings.stopped[session].set()
    return JSONResponse({}, headers={SESSION_HEADER: session})


def checked_websocket(settings: Settings, websocket: WebSocket) -> tuple[str, str]:
    """(runtime ARN, session id) of a WebSocket upgrade that passes every check, signed either way AgentCore
    accepts: SigV4 headers (a GET on the URL's https form) or a presigned URL; :class:`Refused` otherwise."""
    url = client_url(websocket)
    try:
        if "authorization" in websocket.headers:
            settings.signer.verify("GET", url, websocket.headers, b"", settings.region, settings.now())
        else:
            settings.signer.verify_presigned(url, websocket.headers.get("host", ""), settings.region, settings.now())
    except SignatureRefused as err:
        raise Refused(403, "AccessDeniedException", str(err)) from None
    arn = runtime_of(settings, websocket)
    session = websocket.headers.get(SESSION_HEADER) or websocket.query_params.get(SESSION_HEADER, "")
    return arn, session_of(session)


async def relay(settings: Settings, websocket: WebSocket) -> None:
    """The runtime's ``/ws``: a checked upgrade is carried to the agent's ``/ws`` (the session id as a header, no
    browser headers: AgentCore forwards only its own), frame by frame both ways, until either side closes or the
    session is stopped; the agent's close code reaches the client."""
    try:
        arn, session = checked_websocket(settings, websocket)
    except Refused as err:
        await websocket.send_denial_response(err.response())
        return
    agent = settings.runtimes[arn].replace("http", "ws", 1) + "/ws"
    try:
        upstream = await ws_connect(agent, additional_headers={SESSION_HEADER: session}, open_timeout=10, proxy=None)
    except (OSError, TimeoutError, WebSocketException) as err:
        refusal = Refused(424, "RuntimeClientError", f"the runtime's agent refused its WebSocket: {type(err).__name__}")
        await websocket.send_denial_response(refusal.response())
        return
    stopped = settings.stopped.setdefault(session, asyncio.Event())
    stopped.clear()
    await websocket.accept()

    async def to_client() -> None:
        async for message in upstream:
            if isinstance(message, bytes):
                await websocket.send_bytes(message)
            else:
                await websocket.send_text(message)

    async def to_agent() -> None:
        while (message := await websocket.receive())["type"] != "websocket.disconnect":
            if message.get("bytes") is not None:
                await upstream.send(message["bytes"])
            elif message.get("text") is not None:
                await upstream.send(message["text"])

    tasks = [asyncio.ensure_future(job) for job in (to_client(), to_agent(), stopped.wait())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await upstream.close()
        with contextlib.suppress(RuntimeError):  # the client may have gone already
            await websocket.close(upstream.close_code or 1000)


def create_app(settings: Settings) -> Starlette:
    client = httpx.AsyncClient(timeout=httpx.Timeout(settings.timeout_s, connect=10.0))

    async def invocations(request: Request) -> Response:
        return await invoke(settings, client, request)

    async def stopruntimesession(request: Request) -> Response:
        return await stop_session(settings, request)

    async def ws(websocket: WebSocket) -> None:
        await relay(settings, websocket)

    return Starlette(
        routes=[
            Route("/runtimes/{arn:path}/invocations", invocations, methods=["POST"]),
            Route("/runtimes/{arn:path}/stopruntimesession", stopruntimesession, methods=["POST"]),
            WebSocketRoute("/runtimes/{arn:path}/ws", ws),
        ],
        lifespan=lambda app: closing(client),
    )


@contextlib.asynccontextmanager
async def closing(client: httpx.AsyncClient) -> AsyncIterator[None]:
    try:
        yield
    finally:
        await client.aclose()
