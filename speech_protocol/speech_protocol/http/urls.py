"""A model server's two addresses, from the one URL a user types: the HTTP base and the session URL.

An ``http(s)://host[:port][/base]`` URL names the server: ``/invocations`` and ``/ping`` hang off the
base and the session is at ``base + SESSION_PATH``. A ``ws(s)://`` URL names the session itself: with
no path it is at :data:`SESSION_PATH`, with one it is taken as given (a proxy may put it anywhere).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from ..framing import SESSION_PATH

WS_SCHEMES = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}
_HTTP_SCHEMES = {"http": "http", "https": "https", "ws": "http", "wss": "https"}


class ServerUrlError(ValueError):
    """Not a model server URL; the message quotes it and names the accepted forms."""


@dataclass(frozen=True)
class ServerUrls:
    http_base: str  # no trailing slash: ``f"{http_base}/invocations"``
    session: str


def server_urls(url: str) -> ServerUrls:
    """Both addresses of the server at ``url`` (http://, https://, ws:// or wss://, with a host)."""
    parts = urlsplit(url.strip())
    if parts.scheme not in WS_SCHEMES or not parts.hostname:
        raise ServerUrlError(f"not a model server URL: {url[:100]!r} (give one like http://127.0.0.1:8080)")
    path = parts.path.rstrip("/")
    if parts.scheme in ("ws", "wss") and path:
        session_path, base = path, path.removesuffix(SESSION_PATH)
    else:
        session_path, base = path + SESSION_PATH, path
    ws_scheme, http_scheme = WS_SCHEMES[parts.scheme], _HTTP_SCHEMES[parts.scheme]
    return ServerUrls(
        http_base=urlunsplit((http_scheme, parts.netloc, base, "", "")),
        session=urlunsplit((ws_scheme, parts.netloc, session_path, parts.query, "")),
    )
