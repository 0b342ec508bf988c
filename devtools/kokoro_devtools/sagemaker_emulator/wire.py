"""What SageMaker's bidirectional stream carries, in both directions (decision record 030).

In: every event is a signed envelope (``:date``, ``:chunk-signature``) whose payload is the inner
``PayloadPart`` message; an envelope with an empty payload ends the input. Out: the inner messages
themselves, unsigned; mid-stream errors are ``exception`` messages with a JSON body. Errors before the
stream opens are HTTP statuses with ``x-amzn-errortype``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from kokoro_devtools.sagemaker_emulator.eventstream import Decoder, MalformedMessage, Message, encode

END_OF_INPUT = None
TEXT, BINARY = "UTF8", "BINARY"


@dataclass(frozen=True)
class HttpError:
    """An error returned instead of the stream: status, ``x-amzn-errortype`` and the JSON body."""

    status: int
    error_type: str
    message: str

    def headers(self) -> list[tuple[str, str]]:
        return [
            (":status", str(self.status)),
            ("content-type", "application/json"),
            ("x-amzn-errortype", self.error_type),
        ]

    def body(self) -> bytes:
        return json.dumps({"Message": self.message}).encode()


def request_part(envelope: Message) -> str | bytes | None:
    """The frame one signed envelope asks for: ``str`` (TEXT), ``bytes`` (BINARY) or END_OF_INPUT."""
    signature = envelope.headers.get(":chunk-signature")
    if not isinstance(signature, bytes) or len(signature) != 32 or ":date" not in envelope.headers:
        raise MalformedMessage("an event that is not a signed envelope (:date and a 32-byte :chunk-signature)")
    if not envelope.payload:
        return END_OF_INPUT
    decoder = Decoder()
    inner = decoder.feed(envelope.payload)
    decoder.finish()
    if len(inner) != 1:
        raise MalformedMessage(f"an envelope carries {len(inner)} messages, not one")
    headers = inner[0].headers
    if headers.get(":message-type") != "event" or headers.get(":event-type") != "PayloadPart":
        raise MalformedMessage(f"not a PayloadPart event: {headers.get(':event-type')!r}")
    if headers.get("DataType") == TEXT:
        try:
            return inner[0].payload.decode("utf-8")
        except UnicodeDecodeError as err:
            raise MalformedMessage(f"a part marked UTF8 is not UTF-8: {err}") from err
    return inner[0].payload


def payload_part(frame: str | bytes) -> bytes:
    """One container frame as a response part; the DataType says which kind of frame it was."""
    data, kind = (frame.encode(), TEXT) if isinstance(frame, str) else (frame, BINARY)
    return encode(
        {
            ":message-type": "event",
            ":event-type": "PayloadPart",
            ":content-type": "application/octet-stream",
            "DataType": kind,
        },
        data,
    )


def stream_exception(exception_type: str, message: str, error_code: str) -> bytes:
    """A modelled mid-stream error (``ModelStreamError``, ``InternalStreamFailure``)."""
    body = json.dumps({"Message": message, "ErrorCode": error_code}).encode()
    return encode(
        {":message-type": "exception", ":exception-type": exception_type, ":content-type": "application/json"}, body
    )


def stream_error(code: str, message: str) -> bytes:
    """An event-stream ``error`` message: how a frame the service cannot read is refused mid-stream."""
    return encode({":message-type": "error", ":error-code": code, ":error-message": message}, b"")
