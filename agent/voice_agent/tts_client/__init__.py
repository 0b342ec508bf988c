"""Speech sessions over two transports behind one interface; :func:`connector_for` picks one."""

from __future__ import annotations

from ..settings import TtsSettings
from .base import (
    Connector,
    PartStream,
    TtsBusy,
    TtsError,
    TtsProtocolError,
    TtsServerError,
    TtsSessionClosed,
    TtsTimeout,
    TtsTransportUnavailable,
    TtsUnreachable,
)
from .session import SessionEvent, TtsSession


def connector_for(settings: TtsSettings) -> Connector:
    """The transport the settings name (imports only that transport's dependencies)."""
    if settings.transport == "websocket":
        from .websocket import WebSocketConnector

        return WebSocketConnector(settings.url or "")
    from .sagemaker import SageMakerConnector

    return SageMakerConnector(settings.endpoint_name or "", settings.region or "")


__all__ = [
    "Connector",
    "PartStream",
    "SessionEvent",
    "TtsBusy",
    "TtsError",
    "TtsProtocolError",
    "TtsServerError",
    "TtsSession",
    "TtsSessionClosed",
    "TtsTimeout",
    "TtsTransportUnavailable",
    "TtsUnreachable",
    "connector_for",
]
