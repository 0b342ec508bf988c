"""The SageMaker transport with the real SDK classes (Python >= 3.12, in .venv312).

test.sh also runs this file under .venv312, so it imports only the stdlib, boto3, the SDK, pytest,
hypothesis and ``speech_protocol`` (the SageMaker transport among its modules). The duplex stream itself is the
one thing faked (it needs AWS): its response parts split and merge the server's bytes anywhere.
"""

from __future__ import annotations

import asyncio
import socket

import pytest
from aws_sdk_sagemaker_runtime_http2 import models as sdk_models  # in .venv312, which ./setup.sh builds
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from speech_protocol.client_messages import decode_client_frame
from speech_protocol.errors import TtsServerError, TtsSessionClosed, TtsUnreachable
from speech_protocol.server_events import Audio, End, Ready, Start, encode_event
from speech_protocol.transports.sagemaker import (
    Boto3CredentialsResolver,
    SageMakerConnector,
    SdkStreamOpener,
    request_part,
)
from speech_protocol.tts_session import TtsSession

PCM = bytes(range(256)) * 30  # not all zeros, so a misplaced byte would show


def server_bytes(*piece_ids: str) -> bytes:
    """The byte stream a healthy server sends for these pieces, frames concatenated."""
    events = [Ready(session="s")]
    for piece_id in piece_ids:
        events += [Start(id=piece_id), Audio(id=piece_id, seq=0, pcm=PCM), Audio(id=piece_id, seq=1, pcm=PCM[:10])]
        events.append(End(id=piece_id, audio_s=0.1, first_audio_s=0.01, synth_s=0.02, queued_s=0.0))
    return b"".join(f.encode() if isinstance(f, str) else f for e in events for f in encode_event(e))


def payload(data: bytes):
    return sdk_models.ResponseStreamEventPayloadPart(value=sdk_models.ResponsePayloadPart(bytes_=data))


class FakeReceiver:
    def __init__(self, events: list):
        self._events = list(events)

    async def receive(self):
        await asyncio.sleep(0)
        return self._events.pop(0) if self._events else None

    async def close(self) -> None:
        self._events.clear()


class FakeInput:
    def __init__(self) -> None:
        self.sent: list = []
        self.closed = False

    async def send(self, event) -> None:
        self.sent.append(event)

    async def close(self) -> None:
        self.closed = True


class FakeDuplex:
    """Stands in for the SDK's DuplexEventStream: the same three members the transport uses."""

    def __init__(self, events: list):
        self.input_stream = FakeInput()
        self._receiver = FakeReceiver(events)
        self.closed = False

    async def await_output(self):
        return object(), self._receiver

    async def close(self) -> None:
        self.closed = True


def opener_for(duplex: FakeDuplex, opened: list[str] | None = None):
    async def open_stream(endpoint_name: str) -> FakeDuplex:
        if opened is not None:
            opened.append(endpoint_name)
        return duplex

    return open_stream


async def run_session(duplex: FakeDuplex, piece_ids: tuple[str, ...] = ("p0", "p1"), binary: bool = False) -> list:
    connector = SageMakerConnector("kokoro-tts", "us-east-1", open_stream=opener_for(duplex))
    async with TtsSession(connector, timeout_s=5.0, binary_frames=binary) as session:
        for piece_id in piece_ids:
            await session.synthesize(piece_id, f"Piece {piece_id}, café.", "af_heart", 1.0)
        await session.finish()
        return [event async for event in session.events()]


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    return [data[a:b] for a, b in zip(points, points[1:])]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cuts=st.lists(st.integers(min_value=0, max_value=100_000), max_size=40))
def test_parts_split_and_merged_anywhere_give_the_same_events(cuts: list[int]) -> None:
    stream = server_bytes("p0", "p1")
    duplex = FakeDuplex([payload(part) for part in split_at(stream, cuts)])
    events = asyncio.run(run_session(duplex))
    assert [(type(e).__name__, e.id) for e in events] == [
        (kind, piece) for piece in ("p0", "p1") for kind in ("Start", "Audio", "Audio", "End")
    ]
    audio = [e.pcm for e in events if isinstance(e, Audio)]
    assert audio == [PCM, PCM[:10], PCM, PCM[:10]]
    assert duplex.closed


