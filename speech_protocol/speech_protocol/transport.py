"""The seam between a speech session and its transport, and the errors every transport raises.

A transport only moves raw parts: it sends one UTF-8 message and receives whatever bytes the model
server's frames became on the way (SageMaker may split or merge them). Decoding those parts into
protocol events happens once, in :mod:`speech_protocol.tts_session`, for every transport.
"""

from __future__ import annotations

from typing import Protocol


class TtsError(Exception):
    """A speech session failed; ``code`` is the stable name that reaches the caller's error event."""

    code = "tts_error"

    def __init__(self, message: str, *, piece_id: str | None = None):
        super().__init__(message)
        self.message = message
        self.piece_id = piece_id


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


class TtsServerError(TtsError):
    """The model server sent an error event; ``server_code`` is the protocol's code for it."""

    code = "tts_server_error"

    def __init__(self, message: str, *, server_code: str, piece_id: str | None = None):
        super().__init__(message, piece_id=piece_id)
        self.server_code = server_code


class TtsBusy(TtsError):
    """Every model server tried was at capacity (``server_busy``) until the session's timeout ran out."""

    code = "tts_busy"


class TtsProtocolError(TtsError):
    """The server's byte stream could not be decoded (garbage, unknown event, runaway frame)."""

    code = "tts_protocol_error"


class PartStream(Protocol):
    """One open duplex stream to a model server, as raw parts."""

    async def send_text(self, text: str) -> None:
        """Send one message as UTF-8 (a TEXT frame, or a ``UTF8`` part on SageMaker)."""

    async def send_binary(self, data: bytes) -> None:
        """Send one message as a BINARY frame (a part of the SDK's default data type on SageMaker)."""

    async def receive(self) -> bytes | str | None:
        """The next response part, or ``None`` once the stream has ended normally; an abnormal end
        raises :class:`TtsSessionClosed` with what the transport knows about it."""

    async def aclose(self) -> None:
        """Close the stream; never raises."""


class Connector(Protocol):
    """Opens one :class:`PartStream` per answer; raises :class:`TtsUnreachable` when it cannot."""

    async def connect(self) -> PartStream: ...
