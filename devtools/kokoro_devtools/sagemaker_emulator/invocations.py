"""``POST /endpoints/{name}/invocations`` over HTTP/1.1 (boto3's ``InvokeEndpoint``), forwarded to the
container's ``/invocations``, so a smoke test can run both of an endpoint's paths against the emulator.

A container answering 4xx/5xx (or not at all) is reported as SageMaker does: HTTP 424 ``ModelError``
with the container's status and message.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re

import h11
import httpx

from kokoro_devtools.sagemaker_emulator.bridge import Settings

PATH = re.compile(r"^/endpoints/[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})/invocations$")
MAX_BODY = 25 * 1024 * 1024  # InvokeEndpoint's documented request limit (25 MB)


async def _read(connection: h11.Connection, reader: asyncio.StreamReader):
    while (event := connection.next_event()) is h11.NEED_DATA:
        connection.receive_data(await reader.read(65536))
    return event


def _error(status: int, error_type: str, body: dict) -> tuple[int, list[tuple[str, str]], bytes]:
    return status, [("content-type", "application/json"), ("x-amzn-errortype", error_type)], json.dumps(body).encode()


async def _forward(settings: Settings, request: h11.Request, body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
    headers = {k.decode().lower(): v.decode() for k, v in request.headers}
    if request.method != b"POST" or not PATH.match(request.target.decode().split("?")[0]):
        return _error(404, "UnknownOperationException", {"Message": f"no operation at {request.target.decode()!r}"})
    forwarded: dict[str, str] = {k: headers[k] for k in ("content-type", "accept") if k in headers}
    try:
        async with httpx.AsyncClient(timeout=120.0) as client:
            reply = await client.post(f"{settings.container}/invocations", content=body, headers=forwarded)
    except httpx.HTTPError as err:
        return _error(424, "ModelError", {"Message": f"the model container did not answer: {err}"})
    if reply.status_code != 200:
        return _error(
            424,
            "ModelError",
            {
                "Message": "Received client error from the model container",
                "OriginalStatusCode": reply.status_code,
                "OriginalMessage": reply.text[:1000],
            },
        )
    content_type = reply.headers.get("content-type", "application/octet-stream")
    return 200, [("content-type", content_type), ("x-amzn-invoked-production-variant", settings.variant)], reply.content


async def serve_invocations(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, settings: Settings) -> None:
    connection = h11.Connection(h11.SERVER, max_incomplete_event_size=64 * 1024)
    try:
        while True:
            request = await _read(connection, reader)
            if not isinstance(request, h11.Request):
                return
            body = bytearray()
            while isinstance(event := await _read(connection, reader), h11.Data):
                body += event.data
                if len(body) > MAX_BODY:
                    return
            status, headers, payload = await _forward(settings, request, bytes(body))
            headers += [("content-length", str(len(payload)))]
            writer.write(connection.send(h11.Response(status_code=status, headers=headers)))
            writer.write(connection.send(h11.Data(data=payload)) + connection.send(h11.EndOfMessage()))
            await writer.drain()
            if connection.our_state is not h11.DONE or connection.their_state is not h11.DONE:
                return
            connection.start_next_cycle()
    except (h11.ProtocolError, ConnectionError):
        return
    finally:
        with contextlib.suppress(Exception):
            writer.close()
            await writer.wait_closed()
