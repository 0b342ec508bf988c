"""The server's typed errors mapped to the wire, in one place: HTTP statuses and session error events."""

from __future__ import annotations

import logging

from kokoro_server.admission import ServerBusy
from kokoro_server.engine.phonemes import UnreadableText
from kokoro_server.engine.synthesizer import NothingToSay
from kokoro_server.engine.voices import UnknownVoice
from kokoro_server.g2p_pool import G2PFailed
from kokoro_server.runtime import NotReady
from speech_protocol.messages import SERVER_BUSY, Error, ProtocolError

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
    if isinstance(exc, ServerBusy):
        return 503, SERVER_BUSY, str(exc)
    if isinstance(exc, UnreadableText):
        log.warning("G2P could not read a text", exc_info=exc)  # a misaki limit worth knowing about
        return 400, "bad_text", str(exc)
    if isinstance(exc, NotReady):
        return 503, "not_ready", str(exc)
    if isinstance(exc, G2PFailed):  # its G2P process died twice, and was replaced (130-fair-g2p-slices.md)
        log.error("G2P failed", exc_info=exc)
        return 500, "g2p_failed", str(exc)
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
