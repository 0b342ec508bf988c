"""The conversation page's server: one static page (no build step) and where its socket should connect.

The page asks ``GET /connect?session=ID`` for a WebSocket URL each time it (re)connects: a local agent's
``/ws`` when run by ``deploy-agent local --web``, or a freshly SigV4-presigned URL of a deployed runtime
(valid 300 s, so never baked into the page) for ``deploy-agent web``. The session id travels as AgentCore's
session parameter either way, so a reload continues the same conversation. The page may load nothing from
anywhere else (its Content-Security-Policy says so).

``/connect`` hands out a URL signed with the user's credentials, so it answers only the page this run
printed: the URL carries a random per-run token, which the page keeps for its tab and sends with every
``/connect`` (a notebook server's defence); the server answers only its loopback names, so a page whose
DNS name is rebound to 127.0.0.1 is refused too (docs/decisions/102-page-token.md).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from speech_protocol.http.browser_access import LOOPBACK_NAMES, BrowserAccess, BrowserGuard
from voice_agent.conversation.messages import SESSION_ID_HEADER

PAGE_DIR = Path(__file__).with_name("web")
# AgentCore runtime session ids are 33 to 256 characters; the page sends a UUID (36).
_SESSION = re.compile(r"[A-Za-z0-9_-]{33,256}")
_CSP = "default-src 'self'; connect-src 'self' ws: wss:; style-src 'self' 'unsafe-inline'; media-src 'self' blob:"

ConnectUrl = Callable[[str], str]  # session id -> ws:// or wss:// URL of the agent's /ws


class Presigner(Protocol):
    """The one method of bedrock-agentcore's ``AgentCoreRuntimeClient`` that the page needs."""

    def generate_presigned_url(self, runtime_arn: str, session_id: str | None = None) -> str: ...


def local_connect_url(agent_url: str) -> ConnectUrl:
    """A local agent (``http://127.0.0.1:PORT``): its /ws, naming the session as a presigned URL does."""
    base = agent_url.replace("http://", "ws://", 1).replace("https://", "wss://", 1).rstrip("/")
    return lambda session: f"{base}/ws?{urlencode({SESSION_ID_HEADER: session})}"


def runtime_connect_url(presigner: Presigner, runtime_arn: str) -> ConnectUrl:
    """A deployed runtime: ``AgentCoreRuntimeClient.generate_presigned_url`` for every connection."""
    return lambda session: presigner.generate_presigned_url(runtime_arn, session_id=session)


def _static(name: str, media_type: str) -> Callable[[Request], Awaitable[Response]]:
    async def serve(_: Request) -> Response:
        return FileResponse(PAGE_DIR / name, media_type=media_type, headers={"Content-Security-Policy": _CSP})

    return serve


def page_origins(port: int) -> frozenset[str]:
    """The origins a browser gives the page served on 127.0.0.1:``port``, by address or by name."""
    return frozenset({f"http://127.0.0.1:{port}", f"http://localhost:{port}"})


def new_token() -> str:
    return secrets.token_urlsafe(24)


def error_response(status: int, code: str, message: str) -> Response:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def page_app(connect_url: ConnectUrl, token: str, hosts: frozenset[str] | None = LOOPBACK_NAMES) -> Starlette:
    """The page's server; ``/connect`` answers requests that carry ``token``; ``hosts``: the names it
    answers to (``None``: any)."""
    expected = token.encode()

    async def connect(request: Request) -> Response:
        given = request.query_params.get("token", "").encode()
        if not secrets.compare_digest(given, expected):
            return error_response(
                403, "bad_token", "this page was not opened from the URL the command printed: open that URL (?token=)"
            )
        session = request.query_params.get("session", "")
        if not _SESSION.fullmatch(session):
            return error_response(
                400, "bad_session", "session must be 33-256 letters, digits, '-' or '_' (reload the page for a new one)"
            )
        try:
            url = connect_url(session)
        except Exception as err:  # no credentials, expired profile: the page shows this line
            return error_response(502, "connect_failed", f"{type(err).__name__}: {err}")
        return JSONResponse({"url": url})

    return Starlette(
        routes=[
            Route("/", _static("index.html", "text/html")),
            Route("/conversation.js", _static("conversation.js", "text/javascript")),
            Route("/connect", connect),
        ],
        middleware=[Middleware(BrowserGuard, access=BrowserAccess(hosts=hosts))],
    )


__all__ = [
    "PAGE_DIR",
    "ConnectUrl",
    "local_connect_url",
    "new_token",
    "page_app",
    "page_origins",
    "runtime_connect_url",
]
