"""Admission control: take a new listener only while the server can keep every listener fed.

A listener consumes one second of audio per second of playback. The server produces ``workers / rtf``
seconds of audio per second, where ``rtf`` is the real-time factor it keeps measuring on its own renders
(:class:`speech_protocol.pace.PaceMeter`; the warm-up's figure until real traffic arrives). So it can carry about ``workers / rtf`` listeners; the
benchmark showed what happens past that on a 2-core CPU: every session accepted, every listener stalling
(16.9 s at 4 sessions, 57.5 s at 8; docs/decisions/080-admission-control.md). Instead, a session (or an
``/invocations`` request) holds one listener's share while it is open, and one that would take the load
past ``HEADROOM`` of the capacity is refused with a retry hint: the WebSocket gets ``server_busy`` and
close code 1013, HTTP gets 503 with ``Retry-After``. ``/ping`` stays 200: a busy server is healthy.

``max_sessions`` (``--max-sessions``) replaces the measured limit with a fixed one.
"""

from __future__ import annotations

import math

from kokoro_server.refusals import Refusal
from speech_protocol.errors import SERVER_BUSY
from speech_protocol.pace import PaceMeter

# Share of the measured capacity that is handed out. Synthesis speed varies chunk to chunk (short ones
# cost more per second of audio) and a new listener's first piece is a burst; 20% keeps them from
# starving the others (docs/decisions/080-admission-control.md).
HEADROOM = 0.8
# The retry hint. A slot frees when an answer ends; the agent backs off from this, doubling, with jitter.
RETRY_AFTER_S = 1.0


class ServerBusy(Refusal):
    """No listener slot is free; ``retry_after_s`` says when to try again."""

    status, code = 503, SERVER_BUSY

    def __init__(self, listeners: int, capacity: int):
        super().__init__(
            f"the server is at capacity ({listeners} of {capacity} listeners); "
            f"retry in {RETRY_AFTER_S:g} s or use another instance"
        )
        self.retry_after_s = RETRY_AFTER_S


class Ticket:
    """One listener's share; released exactly once, however the session or request ends."""

    def __init__(self, admission: Admission):
        self._admission = admission
        self._held = True

    def release(self) -> None:
        if self._held:
            self._held = False
            self._admission._listeners -= 1  # noqa: SLF001 - the ticket is the admission's own


class Admission:
    """Counts listeners against the capacity; lives in the runtime, used on the event loop only."""

    def __init__(self, workers: int, meter: PaceMeter, max_sessions: int | None = None):
        self.workers = workers
        self.meter = meter
        self.max_sessions = max_sessions
        self._listeners = 0

    @property
    def listeners(self) -> int:
        return self._listeners

    @property
    def capacity(self) -> int:
        """Listeners this server can keep fed: fixed by ``max_sessions``, else from the measured rtf."""
        if self.max_sessions is not None:
            return self.max_sessions
        rtf = self.meter.rtf
        if rtf is None or rtf <= 0:
            return 1  # not measured yet: one listener is always safe on a server faster than real time
        return max(1, math.floor(HEADROOM * self.workers / rtf))

    def admit(self) -> Ticket:
        """A ticket for one more listener, or :class:`ServerBusy` when that would starve the others."""
        capacity = self.capacity
        if self._listeners >= capacity:
            raise ServerBusy(self._listeners, capacity)
        self._listeners += 1
        return Ticket(self)

    def snapshot(self) -> dict:
        rtf = self.meter.rtf
        return {
            "listeners": self._listeners,
            "capacity": self.capacity,
            "rtf": None if rtf is None else round(rtf, 3),
            "renders": self.meter.observed,
        }
