"""The emulator's wire, driven by the real ``aws-sdk-sagemaker-runtime-http2`` client (Python >= 3.12).

The containers here are small real WebSocket servers, each doing one thing (echo with the frame
kind, refuse, drop the socket); the model server itself is in ``test_emulator_model_server.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest
import websockets
from aws_sdk_sagemaker_runtime_http2 import models  # in .venv312, which ./setup.sh builds
from emulator import sagemaker_emulator

from speech_protocol.transports.sagemaker import SdkStreamOpener

SESSION_PATH = "/invocations-bidirectional-stream"


async def echo_with_kind(ws) -> None:
    """Echo each frame back, prefixed by the kind it arrived as: T (TEXT) or B (BINARY)."""
    async for frame in ws:
        await ws.send(b"T" + frame.encode() if isinstance(frame, str) else b"B" + frame)


async def drop_after_first_frame(ws) -> None:
    await ws.recv()
    await ws.send(b"partial answer")
    ws.transport.abort()  # the container dies: no close handshake


@contextlib.asynccontextmanager
async def container(handler, **options):
    async with websockets.serve(handler, "127.0.0.1", 0, max_size=None, **options) as server:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"


@contextlib.asynccontextmanager
async def emulated(handler, monkeypatch, **options):
    """A container behind the emulator; yields an opener for the real SDK client."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    async with container(handler, **options) as url:
        with sagemaker_emulator(url) as emulator:
            monkeypatch.setenv("SSL_CERT_FILE", str(emulator.ca_file))
            yield SdkStreamOpener("us-east-1", endpoint_uri=emulator.endpoint_url)


def part(data: bytes, data_type: str | None = None):
    return models.RequestStreamEventPayloadPart(value=models.RequestPayloadPart(bytes_=data, data_type=data_type))


async def test_data_type_is_kept_as_the_websocket_frame_kind(monkeypatch) -> None:
    async with emulated(echo_with_kind, monkeypatch) as opener:
        duplex = await opener("kokoro-tts")
        await duplex.input_stream.send(part(b"as text", "UTF8"))
        await duplex.input_stream.send(part(b"as binary", "BINARY"))
        await duplex.input_stream.send(part(b"sdk default"))
        _, output = await duplex.await_output()
        replies = [await output.receive() for _ in range(3)]
        await duplex.close()
    assert [r.value.bytes_ for r in replies] == [b"Tas text", b"Bas binary", b"Bsdk default"]


async def test_hundreds_of_kib_each_way_pass_flow_control(monkeypatch) -> None:
    chunk = bytes(range(256)) * 256  # 64 KiB: the initial HTTP/2 window, six times over
    async with emulated(echo_with_kind, monkeypatch) as opener:
        duplex = await opener("kokoro-tts")
        received = bytearray()
        _, output = await duplex.await_output()
        for _ in range(6):
            await duplex.input_stream.send(part(chunk, "BINARY"))
        while len(received) < 6 * (len(chunk) + 1):
            event = await asyncio.wait_for(output.receive(), 30)
            received += event.value.bytes_
        await duplex.close()
    assert bytes(received) == (b"B" + chunk) * 6


async def test_container_refusing_the_websocket_is_http_424_model_error(monkeypatch) -> None:
    async def refuse(connection, request):
        return connection.respond(503, "not now\n")

    async with emulated(echo_with_kind, monkeypatch, process_request=refuse) as opener:
        with pytest.raises(models.ModelError) as caught:
            duplex = await opener("kokoro-tts")
            await duplex.await_output()
    assert "refused the WebSocket" in str(caught.value)


async def test_container_dying_mid_stream_is_model_stream_error(monkeypatch) -> None:
    async with emulated(drop_after_first_frame, monkeypatch) as opener:
        duplex = await opener("kokoro-tts")
        await duplex.input_stream.send(part(b"hello", "UTF8"))
        _, output = await duplex.await_output()
        first = await output.receive()
        with pytest.raises(models.ModelStreamError) as caught:
            await output.receive()
        await duplex.close()
    assert first.value.bytes_ == b"partial answer"
    assert caught.value.error_code == "StreamBroken"


class DamagingWriter:
    """Wraps the SDK's own request-body writer and damages the next event it writes."""

    def __init__(self, writer, damage):
        self._writer, self._damage = writer, damage

    async def write(self, data: bytes) -> None:
        await self._damage(self._writer, data)

    def close(self):
        return self._writer.close()


async def flip_crc(writer, data: bytes) -> None:
    await writer.write(data[:-1] + bytes([data[-1] ^ 0xFF]))


async def truncate_prelude(writer, data: bytes) -> None:
    await writer.write(data[:6])
    result = writer.close()  # END_STREAM six bytes into a prelude
    if asyncio.iscoroutine(result):
        await result


@pytest.mark.parametrize("damage", [flip_crc, truncate_prelude], ids=["bad-crc", "truncated-prelude"])
async def test_malformed_event_gets_an_error_and_other_streams_carry_on(monkeypatch, damage) -> None:
    from smithy_aws_event_stream.exceptions import UnmodeledEventError

    async with emulated(echo_with_kind, monkeypatch) as opener:
        healthy = await opener("kokoro-tts")
        await healthy.input_stream.send(part(b"before", "UTF8"))
        broken = await opener("kokoro-tts")
        publisher = broken.input_stream
        publisher._writer = DamagingWriter(publisher._writer, damage)
        with contextlib.suppress(OSError):
            await publisher.send(part(b"damaged on the wire", "UTF8"))
        _, output = await broken.await_output()
        with pytest.raises(UnmodeledEventError) as caught:
            while await asyncio.wait_for(output.receive(), 30) is not None:
                pass
        await healthy.input_stream.send(part(b"after", "UTF8"))
        _, healthy_output = await healthy.await_output()
        replies = [(await healthy_output.receive()).value.bytes_ for _ in range(2)]
        await healthy.close()
        fresh = await opener("kokoro-tts")
        await fresh.input_stream.send(part(b"new stream", "BINARY"))
        _, fresh_output = await fresh.await_output()
        fresh_reply = (await fresh_output.receive()).value.bytes_
        await fresh.close()
    assert caught.value.code == "InputValidationError"
    assert "malformed event stream" in caught.value.message
    assert replies == [b"Tbefore", b"Tafter"] and fresh_reply == b"Bnew stream"


async def test_bad_request_shape_is_refused_before_the_stream(monkeypatch) -> None:
    """An endpoint name SageMaker could not have is refused; the SDK raises instead of hanging."""
    async with emulated(echo_with_kind, monkeypatch) as opener:
        with pytest.raises(Exception) as caught:
            duplex = await opener("not_a_valid_name")
            await duplex.await_output()
    assert "UnknownOperation" in repr(caught.value) or "404" in str(caught.value)


def test_error_bodies_are_json() -> None:
    from kokoro_devtools.sagemaker_emulator.wire import HttpError

    error = HttpError(424, "ModelError", "refused")
    assert json.loads(error.body()) == {"Message": "refused"}
    assert ("x-amzn-errortype", "ModelError") in error.headers()
