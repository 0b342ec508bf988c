"""The speech session's failures as LiveKit's own error types, so that LiveKit's retry and error events work.

A failure before any audio of a stream was pushed is retried by LiveKit (``retryable``) on a fresh
session: a model server that restarted between turns costs one reconnect, not the turn.
"""

from __future__ import annotations

from livekit.agents import APIConnectionError, APIError, APIStatusError, APITimeoutError

from speech_protocol.errors import (
    NOT_READY,
    TtsBusy,
    TtsError,
    TtsServerError,
    TtsSessionClosed,
    TtsTimeout,
    TtsUnreachable,
)


def api_error(err: TtsError) -> APIError:
    """The LiveKit error for one session failure (its message keeps the session's stable code)."""
    message = f"kokoro {err.code}: {err.message}"
    if isinstance(err, TtsTimeout):
        return APITimeoutError(message)
    if isinstance(err, (TtsUnreachable, TtsSessionClosed)):
        return APIConnectionError(message)
    if isinstance(err, TtsBusy) or (isinstance(err, TtsServerError) and err.server_code == NOT_READY):
        return APIStatusError(message, status_code=503, body=err.code)  # at capacity or still loading: retried
    if isinstance(err, TtsServerError):  # the server refused a piece: sending it again changes nothing
        return APIStatusError(message, status_code=400, body=err.server_code, retryable=False)
    return APIError(message, body=err.code)
