"""One question to a running agent, recorded and reported: ``deploy-agent invoke`` and ``local --prompt``.

The question goes through the CLI's one agent client (:mod:`kokoro_cli.checks.agent_client`), the answer's
lines are read back into the agent's events by :func:`voice_agent.events.read_stream` and recorded by
:mod:`kokoro_cli.local.answer_recording`.
"""

from __future__ import annotations

import time
from pathlib import Path

from kokoro_cli.checks.agent_client import runtime_lines, url_lines
from kokoro_cli.common.aws_api import Boto3Aws
from kokoro_cli.common.console import Console
from kokoro_cli.common.errors import VerifyFailed
from kokoro_cli.local.answer_recording import AnswerRecording, record_answer, timeline, write_answer
from voice_agent.events import read_stream


def ask(target: str, payload: dict, region: str | None = None, profile: str | None = None) -> AnswerRecording:
    """One question to a running agent: an http(s):// URL, or an AgentCore runtime ARN."""
    started = time.monotonic()
    if target.startswith("arn:"):
        aws = Boto3Aws(region=region or target.split(":")[3], profile=profile)
        return record_answer(read_stream(runtime_lines(aws, target, payload, "invoke")), started)
    with url_lines(target, payload) as lines:
        return record_answer(read_stream(lines), started)


def report_answer(console: Console, answer: AnswerRecording, out: Path) -> None:
    """Write ``answer.wav`` and ``report.json`` to ``out`` and show the timeline; an answer that ended in an
    error fails the command once its files are written."""
    wav_path, report_path = write_answer(answer, out)
    for line in timeline(answer):
        console.line(line)
    console.note(f"wrote {wav_path} and {report_path}")
    if answer.error:
        raise VerifyFailed(f"the agent answered with an error: {answer.error.code}: {answer.error.message}")
