"""The server's typed errors mapped to the wire, in one place: HTTP statuses and session error events."""

from __future__ import annotations

import logging

from kokoro_server.engine.phonemes import UnreadableText
from kokoro_server.engine.synthesizer import NothingToSay
from kokoro_server.engine.voices import UnknownVoice
from kokoro_server.runtime import NotReady
from speech_protocol.messages import Error, ProtocolError

log = logging.getLogger("kokoro_server")


class RequestError(ValueError):
    """An HTTP-level problem with a request (content type, size, format)."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def classify(exc: BaseException) -> tuple[int, str, str]:
    """(HTTP status, stable code, message) for any error a request can meet."""
    if isinstance(exc, RequestError):
        return exc.status, exc.code, exc.message
    if isinstance(exc, ProtocolError):
        return 400, exc.code, exc.message
    if isinstance(exc, UnknownVoice):
        return 400, "unknown_voice", str(exc)
    if isinstance(exc, NothingToSay):
        return 400, "unspeakable_text", str(exc)
    if isinstance(exc, UnreadableText):
        log.warning("G2P could not read a text", exc_info=exc)  # a misaki limit worth knowing about
        return 400, "bad_text", str(exc)
    if isinstance(exc, NotReady):
        return 503, "not_ready", str(exc)
    log.error("synthesis failed", exc_info=exc)
    return 500, "synthesis_failed", "synthesis failed on the server"


def http_error_body(exc: BaseException) -> tuple[int, dict]:
    status, code, message = classify(exc)
    return status, {"error": {"code": code, "message": message}}


def session_error(exc: BaseException, utterance_id: str | None = None) -> Error:
    _status, code, message = classify(exc)
    return Error(code=code, message=message, id=utterance_id or getattr(exc, "id", None))
