"""The session check against a deployed endpoint, over SageMaker's bidirectional stream.

The stream is opened with the agent's transport (``voice_agent.tts_client.sagemaker``: CRT transport,
the ``:8443`` endpoint, fresh boto3 credentials), but the message goes out with the SDK's default data
type, BINARY, as any SDK user would send it (the agent itself sends UTF8). The SDK exists for
Python >= 3.12 only; elsewhere this check is SKIPPED with the reason, never silently passed.
"""

from __future__ import annotations

import platform
import time
from collections.abc import AsyncIterator
from typing import Any

from cli.session_check import ChannelError, speak_once
from cli.smoke_report import SMOKE_TEXT, CheckResult, Outcome

UNAVAILABLE = (
    "bidirectional session NOT verified: it needs Python >= 3.12 with aws-sdk-sagemaker-runtime-http2[awscrt] "
    "(this is Python {version}); only /invocations was checked"
)


class SageMakerChannel:
    """:class:`~cli.session_check.Channel` over the SDK's duplex stream."""

    def __init__(self, duplex: Any, parts: Any, models: Any):
        self._duplex, self._parts, self._models = duplex, parts, models
        self._reason: str | None = None

    async def send_binary(self, data: bytes) -> None:
        part = self._models.RequestStreamEventPayloadPart(value=self._models.RequestPayloadPart(bytes_=data))
        try:
            await self._duplex.input_stream.send(part)
        except Exception as err:  # the SDK raises its own and CRT's error types
            raise ChannelError(f"the SageMaker stream refused the message: {err}") from err

    async def parts(self) -> AsyncIterator[bytes | str]:
        from voice_agent.tts_client import TtsError

        while True:
            try:
                part = await self._parts.receive()
            except TtsError as err:
                self._reason = f"{err.code}: {err.message}"
                return
            if part is None:
                return
            yield part

    def closed_reason(self) -> str | None:
        return self._reason


async def check_endpoint_session(endpoint: str, region: str, voice: str | None) -> CheckResult:
    started = time.monotonic()
    try:
        import aws_sdk_sagemaker_runtime_http2.models as models

        from voice_agent.tts_client.sagemaker import SdkParts, SdkStreamOpener
    except ImportError:
        return CheckResult("session", Outcome.SKIPPED, UNAVAILABLE.format(version=platform.python_version()))
    try:
        duplex = await SdkStreamOpener(region)(endpoint)
    except Exception as err:  # credentials, DNS, TLS, a missing endpoint: all reported, none a crash
        detail = f"cannot open a bidirectional stream to {endpoint}: {type(err).__name__}: {err}"
        return CheckResult("session", Outcome.FAILED, detail, elapsed_s=round(time.monotonic() - started, 3))
    parts = SdkParts(duplex)
    try:
        return await speak_once(SageMakerChannel(duplex, parts, models), SMOKE_TEXT, voice)
    finally:
        await parts.aclose()