async def test_messages_go_out_as_utf8_payload_parts() -> None:
    duplex = FakeDuplex([payload(server_bytes("p0", "p1"))])
    await run_session(duplex)
    sent = duplex.input_stream.sent
    assert all(isinstance(e, sdk_models.RequestStreamEventPayloadPart) for e in sent)
    assert {e.value.data_type for e in sent} == {"UTF8"}
    messages = [m for e in sent for m in decode_client_frame(e.value.bytes_)]
    assert [getattr(m, "id", None) for m in messages] == ["p0", "p1", None]
    assert messages[0].text == "Piece p0, café." and messages[-1].type == "close"


async def test_binary_frames_go_out_with_the_sdks_default_data_type() -> None:
    """What any SDK user sends, and what the CLI's smoke check sends to catch a TEXT-only server."""
    duplex = FakeDuplex([payload(server_bytes("p0"))])
    await run_session(duplex, ("p0",), binary=True)
    sent = duplex.input_stream.sent
    assert sent and {e.value.data_type for e in sent} == {None}
    messages = [m for e in sent for m in decode_client_frame(e.value.bytes_)]
    assert [m.type for m in messages] == ["synthesize", "close"]


def test_request_part_is_the_sdk_shape() -> None:
    part = request_part('{"type": "close"}')
    assert isinstance(part.value, sdk_models.RequestPayloadPart)
    assert part.value.bytes_ == b'{"type": "close"}' and part.value.data_type == "UTF8"


async def test_model_stream_error_event_is_typed() -> None:
    error = sdk_models.ResponseStreamEventModelStreamError(
        value=sdk_models.ModelStreamError(message="container crashed", error_code="ModelError")
    )
    with pytest.raises(TtsServerError) as caught:
        await run_session(FakeDuplex([payload(server_bytes()), error]))
    assert caught.value.server_code == "ModelError"


async def test_internal_stream_failure_is_typed() -> None:
    failure = sdk_models.ResponseStreamEventInternalStreamFailure(
        value=sdk_models.InternalStreamFailure(message="internal")
    )
    with pytest.raises(TtsSessionClosed):
        await run_session(FakeDuplex([payload(server_bytes()), failure]))


async def test_stream_ending_mid_answer_is_typed() -> None:
    truncated = server_bytes("p0", "p1")[:-40]
    with pytest.raises(TtsSessionClosed):
        await run_session(FakeDuplex([payload(truncated)]))


async def test_failing_open_is_unreachable() -> None:
    async def refuse(endpoint_name: str):
        raise ConnectionRefusedError("no route")

    connector = SageMakerConnector("kokoro-tts", "us-east-1", open_stream=refuse)
    with pytest.raises(TtsUnreachable):
        async with TtsSession(connector, timeout_s=5.0):
            pass


async def test_real_config_uses_crt_port_8443_and_fresh_boto3_credentials(monkeypatch) -> None:
    from smithy_http.aio.crt import AWSCRTHTTPClient

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret-one")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "token-one")
    opener = SdkStreamOpener("eu-west-1")
    config = await opener.resolve_config()
    assert str(config.endpoint_uri) == "https://runtime.sagemaker.eu-west-1.amazonaws.com:8443"
    assert isinstance(config.transport, AWSCRTHTTPClient) and config.region == "eu-west-1"
    identity = await config.aws_credentials_identity_resolver.get_identity(properties={})
    assert (identity.access_key_id, identity.session_token) == ("AKIDEXAMPLE", "token-one")


async def test_credentials_missing_is_unreachable(monkeypatch) -> None:
    class NoCredentials:
        def get_credentials(self):
            return None

    with pytest.raises(TtsUnreachable):
        await Boto3CredentialsResolver(NoCredentials()).get_identity(properties={})


async def test_real_sdk_against_a_closed_port_is_unreachable_naming_the_endpoint(monkeypatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    opener = SdkStreamOpener("us-east-1", endpoint_uri=f"https://127.0.0.1:{port}")
    connector = SageMakerConnector("kokoro-tts", "us-east-1", open_stream=opener)
    with pytest.raises(TtsUnreachable, match="endpoint 'kokoro-tts'"):
        async with TtsSession(connector, timeout_s=5.0) as session:
            await session.synthesize("p0", "Hello.", "af_heart", 1.0)
            async for _ in session.events():
                pass
