"""The agent's speech transports; :func:`connector_for` picks the one its settings name.

The session, the part-stream seam and the WebSocket transport are the shared ``speech_protocol``
package; only the SageMaker transport (AWS SDK, Python >= 3.12) lives here.
"""

from __future__ import annotations

from speech_protocol.transport import Connector

from ..settings import TtsSettings


def connector_for(settings: TtsSettings) -> Connector:
    """The transport the settings name (imports only that transport's dependencies)."""
    if settings.transport == "websocket":
        from speech_protocol.websocket import WebSocketConnector

        return WebSocketConnector(settings.url or "")
    from .sagemaker import SageMakerConnector

    return SageMakerConnector(settings.endpoint_name or "", settings.region or "", endpoint_url=settings.endpoint_url)


__all__ = ["connector_for"]
