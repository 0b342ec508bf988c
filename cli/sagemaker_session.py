"""The session check against a deployed endpoint, over SageMaker's bidirectional stream.

The stream is opened with the agent's transport (``voice_agent.tts_client.sagemaker``: CRT transport,
the ``:8443`` endpoint, fresh boto3 credentials), but the messages go out with the SDK's default data
type, BINARY, as any SDK user would send them (the agent itself sends UTF8). The SDK exists for
Python >= 3.12 only; elsewhere this check is SKIPPED with the reason, never silently passed.
"""

from __future__ import annotations

import platform

from cli.session_check import speak_once
from cli.smoke_report import SMOKE_TEXT, CheckResult, Outcome
from speech_protocol.transport import TtsTransportUnavailable
from voice_agent.tts_client.sagemaker import SageMakerConnector

UNAVAILABLE = (
    "bidirectional session NOT verified: it needs Python >= 3.12 with aws-sdk-sagemaker-runtime-http2[awscrt] "
    "(this is Python {version}); only /invocations was checked"
)


async def check_endpoint_session(endpoint: str, region: str, voice: str | None) -> CheckResult:
    try:
        return await speak_once(SageMakerConnector(endpoint, region), SMOKE_TEXT, voice)
    except TtsTransportUnavailable:
        return CheckResult("session", Outcome.SKIPPED, UNAVAILABLE.format(version=platform.python_version()))
