"""The speech session's failures in pipecat's own terms: an error message and pipecat's :class:`ErrorCategory`.

pipecat decides from the category whether a service can go on: a permanent category (``INVALID_REQUEST``,
``AUTHENTICATION``) stops it being given work for the rest of the pipeline. A piece the model server
refuses is the application's text or settings (a voice it does not have, a speed out of range), not the
service's health, so it is ``APPLICATION``: the turn ends, the error reaches the pipeline, and the next turn
with good settings is spoken (docs/decisions/157-pipecat-service.md).
"""

from __future__ import annotations

from pipecat.utils.errors import ErrorCategory

from speech_protocol.errors import (
    NOT_READY,
    TtsBusy,
    TtsError,
    TtsServerError,
    TtsSessionClosed,
    TtsTimeout,
    TtsUnreachable,
)


def category(err: TtsError) -> ErrorCategory:
    """Why the session failed, as pipecat classifies failures."""
    if isinstance(err, (TtsUnreachable, TtsSessionClosed, TtsTimeout)):
        return ErrorCategory.CONNECTIVITY
    if isinstance(err, TtsBusy):
        return ErrorCategory.RATE_LIMIT
    if isinstance(err, TtsServerError):
        return ErrorCategory.SERVER if err.server_code == NOT_READY else ErrorCategory.APPLICATION
    return ErrorCategory.SERVER


def message(err: TtsError) -> str:
    """The error's text, led by its stable code (a refused piece's text already leads with the server's)."""
    return f"kokoro: {err.message}" if isinstance(err, TtsServerError) else f"kokoro {err.code}: {err.message}"
