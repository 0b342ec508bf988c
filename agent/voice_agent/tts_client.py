"""The agent's speech transport: :func:`connector_for` picks the one its settings name.

Both transports, the session and the part-stream seam are the shared ``speech_protocol`` package
(:mod:`speech_protocol.transports`); the agent only chooses.
"""

from __future__ import annotations

from speech_protocol.transports.part_stream import Connector

from .settings import TtsSettings


def connector_for(settings: TtsSettings) -> Connector:
    """The transport the settings name (imports only that transport's dependencies)."""
    if settings.transport == "websocket":
        from speech_protocol.transports.websocket import WebSocketConnector

        return WebSocketConnector(settings.url or "")
    from speech_protocol.transports.sagemaker import SageMakerConnector

    return SageMakerConnector(settings.endpoint_name or "", settings.region or "", endpoint_url=settings.endpoint_url)


__all__ = ["connector_for"]
