"""`deploy-agent smoke`: one short prompt to the agent, passed only when speech comes back.

The agent answers with server-sent events (``voice_agent.events``); the check decodes them with the
agent's own :func:`~voice_agent.events.from_wire`, adds up the audio and stops at the summary. An error
event, an undecodable line or a stream that ends without a summary fails with what the agent said.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable

from kokoro_cli.checks.model_smoke import parse_base_url
from kokoro_cli.checks.smoke_report import CheckResult, Outcome, SmokeReport, judge_pcm
from kokoro_cli.common.aws_api import AwsApi
from kokoro_cli.common.errors import CliError
from voice_agent.events import AudioChunk, ErrorEvent, EventDecodeError, Summary, from_wire

SMOKE_PROMPT = "Say hello in one short sentence."
MAX_STREAM_BYTES = 32 * 1024 * 1024  # base64 PCM of a few minutes: far beyond a one-sentence answer


def payload(prompt: str) -> bytes:
    return json.dumps({"prompt": prompt}).encode()


def judge_agent_stream(lines: Iterable[str], started: float) -> CheckResult:
    """Read SSE lines until the summary; passed when the answer carried speech."""
    pcm, seen = bytearray(), 0
    for line in lines:
        seen += len(line)
        if seen > MAX_STREAM_BYTES:
            return CheckResult("agent", Outcome.FAILED, f"answer stream over {MAX_STREAM_BYTES} bytes")
        if not line.startswith("data:"):
            continue  # SSE comments, event names and the blank separators
        try:
            event = from_wire(json.loads(line[5:]))
        except (json.JSONDecodeError, EventDecodeError) as err:
            return CheckResult("agent", Outcome.FAILED, f"undecodable event {line[:120]!r}: {err}")
        if isinstance(event, ErrorEvent):
            return CheckResult("agent", Outcome.FAILED, f"agent error {event.code}: {event.message}")
        if isinstance(event, AudioChunk):
            pcm += event.pcm
        if isinstance(event, Summary):
            return judge_pcm("agent", bytes(pcm), time.monotonic() - started)
    return CheckResult("agent", Outcome.FAILED, f"the stream ended without a summary ({len(pcm)} audio bytes)")


def smoke_runtime(aws: AwsApi, runtime_arn: str, prompt: str = SMOKE_PROMPT) -> SmokeReport:
    """Invoke a deployed AgentCore runtime (a fresh session id of 33+ characters, as the API wants)."""
    started = time.monotonic()
    session_id = f"deploy-agent-smoke-{uuid.uuid4().hex}"
    try:
        check = judge_agent_stream(aws.invoke_agent_runtime(runtime_arn, session_id, payload(prompt)), started)
    except CliError as err:
        check = CheckResult("agent", Outcome.FAILED, err.message)
    return SmokeReport(target=runtime_arn, checks=(check,))


def smoke_agent_url(url: str, prompt: str = SMOKE_PROMPT, timeout_s: float = 120.0) -> SmokeReport:
    """The same check against an agent served on this machine (``deploy-agent local``)."""
    import httpx  # here, not at start-up: a CLI that never calls a server loads no HTTP client (decision 140)

    http_base, _ = parse_base_url(url)
    started = time.monotonic()
    try:
        with (
            httpx.Client(timeout=timeout_s) as client,
            client.stream(
                "POST",
                f"{http_base}/invocations",
                content=payload(prompt),
                headers={"content-type": "application/json", "accept": "text/event-stream"},
            ) as reply,
        ):
            if reply.status_code != 200:
                detail = f"HTTP {reply.status_code}: {reply.read()[:300]!r}"
                check = CheckResult("agent", Outcome.FAILED, detail)
            else:
                check = judge_agent_stream(reply.iter_lines(), started)
    except httpx.HTTPError as err:
        check = CheckResult("agent", Outcome.FAILED, f"POST /invocations: {type(err).__name__}: {err}")
    return SmokeReport(target=http_base, checks=(check,))
