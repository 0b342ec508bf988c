"""A plugin's transport comes from exactly one of a model server's URL or a connector
(speech_protocol.shared_session.session_connector)."""

from __future__ import annotations

import pytest

from speech_protocol.shared_session import session_connector
from speech_protocol.transports.sagemaker import SageMakerConnector
from speech_protocol.transports.websocket import WebSocketConnector


def test_a_url_is_reached_over_websocket_and_a_connector_is_used_as_given():
    assert isinstance(session_connector("http://127.0.0.1:8080", None, "TTS"), WebSocketConnector)
    sagemaker = SageMakerConnector("kokoro-tts", "us-east-1")
    assert session_connector(None, sagemaker, "TTS") is sagemaker


@pytest.mark.parametrize("given", [(None, None), ("http://127.0.0.1:8080", "connector")], ids=["neither", "both"])
def test_neither_or_both_is_refused_naming_both_ways(given):
    base_url, connector = given
    with pytest.raises(ValueError, match="one of base_url .* or connector") as refused:
        session_connector(base_url, connector, "kokoro.TTS")  # type: ignore[arg-type]
    assert "kokoro.TTS" in str(refused.value) and "SageMakerConnector" in str(refused.value)
