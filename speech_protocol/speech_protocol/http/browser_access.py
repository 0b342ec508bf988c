"""Which pages and names may reach a server a browser sits beside: the ``Host`` and ``Origin`` allow-lists.

A server on 127.0.0.1 is reachable from every web page the user opens: a page may open a WebSocket to it
(browsers apply no CORS to WebSockets), send it a "simple" cross-site POST, or rebind its own DNS name to
127.0.0.1 and then read the answers as same-origin. :class:`BrowserGuard` refuses, before any work:

- a ``Host`` that is not one of the server's names (421 ``unknown_host``): a rebound page still says its
  own name, so this stops DNS rebinding;
- an ``Origin`` not on the list, on a WebSocket handshake or on any request but GET and HEAD (403
  ``origin_not_allowed``): browsers send ``Origin`` on all of those, programs usually send none, and a
  request without ``Origin`` passes.

``None`` for either list means no check: what a server bound to all interfaces (SageMaker, AgentCore,
which authenticate every call themselves) keeps by default. The servers build their lists from their
settings with :func:`server_hosts` (docs/decisions/100-browser-reachable-servers.md). Pure ASGI and
standard library only, so the model image, the agent's bundle and the CLI's page server share it.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import re
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
ANY = "*"  # in a list of hosts or origins: no check at all
# What a browser sends without asking first carries an Origin on every method but these.
_UNCHECKED_METHODS = frozenset({"GET", "HEAD"})
_HOST = re.compile(r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9_.-]+))(?::(?P<port>[0-9]{1,5}))?")
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*")
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


class AccessListError(ValueError):
    """A host name or origin given in the settings is malformed; the message quotes it."""


def _host_name(header: str) -> str | None:
    """The name of a ``Host`` header (``name``, ``name:port``, ``[v6]:port``), lower case; None if malformed."""
    match = _HOST.fullmatch(header.strip())
    if match is None:
        return None
    if match["v6"] is not None:
        try:
            return str(ipaddress.IPv6Address(match["v6"]))
        except ValueError:
            return None
    return match["name"].lower().rstrip(".")


def host_name(value: str) -> str:
    """A host name or address as given in settings (``myhost.lan``, ``10.0.0.5``, ``::1``, ``[::1]``),
    normalized as :class:`BrowserGuard` compares it; a port is refused (any port of a name is accepted)."""
    text = value.strip()
    with contextlib.suppress(ValueError):
        return str(ipaddress.ip_address(text.removeprefix("[").removesuffix("]")))
    match = _HOST.fullmatch(text)
    if match is None or match["name"] is None or match["port"] is not None or not match["name"].strip("."):
        raise AccessListError(f"not a host name or address (without a port): {value[:100]!r}")
    return match["name"].lower().rstrip(".")


def origin(value: str) -> str:
    """An origin, ``scheme://host[:port]`` as a browser sends it, normalized (a default port dropped)."""
    text = value.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        parts, port = None, None
    if (
        parts is None
        or not _SCHEME.fullmatch(parts.scheme)
        or not parts.hostname
        or parts.username is not None
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
    ):
        raise AccessListError(f"not an origin such as http://127.0.0.1:8000: {value[:100]!r}")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname.rstrip(".")
    shown_port = "" if port is None or port == _DEFAULT_PORTS.get(parts.scheme) else f":{port}"
    return f"{parts.scheme}://{host}{shown_port}"


def access_list(values: Iterable[str], normalize: Callable[[str], str]) -> frozenset[str] | None:
    """Values from options or settings (each may hold several, split by commas or spaces), normalized;
    ``None`` when one of them is ``*``."""
    items = [item for value in values for item in re.split(r"[\s,]+", value) if item]
    if ANY in items:
        return None
    return frozenset(normalize(item) for item in items)


def is_loopback(bound_host: str) -> bool:
    """Whether a server bound to ``bound_host`` can only be reached from this machine."""
    try:
        name = host_name(bound_host)
    except AccessListError:
        return False
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(name).is_loopback
    return name == "localhost"


def server_hosts(bound_host: str, extra: frozenset[str] | None) -> frozenset[str] | None:
    """The ``Host`` names a server answers to: bound to loopback, or given ``extra`` names, the loopback
    names, its own address and ``extra``; bound to all interfaces with none given (behind SageMaker or
    AgentCore, whose Host is theirs to choose), or ``extra`` None (``*`` given): any."""
    if extra is None or not (extra or is_loopback(bound_host)):
        return None
    own = host_name(bound_host)
    with contextlib.suppress(ValueError):
        if ipaddress.ip_address(own).is_unspecified:  # 0.0.0.0 or ::: no request names it
            return LOOPBACK_NAMES | extra
    return LOOPBACK_NAMES | {own} | extra


@dataclass(frozen=True)
class BrowserAccess:
    """The two allow-lists, normalized (:func:`host_name`, :func:`origin`); ``None`` = no check."""

    hosts: frozenset[str] | None = None
    origins: frozenset[str] | None = None

    @property
    def checks_anything(self) -> bool:
        return self.hosts is not None or self.origins is not None

    def refusal(self, method: str | None, host: str | None, sent_origin: str | None) -> tuple[int, str, str] | None:
        """(status, code, message) for a request to refuse, else None; ``method`` None is a WebSocket."""
        if self.hosts is not None and (host is None or _host_name(host) not in self.hosts):
            shown = "no Host header" if host is None else f"Host {host[:100]!r}"
            return 421, "unknown_host", f"{shown}: not a name of this server (allow a name with --allow-host)"
        if self.origins is None or sent_origin is None or method in _UNCHECKED_METHODS:
            return None
        try:
            allowed = origin(sent_origin) in self.origins
        except AccessListError:
            allowed = False
        if allowed:
            return None
        page = sent_origin[:100]
        return (
            403,
            "origin_not_allowed",
            f"requests from the page at {page!r} are not accepted (allow it with --allow-origin)",
        )


class BrowserGuard:
    """Pure ASGI middleware: refuses a request :class:`BrowserAccess` refuses, before the app sees it."""

    def __init__(self, app: ASGIApp, access: BrowserAccess):
        self.app = app
        self.access = access

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and self.access.checks_anything:
            headers: dict[str, str] = {}
            for key, value in scope["headers"]:  # the first of a repeated header, as Starlette reads it
                headers.setdefault(key.decode("latin-1"), value.decode("latin-1"))
            method = scope.get("method") if scope["type"] == "http" else None
            refused = self.access.refusal(method, headers.get("host"), headers.get("origin"))
            if refused is not None:
                await refuse(send, *refused, scope=scope)
                return
        await self.app(scope, receive, send)


async def refuse(send: Send, status: int, code: str, message: str, scope: Scope | None = None) -> None:
    """A typed HTTP error, ``{"error": {"code", "message"}}``, before any work; a WebSocket handshake gets
    it as the denial response where the server supports one (else a plain 403)."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    prefix = ""
    if scope is not None and scope["type"] == "websocket":
        if "websocket.http.response" not in scope.get("extensions", {}):
            await send({"type": "websocket.close", "code": 1008})
            return
        prefix = "websocket."
    await send({"type": f"{prefix}http.response.start", "status": status, "headers": headers})
    await send({"type": f"{prefix}http.response.body", "body": body})


__all__ = [
    "ANY",
    "LOOPBACK_NAMES",
    "AccessListError",
    "BrowserAccess",
    "BrowserGuard",
    "access_list",
    "host_name",
    "is_loopback",
    "origin",
    "refuse",
    "server_hosts",
]
