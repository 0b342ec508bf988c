"""The session check against a deployed endpoint, over SageMaker's bidirectional stream.

The stream is opened with the agent's transport (``voice_agent.tts_client.sagemaker``: CRT transport,
the ``:8443`` endpoint, fresh boto3 credentials), but the message goes out with the SDK's default data
type, BINARY, as any SDK user would send it (the agent itself sends UTF8).

The SDK exists for Python >= 3.12 only, and the CLIs may run on 3.11: then the check runs in the
agent's 3.12 environment that ``./setup.sh`` makes (``.venv312``), as ``python -m
cli.sagemaker_session``, and its result comes back as JSON. Without any 3.12 the check FAILS with
the fix: a deploy whose session path was never exercised is not reported as verified.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from cli import agent_python
from cli.session_check import ChannelError, speak_once
from cli.smoke_report import SMOKE_TEXT, CheckResult, Outcome

CHECK_TIMEOUT_S = 180.0


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


async def _check_here(endpoint: str, region: str, voice: str | None, endpoint_url: str | None) -> CheckResult:
    import aws_sdk_sagemaker_runtime_http2.models as models

    from voice_agent.tts_client.sagemaker import SdkParts, SdkStreamOpener

    started = time.monotonic()
    try:
        duplex = await SdkStreamOpener(region, endpoint_uri=endpoint_url)(endpoint)
    except Exception as err:  # credentials, DNS, TLS, a missing endpoint: all reported, none a crash
        detail = f"cannot open a bidirectional stream to {endpoint}: {type(err).__name__}: {err}"
        return CheckResult("session", Outcome.FAILED, detail, elapsed_s=round(time.monotonic() - started, 3))
    parts = SdkParts(duplex)
    try:
        return await speak_once(SageMakerChannel(duplex, parts, models), SMOKE_TEXT, voice)
    finally:
        await parts.aclose()


def check_command(python: Path, endpoint: str, region: str, voice: str | None, endpoint_url: str | None) -> list[str]:
    return [str(python), "-m", "cli.sagemaker_session", endpoint, "--region", region,
            *(["--voice", voice] if voice else []), *(["--endpoint-url", endpoint_url] if endpoint_url else [])]


async def _check_in(python: Path, *args: Any) -> CheckResult:
    """Run the check in another interpreter; its last stdout line is the result as JSON."""
    proc = await asyncio.create_subprocess_exec(
        *check_command(python, *args), env=agent_python.subprocess_env(), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), CHECK_TIMEOUT_S)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return CheckResult("session", Outcome.FAILED, f"the check in {python} gave no result in {CHECK_TIMEOUT_S:.0f} s")
    lines = out.decode(errors="replace").strip().splitlines()
    try:
        found = json.loads(lines[-1])
        return CheckResult(**{**found, "outcome": Outcome(found["outcome"])})
    except (IndexError, ValueError, TypeError, KeyError):
        tail = " | ".join(err.decode(errors="replace").strip().splitlines()[-3:])
        return CheckResult("session", Outcome.FAILED, f"the check in {python} failed (exit {proc.returncode}): {tail}")


async def check_endpoint_session(
    endpoint: str, region: str, voice: str | None, endpoint_url: str | None = None
) -> CheckResult:
    """The session check here when this Python has the SDK, else in the agent's 3.12 environment."""
    if agent_python.sdk_here():
        return await _check_here(endpoint, region, voice, endpoint_url)
    if agent_python.AGENT_PYTHON.exists():
        return await _check_in(agent_python.AGENT_PYTHON, endpoint, region, voice, endpoint_url)
    detail = f"bidirectional session NOT verified: {agent_python.missing_message()}, then run `deploy-model smoke`"
    return CheckResult("session", Outcome.FAILED, detail)


def main() -> None:
    parser = argparse.ArgumentParser(description="One bidirectional session check; prints its result as JSON.")
    parser.add_argument("endpoint")
    parser.add_argument("--region", required=True)
    parser.add_argument("--voice")
    parser.add_argument("--endpoint-url")
    args = parser.parse_args()
    if not agent_python.sdk_here():
        raise SystemExit(f"aws-sdk-sagemaker-runtime-http2 is not installed for Python {platform.python_version()}")
    result = asyncio.run(_check_here(args.endpoint, args.region, args.voice, args.endpoint_url))
    print(json.dumps(result.to_json()))


if __name__ == "__main__":
    main()
