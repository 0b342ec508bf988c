"""What a model server's ``GET /ping`` says of itself, as one type: its state (200 ``ready``; 503 ``loading``, or
``failed`` once its model failed to load), and once ready its engine, its listeners against its capacity, its
running real-time factor, its number of renders, how many of them shared a batched pass and how many were
stopped for a more pressing listener or because no one would hear them, and its G2P workers.

The server encodes a :class:`ServerStatus`; every reader (the launchers, the CLIs, the benchmark, the tests)
decodes one with :func:`decode` or reads one with :func:`read_status`, instead of reading keys of a dict.
Decoding keeps only the fields it knows, so a server that adds one does not break an older reader (as the
session's events do: docs/protocol.md, "Adding to the protocol"). Standard library only.
"""

from __future__ import annotations

import json
import urllib.error
from dataclasses import asdict, dataclass, fields

from speech_protocol.http.readiness import PING_TIMEOUT_S, direct_opener

READY, LOADING, FAILED = "ready", "loading", "failed"
STATES = (READY, LOADING, FAILED)
_COUNTS = (
    "listeners",
    "capacity",
    "renders",
    "batched",
    "preempted",
    "stopped",
    "g2p_workers",
    "g2p_replaced",
    "g2p_slices",
)


class StatusError(ValueError):
    """A ``/ping`` body that is not a server status; the message says what is wrong with it."""


@dataclass(frozen=True)
class ServerStatus:
    status: str  # READY, LOADING or FAILED; only a ready server has the fields below
    engine: str | None = None  # "onnx" or "torch"
    listeners: int | None = None  # sessions and requests being served now
    capacity: int | None = None  # how many it admits at once
    rtf: float | None = None  # synthesis seconds per second of audio over the recent renders; None before any
    renders: int | None = None  # renders the running pace has counted since start
    batched: int | None = None  # of those, the ones rendered in one model pass with others (--max-batch)
    preempted: int | None = None  # renders stopped part-way for a more pressing listener, then run again
    stopped: int | None = None  # renders a cancel stopped (an interrupt, a hang-up): no one would hear them
    g2p_workers: int | None = None
    g2p_replaced: int | None = None  # G2P workers replaced after they died
    g2p_slices: int | None = None  # text slices the G2P workers have read

    @property
    def ready(self) -> bool:
        return self.status == READY

    def encode(self) -> dict[str, object]:
        """The JSON body: a ready server's every field (``rtf`` null until measured), another's ``status`` only."""
        return asdict(self) if self.ready else {"status": self.status}


def decode(body: object) -> ServerStatus:
    """The status in a decoded ``/ping`` body; :class:`StatusError` when it is not one."""
    if not isinstance(body, dict):
        raise StatusError(f"a server status is a JSON object, got {type(body).__name__}")
    status = body.get("status")
    if status not in STATES:
        raise StatusError(f"status must be one of {', '.join(STATES)}, got {status!r}")
    known = {field.name for field in fields(ServerStatus)}
    values = {name: value for name, value in body.items() if name in known}
    for name in _COUNTS:
        value = values.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise StatusError(f"{name} must be a count, got {value!r}")
    rtf, engine = values.get("rtf"), values.get("engine")
    if rtf is not None and (isinstance(rtf, bool) or not isinstance(rtf, (int, float)) or rtf < 0):
        raise StatusError(f"rtf must be a non-negative number, got {rtf!r}")
    if engine is not None and not isinstance(engine, str):
        raise StatusError(f"engine must be a string, got {engine!r}")
    return ServerStatus(**values)


def read_status(base_url: str, timeout_s: float = PING_TIMEOUT_S) -> ServerStatus | None:
    """``GET {base_url}/ping``, decoded: None when nothing answers there, :class:`StatusError` when what answers
    is no model server (another service's page, a body that is not a status)."""
    url = f"{base_url.rstrip('/')}/ping"
    try:
        with direct_opener().open(url, timeout=timeout_s) as reply:
            body = reply.read()
    except urllib.error.HTTPError as err:
        body = err.read()
    except (urllib.error.URLError, OSError):
        return None
    try:
        return decode(json.loads(body))
    except ValueError as err:  # StatusError, or not JSON at all
        raise StatusError(f"{url} answered no server status: {err}") from None


__all__ = ["FAILED", "LOADING", "READY", "STATES", "ServerStatus", "StatusError", "decode", "read_status"]
