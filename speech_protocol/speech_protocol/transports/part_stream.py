"""The seam between a speech session and its transport.

A transport only moves raw parts: it sends one UTF-8 message and receives whatever bytes the model
server's frames became on the way (SageMaker may split or merge them). Decoding those parts into
protocol events happens once, in :mod:`speech_protocol.tts_session`, for every transport; the errors a
transport raises are :mod:`speech_protocol.errors`' ``Tts*`` kinds.
"""

from __future__ import annotations

from typing import Protocol


class PartStream(Protocol):
    """One open duplex stream to a model server, as raw parts."""

    async def send_text(self, text: str) -> None:
        """Send one message as UTF-8 (a TEXT frame, or a ``UTF8`` part on SageMaker)."""

    async def send_binary(self, data: bytes) -> None:
        """Send one message as a BINARY frame (a part of the SDK's default data type on SageMaker)."""

    async def receive(self) -> bytes | str | None:
        """The next response part, or ``None`` once the stream has ended normally; an abnormal end
        raises :class:`~speech_protocol.errors.TtsSessionClosed` with what the transport knows about it."""

    async def aclose(self) -> None:
        """Close the stream; never raises."""


class Connector(Protocol):
    """Opens one :class:`PartStream` per answer; raises :class:`~speech_protocol.errors.TtsUnreachable`
    when it cannot."""

    async def connect(self) -> PartStream: ...
