"""The contract's errors: a message that breaks the protocol, and a client session that failed.

:class:`ProtocolError` is what a server (or a client reading the server's stream) raises for a bad message;
its ``code`` goes on the wire in an ``error`` event. :class:`TtsError` and its kinds are what a client
session raises to its caller, whatever the transport; each ``code`` is the stable name an agent puts in its
own error event.
"""

from __future__ import annotations

import enum

SERVER_BUSY = "server_busy"  # error code: at capacity, retry later (the one error that ends a session)
NOT_READY = "not_ready"  # error code: the model is still loading (a client may retry)


class ProtocolError(ValueError):
    """A message that breaks the protocol; ``code`` is the stable name clients branch on."""

    def __init__(self, code: str, message: str, id: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.id = id


class TtsError(Exception):
    """A speech session failed; ``code`` is the stable name that reaches the caller's error event."""

    code = "tts_error"

    def __init__(self, message: str, *, piece_id: str | None = None):
        super().__init__(message)
        self.message = message
        self.piece_id = piece_id


class TtsServerError(TtsError):
    """The model server sent an error event; ``server_code`` is the protocol's code for it."""

    code = "tts_server_error"

    def __init__(self, message: str, *, server_code: str, piece_id: str | None = None):
        super().__init__(message, piece_id=piece_id)
        self.server_code = server_code


class TtsUnreachable(TtsError):
    """The model server or endpoint could not be reached (refused, unknown, no credentials)."""

    code = "tts_unreachable"


class TtsTransportUnavailable(TtsError):
    """The configured transport cannot run here (the SageMaker SDK needs Python >= 3.12)."""

    code = "tts_transport_unavailable"


class TtsSessionClosed(TtsError):
    """The session ended while audio was still owed, or a message was sent after it closed."""

    code = "tts_session_closed"


class TtsTimeout(TtsError):
    """No bytes arrived for ``timeout_s`` while the session was waiting for audio."""

    code = "tts_timeout"


class TtsBusy(TtsError):
    """Every model server tried was at capacity (``server_busy``) until the session's timeout ran out."""

    code = "tts_busy"


class TtsProtocolError(TtsError):
    """The server's byte stream could not be decoded (garbage, unknown event, runaway frame)."""

    code = "tts_protocol_error"


class Failure(enum.Enum):
    """What a client framework makes of a session failure: each plugin maps these, and only these, to its
    framework's own error types (LiveKit's retryable errors, pipecat's error categories)."""

    LOST = "lost"  # unreachable, or the session closed: a new session may work
    TIMEOUT = "timeout"  # the server went quiet while audio was owed
    BUSY = "busy"  # every server tried was at capacity: the same request later may work
    LOADING = "loading"  # the model is still loading: the same request later may work
    REFUSED = "refused"  # the server refused the piece (its text or settings): sending it again changes nothing
    OTHER = "other"  # the stream could not be decoded, or a failure of no known kind


def failure(err: TtsError) -> Failure:
    """The kind of ``err``, for a framework plugin."""
    if isinstance(err, (TtsUnreachable, TtsSessionClosed)):
        return Failure.LOST
    if isinstance(err, TtsTimeout):
        return Failure.TIMEOUT
    if isinstance(err, TtsBusy):
        return Failure.BUSY
    if isinstance(err, TtsServerError) and err.server_code == NOT_READY:
        return Failure.LOADING
    if isinstance(err, TtsServerError):
        return Failure.REFUSED
    return Failure.OTHER
