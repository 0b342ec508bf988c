"""Transport over SageMaker's bidirectional stream (``aws-sdk-sagemaker-runtime-http2``, Python >= 3.12).

The SDK is imported lazily, here only, so everything else runs where it cannot be installed. The
pitfalls of its 0.12 release (002-sagemaker-bidirectional-client.md) are handled in :class:`SdkStreamOpener`: the CRT
transport (the default aiohttp one is not duplex), the ``:8443`` endpoint (the default has no port)
and credentials taken fresh from boto3 on every call (the SDK's own chain ignores container and
instance roles, which is what AgentCore gives the agent).

The SDK's duplex stream is reached through one narrow seam, :data:`StreamOpener`, so tests can hand
in a stream that splits and merges parts at any byte boundary, as the platform may.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from ..errors import TtsError, TtsServerError, TtsSessionClosed, TtsTransportUnavailable, TtsUnreachable
from .part_stream import PartStream

SAGEMAKER_STREAM_PORT = 8443
# endpoint name -> the SDK's DuplexEventStream (or a test's stand-in with the same three members:
# ``input_stream.send(event)``, ``await_output()`` and ``close()``).
StreamOpener = Callable[[str], Awaitable[Any]]


def runtime_endpoint(region: str) -> str:
    return f"https://runtime.sagemaker.{region}.amazonaws.com:{SAGEMAKER_STREAM_PORT}"


def _sdk() -> Any:
    try:
        import aws_sdk_sagemaker_runtime_http2 as sdk
        import aws_sdk_sagemaker_runtime_http2.client
        import aws_sdk_sagemaker_runtime_http2.config
        import aws_sdk_sagemaker_runtime_http2.models
    except ImportError as err:
        raise TtsTransportUnavailable(
            "TTS_TRANSPORT=sagemaker needs aws-sdk-sagemaker-runtime-http2[awscrt] (Python >= 3.12)"
        ) from err
    return sdk


def request_part(text: str) -> Any:
    """One client message as the SDK's request event, marked UTF8 so the container gets a TEXT frame."""
    models = _sdk().models
    return models.RequestStreamEventPayloadPart(
        value=models.RequestPayloadPart(bytes_=text.encode("utf-8"), data_type="UTF8")
    )


def binary_request_part(data: bytes) -> Any:
    """One client message with the SDK's default data type, which reaches the container as BINARY."""
    models = _sdk().models
    return models.RequestStreamEventPayloadPart(value=models.RequestPayloadPart(bytes_=data))


class Boto3CredentialsResolver:
    """The SDK's identity resolver, answered from boto3's chain (env, profile, container, instance)."""

    def __init__(self, session: Any = None):
        import boto3

        self._session = session or boto3.Session()

    async def get_identity(self, *, properties: Any = None, **_: Any) -> Any:
        from smithy_aws_core.identity import AWSCredentialsIdentity

        credentials = await asyncio.to_thread(self._session.get_credentials)
        if credentials is None:
            raise TtsUnreachable("no AWS credentials found for the SageMaker stream")
        frozen = await asyncio.to_thread(credentials.get_frozen_credentials)
        return AWSCredentialsIdentity(
            access_key_id=frozen.access_key,
            secret_access_key=frozen.secret_key,
            session_token=frozen.token,
        )


class SdkStreamOpener:
    """Builds the real client once (lazily) and opens one duplex stream per call."""

    def __init__(self, region: str, *, endpoint_uri: str | None = None, credentials: Any = None):
        self.region = region
        self.endpoint_uri = endpoint_uri or runtime_endpoint(region)
        self._credentials = credentials
        self._client: Any = None

    async def resolve_config(self) -> Any:
        sdk = _sdk()
        from smithy_http.aio.crt import AWSCRTHTTPClient

        return await sdk.config.AsyncSageMakerRuntimeHTTP2Config.resolve(
            region=self.region,
            endpoint_uri=self.endpoint_uri,
            transport=AWSCRTHTTPClient(),
            aws_credentials_identity_resolver=self._credentials or Boto3CredentialsResolver(),
        )

    async def __call__(self, endpoint_name: str) -> Any:
        sdk = _sdk()
        if self._client is None:
            config = await self.resolve_config()
            self._client = sdk.client.AsyncSageMakerRuntimeHTTP2Client(config=config)
        request = sdk.models.InvokeEndpointWithBidirectionalStreamInput(endpoint_name=endpoint_name)
        return await self._client.invoke_endpoint_with_bidirectional_stream(request)


class SdkParts:
    """A :class:`PartStream` over the SDK's duplex stream; maps its events and errors to ours."""

    def __init__(self, duplex: Any, endpoint_name: str):
        self._duplex = duplex
        self._endpoint_name = endpoint_name  # named in the errors: which endpoint a deploy cannot reach
        self._output: Any = None

    async def _send(self, part: Any) -> None:
        try:
            await self._duplex.input_stream.send(part)
        except TtsError:
            raise
        except Exception as err:
            raise TtsSessionClosed(f"the SageMaker stream refused a message: {err}") from err

    async def send_text(self, text: str) -> None:
        await self._send(request_part(text))

    async def send_binary(self, data: bytes) -> None:
        await self._send(binary_request_part(data))

    async def _output_stream(self) -> Any:
        if self._output is None:
            try:
                _, self._output = await self._duplex.await_output()
            except TtsError:
                raise
            except Exception as err:
                raise TtsUnreachable(f"the stream to endpoint {self._endpoint_name!r} did not open: {err}") from err
        return self._output

    async def receive(self) -> bytes | str | None:
        models = _sdk().models
        output = await self._output_stream()
        try:
            event = await output.receive()
        except models.ModelStreamError as err:
            raise TtsServerError(str(err), server_code=err.error_code or "model_stream_error") from err
        except Exception as err:
            raise TtsSessionClosed(f"the SageMaker stream failed: {err}") from err
        if event is None:
            return None
        if isinstance(event, models.ResponseStreamEventPayloadPart):
            return event.value.bytes_ or b""
        if isinstance(event, models.ResponseStreamEventModelStreamError):
            code = event.value.error_code or "model_stream_error"
            raise TtsServerError(event.value.message or code, server_code=code)
        if isinstance(event, models.ResponseStreamEventInternalStreamFailure):
            raise TtsSessionClosed(f"SageMaker internal stream failure: {event.value.message}")
        return b""  # an event kind this SDK release does not know: nothing to decode

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(5.0):
                await self._duplex.close()


class SageMakerConnector:
    """Opens a session on a SageMaker endpoint; ``open_stream`` is the seam tests replace."""

    def __init__(
        self,
        endpoint_name: str,
        region: str,
        *,
        open_stream: StreamOpener | None = None,
        endpoint_url: str | None = None,
    ):
        self.endpoint_name = endpoint_name
        self._open_stream = open_stream or SdkStreamOpener(region, endpoint_uri=endpoint_url)

    async def connect(self) -> PartStream:
        _sdk()
        try:
            duplex = await self._open_stream(self.endpoint_name)
        except TtsError:
            raise
        except Exception as err:
            raise TtsUnreachable(f"cannot open a stream to endpoint {self.endpoint_name!r}: {err}") from err
        return SdkParts(duplex, self.endpoint_name)
