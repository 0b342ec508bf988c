"""The agent's SageMaker transport end to end: real SDK -> emulator -> the real model server.

Runs under .venv312 (the agent's Python; test.sh runs it); the model server runs from .venv, the
environment that has its engine. Audio is transcribed back offline and must say the words sent.
"""

from __future__ import annotations

import os
import signal
import subprocess

import pytest
from aws_sdk_sagemaker_runtime_http2 import models  # in .venv312, which ./setup.sh builds
from emulator import REPO, sagemaker_emulator
from servers import QUICK_WARM_UP, free_port, model_server_process, wait_ready
from speech import assert_heard

from speech_protocol.client_messages import Close, Synthesize, encode_client_message
from speech_protocol.errors import TtsServerError
from speech_protocol.framing import SAMPLE_RATE
from speech_protocol.server_events import Audio, End, StreamDecoder
from speech_protocol.transports.sagemaker import SageMakerConnector, SdkParts, SdkStreamOpener
from speech_protocol.tts_session import TtsSession

pytestmark = pytest.mark.slow
MODEL_PYTHON = str(REPO / ".venv" / "bin" / "python")
PIECES = (
    "The weather in Lisbon is sunny today.",
    "Tomorrow brings light rain in the afternoon.",
    "Take a jacket if you go out tonight.",
)


@pytest.fixture(scope="module")
def emulated_endpoint():
    """(endpoint URL, CA file) of an emulator in front of a warm real model server."""
    with model_server_process("onnx", *QUICK_WARM_UP, python=MODEL_PYTHON) as url, sagemaker_emulator(url) as emulator:
        yield emulator


@pytest.fixture
def opener(emulated_endpoint, monkeypatch) -> SdkStreamOpener:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    monkeypatch.setenv("SSL_CERT_FILE", str(emulated_endpoint.ca_file))
    return SdkStreamOpener("us-east-1", endpoint_uri=emulated_endpoint.endpoint_url)


async def test_agent_transport_speaks_a_multi_piece_answer(opener) -> None:
    connector = SageMakerConnector("kokoro-tts", "us-east-1", open_stream=opener)
    audio: dict[str, bytearray] = {}
    async with TtsSession(connector, timeout_s=120.0) as session:
        for number, text in enumerate(PIECES):
            await session.synthesize(f"p{number}", text, "af_heart", 1.0)
        await session.finish()
        ended = []
        async for event in session.events():
            if isinstance(event, Audio):
                audio.setdefault(event.id, bytearray()).extend(event.pcm)
            elif isinstance(event, End):
                ended.append(event.id)
    assert ended == ["p0", "p1", "p2"]
    assert_heard(b"".join(bytes(audio[f"p{n}"]) for n in range(len(PIECES))), SAMPLE_RATE, " ".join(PIECES))


async def test_a_binary_piece_and_a_utf8_piece_both_speak(opener) -> None:
    duplex = await opener("kokoro-tts")
    parts = SdkParts(duplex, "kokoro-tts")
    messages = [
        (Synthesize(text=PIECES[0], id="binary"), "BINARY"),
        (Synthesize(text=PIECES[1], id="text"), "UTF8"),
        (Close(), "UTF8"),
    ]
    for message, data_type in messages:
        payload = encode_client_message(message).encode()
        await duplex.input_stream.send(
            models.RequestStreamEventPayloadPart(value=models.RequestPayloadPart(bytes_=payload, data_type=data_type))
        )
    decoder, audio, ended = StreamDecoder(), {}, []
    try:
        while (part := await parts.receive()) is not None:
            for event in decoder.feed(part):
                if isinstance(event, Audio):
                    audio.setdefault(event.id, bytearray()).extend(event.pcm)
                elif isinstance(event, End):
                    ended.append(event.id)
    finally:
        await parts.aclose()
    assert ended == ["binary", "text"]
    for piece_id, text in (("binary", PIECES[0]), ("text", PIECES[1])):
        assert_heard(bytes(audio[piece_id]), SAMPLE_RATE, text)


async def test_model_server_dying_mid_answer_is_the_agents_typed_error(monkeypatch) -> None:
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    server = subprocess.Popen(
        [MODEL_PYTHON, "-m", "kokoro_server", "--port", str(port), *QUICK_WARM_UP],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_ready(f"http://127.0.0.1:{port}/ping", server)
        with sagemaker_emulator(f"http://127.0.0.1:{port}") as emulator:
            monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
            monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
            monkeypatch.setenv("SSL_CERT_FILE", str(emulator.ca_file))
            opener = SdkStreamOpener("us-east-1", endpoint_uri=emulator.endpoint_url)
            connector = SageMakerConnector("kokoro-tts", "us-east-1", open_stream=opener)
            with pytest.raises(TtsServerError) as caught:
                async with TtsSession(connector, timeout_s=120.0) as session:
                    for number, text in enumerate(PIECES * 3):
                        await session.synthesize(f"p{number}", text, "af_heart", 1.0)
                    await session.finish()
                    async for event in session.events():
                        if isinstance(event, Audio):
                            server.send_signal(signal.SIGKILL)  # the container dies mid-answer
    finally:
        server.kill()
        server.wait()
        server.stdout.close()
    assert caught.value.server_code == "StreamBroken"
