"""The server's refusals mapped to the wire, in one place: HTTP statuses and session error events.

Every typed refusal derives from :class:`~kokoro_server.refusals.Refusal` and carries its own status and
code; a :class:`~speech_protocol.errors.ProtocolError` (a message that breaks the contract) is a 400 with
its own code. Anything else is a fault of the server: logged, and answered 500 ``synthesis_failed``.
"""

from __future__ import annotations

import logging

from kokoro_server.refusals import Refusal
from speech_protocol.errors import ProtocolError
from speech_protocol.server_events import Error

log = logging.getLogger("kokoro_server")


class RequestError(Refusal):
    """An HTTP-level problem with a request (content type, size, format)."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code = status, code


def classify(exc: BaseException) -> tuple[int, str, str]:
    """(HTTP status, stable code, message) for any error a request can meet."""
    if isinstance(exc, Refusal):
        if exc.log_level is not None:
            log.log(exc.log_level, "refused: %s", exc.code, exc_info=exc)
        return exc.status, exc.code, exc.message
    if isinstance(exc, ProtocolError):
        return 400, exc.code, exc.message
    log.error("synthesis failed", exc_info=exc)
    return 500, "synthesis_failed", "synthesis failed on the server"


def http_error_body(exc: BaseException) -> tuple[int, dict, dict[str, str]]:
    """(status, JSON body, headers): a busy server adds ``Retry-After`` (whole seconds)."""
    status, code, message = classify(exc)
    retry = getattr(exc, "retry_after_s", None)
    headers = {"Retry-After": str(max(1, round(retry)))} if retry is not None else {}
    return status, {"error": {"code": code, "message": message}}, headers


def session_error(exc: BaseException, utterance_id: str | None = None) -> Error:
    _status, code, message = classify(exc)
    return Error(
        code=code,
        message=message,
        id=utterance_id or getattr(exc, "id", None),
        retry_after_s=getattr(exc, "retry_after_s", None),
    )
