"""The agent smoke's judgement of an SSE answer stream, built with the agent's own event encoder."""

from __future__ import annotations

import time

from agent_sse import sse

from kokoro_cli.checks.agent_smoke import judge_agent_stream
from kokoro_cli.checks.smoke_report import Outcome
from voice_agent.events import AudioChunk, ErrorEvent, Summary, TextDelta

SPEECH = b"\x01\x00" * 24000  # one second of PCM16


SUMMARY = Summary(ttfa_s=0.4, audio_s=1.0, pieces=1, text="Hello.", llm_s=0.2, total_s=1.2)


def test_an_answer_with_speech_passes():
    lines = sse(TextDelta("Hello."), AudioChunk("p1", 0, SPEECH, 24000), SUMMARY)
    check = judge_agent_stream([": keep-alive", *lines], time.monotonic())
    assert check.outcome is Outcome.PASSED and check.audio_s == 1.0


def test_error_events_silence_garbage_and_truncation_fail_with_the_reason():
    error = judge_agent_stream(sse(ErrorEvent("tts_unreachable", "endpoint down")), time.monotonic())
    assert error.outcome is Outcome.FAILED and error.detail == "agent error tts_unreachable: endpoint down"
    silent = judge_agent_stream(sse(TextDelta("Hi."), SUMMARY), time.monotonic())
    assert silent.outcome is Outcome.FAILED and "0.00 s of audio" in silent.detail
    garbage = judge_agent_stream(["data: {not json", ""], time.monotonic())
    assert garbage.outcome is Outcome.FAILED and "undecodable event" in garbage.detail
    unknown = judge_agent_stream(['data: {"type": "surprise"}'], time.monotonic())
    assert unknown.outcome is Outcome.FAILED and "undecodable event" in unknown.detail
    cut = judge_agent_stream(sse(AudioChunk("p1", 0, SPEECH, 24000)), time.monotonic())
    assert cut.outcome is Outcome.FAILED and "without a summary" in cut.detail
    assert judge_agent_stream([], time.monotonic()).outcome is Outcome.FAILED
