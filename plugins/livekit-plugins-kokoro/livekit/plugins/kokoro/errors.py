"""The speech session's failures as LiveKit's own error types, so that LiveKit's retry and error events work.

A failure before any audio of a stream was pushed is retried by LiveKit (``retryable``) on a fresh
session: a model server that restarted between turns costs one reconnect, not the turn.
"""

from __future__ import annotations

from livekit.agents import APIConnectionError, APIError, APIStatusError, APITimeoutError

from speech_protocol.errors import Failure, TtsError, TtsServerError, failure


def api_error(err: TtsError) -> APIError:
    """The LiveKit error for one session failure (its message keeps the session's stable code)."""
    message = f"kokoro {err.code}: {err.message}"
    kind = failure(err)
    if kind is Failure.TIMEOUT:
        return APITimeoutError(message)
    if kind is Failure.LOST:
        return APIConnectionError(message)
    if kind in (Failure.BUSY, Failure.LOADING):
        return APIStatusError(message, status_code=503, body=err.code)  # at capacity or still loading: retried
    if kind is Failure.REFUSED:  # sending it again changes nothing
        server_code = err.server_code if isinstance(err, TtsServerError) else err.code
        return APIStatusError(message, status_code=400, body=server_code, retryable=False)
    return APIError(message, body=err.code)
