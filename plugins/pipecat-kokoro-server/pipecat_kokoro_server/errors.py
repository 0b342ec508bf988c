"""The speech session's failures in pipecat's own terms: an error message and pipecat's :class:`ErrorCategory`.

pipecat decides from the category whether a service can go on: a permanent category (``INVALID_REQUEST``,
``AUTHENTICATION``) stops it being given work for the rest of the pipeline. A piece the model server
refuses is the application's text or settings (a voice it does not have, a speed out of range), not the
service's health, so it is ``APPLICATION``: the turn ends, the error reaches the pipeline, and the next turn
with good settings is spoken (docs/decisions/157-pipecat-service.md).
"""

from __future__ import annotations

from pipecat.utils.errors import ErrorCategory

from speech_protocol.errors import Failure, TtsError, TtsServerError, failure

# pipecat's category for each kind of failure.
CATEGORIES = {
    Failure.LOST: ErrorCategory.CONNECTIVITY,
    Failure.TIMEOUT: ErrorCategory.CONNECTIVITY,
    Failure.BUSY: ErrorCategory.RATE_LIMIT,
    Failure.LOADING: ErrorCategory.SERVER,
    Failure.REFUSED: ErrorCategory.APPLICATION,
    Failure.OTHER: ErrorCategory.SERVER,
}


def category(err: TtsError) -> ErrorCategory:
    """Why the session failed, as pipecat classifies failures."""
    return CATEGORIES[failure(err)]


def message(err: TtsError) -> str:
    """The error's text, led by its stable code (a refused piece's text already leads with the server's)."""
    return f"kokoro: {err.message}" if isinstance(err, TtsServerError) else f"kokoro {err.code}: {err.message}"
