"""`deploy-model smoke`: both paths of a model server, against a local URL or a deployed endpoint.

Path 1 is ``/invocations`` (one request, PCM back). Path 2 is a bidirectional session whose message is
a BINARY frame, as the SageMaker SDK sends by default. A server that passes /ping and path 1 but fails
path 2 is exactly the InService-but-broken endpoint this check exists to catch (001-sagemaker-container-contract.md).
"""

from __future__ import annotations

import asyncio
import json
import time

from kokoro_cli.checks.sagemaker_session import check_endpoint_session
from kokoro_cli.checks.session_check import speak_once
from kokoro_cli.checks.smoke_report import SMOKE_TEXT, CheckResult, Outcome, SmokeReport, judge_pcm
from kokoro_cli.common.aws_api import EndpointRuntime
from kokoro_cli.common.errors import CliError, UsageError
from speech_protocol.http.urls import ServerUrlError, server_urls
from speech_protocol.transports.websocket import WebSocketConnector

MAX_REPLY_BYTES = 8 * 1024 * 1024  # ~170 s of PCM16: far beyond one sentence


def request_body(voice: str | None) -> bytes:
    body = {"text": SMOKE_TEXT, "format": "pcm", **({"voice": voice} if voice else {})}
    return json.dumps(body).encode()


def parse_base_url(url: str) -> tuple[str, str]:
    """``(http_base, session_url)`` for a server given as http(s):// or ws(s)://host:port."""
    try:
        urls = server_urls(url)
    except ServerUrlError:
        raise UsageError(f"not a server URL: {url!r}", fix="give one like http://127.0.0.1:8090") from None
    return urls.http_base, urls.session


def check_http_invocations(http_base: str, voice: str | None, timeout_s: float = 60.0) -> CheckResult:
    import httpx  # here, not at start-up: a CLI that never calls a server loads no HTTP client (decision 140)

    started = time.monotonic()
    name = "invocations"
    try:
        with (
            httpx.Client(timeout=timeout_s) as client,
            client.stream(
                "POST",
                f"{http_base}/invocations",
                content=request_body(voice),
                headers={"content-type": "application/json"},
            ) as reply,
        ):
            body = bytearray()
            for chunk in reply.iter_bytes():
                body += chunk
                if len(body) > MAX_REPLY_BYTES:
                    return CheckResult(name, Outcome.FAILED, f"reply over {MAX_REPLY_BYTES} bytes")
    except httpx.HTTPError as err:
        return CheckResult(name, Outcome.FAILED, f"POST /invocations: {type(err).__name__}: {err}")
    if reply.status_code != 200:
        return CheckResult(name, Outcome.FAILED, f"HTTP {reply.status_code}: {bytes(body[:300])!r}")
    if not reply.headers.get("content-type", "").startswith("audio/pcm"):
        return CheckResult(name, Outcome.FAILED, f"content-type {reply.headers.get('content-type')!r}")
    return judge_pcm(name, bytes(body), time.monotonic() - started)


async def check_ws_session(session_url: str, voice: str | None, timeout_s: float = 60.0) -> CheckResult:
    return await speak_once(WebSocketConnector(session_url), SMOKE_TEXT, voice, timeout_s=timeout_s)


def smoke_url(url: str, voice: str | None) -> SmokeReport:
    """Both paths of a model server running at ``url`` (e.g. ``deploy-model local``)."""
    http_base, session_url = parse_base_url(url)
    checks = (check_http_invocations(http_base, voice), asyncio.run(check_ws_session(session_url, voice)))
    return SmokeReport(target=http_base, checks=checks)


def check_endpoint_invocations(aws: EndpointRuntime, endpoint: str, voice: str | None) -> CheckResult:
    started = time.monotonic()
    try:
        pcm = aws.invoke_endpoint(endpoint, request_body(voice), accept="audio/pcm")
    except CliError as err:
        return CheckResult("invocations", Outcome.FAILED, err.message)
    return judge_pcm("invocations", pcm, time.monotonic() - started)


def smoke_endpoint(
    aws: EndpointRuntime, endpoint: str, region: str, voice: str | None, endpoint_url: str | None = None
) -> SmokeReport:
    """Both paths of a deployed endpoint; ``endpoint_url`` overrides SageMaker's runtime (an emulator)."""
    checks = (
        check_endpoint_invocations(aws, endpoint, voice),
        asyncio.run(check_endpoint_session(endpoint, region, voice, endpoint_url)),
    )
    return SmokeReport(target=f"endpoint {endpoint} ({region})", checks=checks)
