"""Whether a model server is ready: ``GET /ping`` answers 200 once the model is loaded and warm (503 before),
as SageMaker's container contract asks. One check and one wait, for every client that starts or is handed
a server (the local launcher, the benchmark, the tests).

Standard library only, like the rest of the contract; loopback and named servers are reached directly,
never through an HTTP proxy from the environment.
"""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from collections.abc import Callable

POLL_S = 0.25  # between two pings while a server loads (its load takes seconds to minutes)
PING_TIMEOUT_S = 2.0  # one ping; a warm server answers in milliseconds

_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def direct_opener() -> urllib.request.OpenerDirector:
    """An opener that reaches servers directly, never through a proxy from the environment."""
    return _DIRECT


class ServerGone(RuntimeError):
    """The server stopped (its process exited) before it became ready."""


class ServerNotReady(TimeoutError):
    """The server did not become ready in the time given."""


def status(url: str, timeout_s: float = PING_TIMEOUT_S) -> int | None:
    """The HTTP status ``url`` answers (a server's ``/ping``, or any URL a test waits on); None when nothing
    answers there."""
    try:
        with _DIRECT.open(url, timeout=timeout_s) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as err:
        return int(err.code)
    except (urllib.error.URLError, OSError):
        return None


def wait_ready(url: str, *, timeout_s: float, alive: Callable[[], bool] = lambda: True) -> None:
    """Return once ``url`` answers 200; raise :class:`ServerGone` as soon as ``alive()`` says the server has
    stopped, :class:`ServerNotReady` after ``timeout_s`` seconds."""
    deadline = time.monotonic() + timeout_s
    while status(url) != 200:
        if not alive():
            raise ServerGone(f"the server stopped before {url} answered 200")
        if time.monotonic() > deadline:
            raise ServerNotReady(f"{url} did not answer 200 within {timeout_s:g} s")
        time.sleep(POLL_S)


__all__ = ["ServerGone", "ServerNotReady", "direct_opener", "status", "wait_ready"]
