"""The session check against a deployed endpoint, over SageMaker's bidirectional stream.

The stream is opened with the agent's transport (``speech_protocol.transports.sagemaker``: CRT transport,
the ``:8443`` endpoint, fresh boto3 credentials), but the messages go out with the SDK's default data
type, BINARY, as any SDK user would send them (the agent itself sends UTF8).

The SDK exists for Python >= 3.12 only, and the CLIs may run on 3.11: then the check runs in the
agent's 3.12 environment that ``./setup.sh`` makes (``.venv312``), as ``python -m
kokoro_cli.checks.sagemaker_session``, and its result comes back as JSON. Without any 3.12 the check FAILS with
the fix: a deploy whose session path was never exercised is not reported as verified.

boto3 takes another SageMaker runtime (a local one) from ``AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME`` for
``InvokeEndpoint`` by itself; the streaming SDK reads no such variable, so the check hands it the same URL: both
paths of the smoke test go to the same runtime.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
from pathlib import Path
from typing import Any

from kokoro_cli.checks.session_check import speak_once
from kokoro_cli.checks.smoke_report import SMOKE_TEXT, CheckResult, Outcome
from kokoro_cli.common import agent_python
from speech_protocol.transports.sagemaker import SageMakerConnector

CHECK_TIMEOUT_S = 180.0
RUNTIME_URL_VARIABLE = "AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME"  # boto3's name for the sagemaker-runtime service


async def _check_here(endpoint: str, region: str, voice: str | None, endpoint_url: str | None) -> CheckResult:
    return await speak_once(SageMakerConnector(endpoint, region, endpoint_url=endpoint_url), SMOKE_TEXT, voice)


def check_command(python: Path, endpoint: str, region: str, voice: str | None, endpoint_url: str | None) -> list[str]:
    return [
        str(python),
        "-m",
        "kokoro_cli.checks.sagemaker_session",
        endpoint,
        "--region",
        region,
        *(["--voice", voice] if voice else []),
        *(["--endpoint-url", endpoint_url] if endpoint_url else []),
    ]


async def _check_in(python: Path, *args: Any) -> CheckResult:
    """Run the check in another interpreter; its last stdout line is the result as JSON."""
    pipe = asyncio.subprocess.PIPE
    proc = await asyncio.create_subprocess_exec(
        *check_command(python, *args), env=agent_python.subprocess_env(), stdout=pipe, stderr=pipe
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), CHECK_TIMEOUT_S)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return CheckResult(
            "session", Outcome.FAILED, f"the check in {python} gave no result in {CHECK_TIMEOUT_S:.0f} s"
        )
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
    """The session check here when this Python has the SDK, else in the agent's 3.12 environment; at
    ``endpoint_url``, else where ``AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME`` says, else SageMaker's own."""
    endpoint_url = endpoint_url or os.environ.get(RUNTIME_URL_VARIABLE) or None
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
