"""`deploy-agent smoke`: one short prompt to the agent, passed only when speech comes back.

The question goes through the CLI's one agent client (:mod:`kokoro_cli.checks.agent_client`); the answer
is read with the agent's own :func:`~voice_agent.events.read_stream`. The check adds up the audio and
stops at the summary. An error event (the agent's, or the reader's for an undecodable line) or a stream
that ends without a summary fails with what was said.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from kokoro_cli.checks.agent_client import invocation, runtime_lines, url_lines
from kokoro_cli.checks.model_smoke import parse_base_url
from kokoro_cli.checks.smoke_report import CheckResult, Outcome, SmokeReport, judge_pcm
from kokoro_cli.common.aws_api import AwsApi
from kokoro_cli.common.errors import CliError
from voice_agent.events import AudioChunk, ErrorEvent, Summary, read_stream

SMOKE_PROMPT = "Say hello in one short sentence."


def judge_agent_stream(lines: Iterable[str], started: float) -> CheckResult:
    """Read the answer until its summary; passed when it carried speech."""
    pcm = bytearray()
    for event in read_stream(lines):
        if isinstance(event, ErrorEvent):
            return CheckResult("agent", Outcome.FAILED, f"agent error {event.code}: {event.message}")
        if isinstance(event, AudioChunk):
            pcm += event.pcm
        if isinstance(event, Summary):
            return judge_pcm("agent", bytes(pcm), time.monotonic() - started)
    return CheckResult("agent", Outcome.FAILED, f"the stream ended without a summary ({len(pcm)} audio bytes)")


def smoke_runtime(aws: AwsApi, runtime_arn: str, prompt: str = SMOKE_PROMPT) -> SmokeReport:
    """Invoke a deployed AgentCore runtime."""
    started = time.monotonic()
    try:
        check = judge_agent_stream(runtime_lines(aws, runtime_arn, invocation(prompt), "smoke"), started)
    except CliError as err:
        check = CheckResult("agent", Outcome.FAILED, err.message)
    return SmokeReport(target=runtime_arn, checks=(check,))


def smoke_agent_url(url: str, prompt: str = SMOKE_PROMPT, timeout_s: float = 120.0) -> SmokeReport:
    """The same check against an agent served on this machine (``deploy-agent local``)."""
    http_base, _ = parse_base_url(url)
    started = time.monotonic()
    try:
        with url_lines(http_base, invocation(prompt), timeout_s) as lines:
            check = judge_agent_stream(lines, started)
    except CliError as err:
        check = CheckResult("agent", Outcome.FAILED, err.message)
    return SmokeReport(target=http_base, checks=(check,))
