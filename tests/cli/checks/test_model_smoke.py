"""`deploy-model smoke` against a real local model server, and against servers broken on purpose."""

from __future__ import annotations

import asyncio
import re

import pytest
from broken_servers import answers_garbage, app_with, never_answers, serving, text_frames_only

from kokoro_cli.checks.model_smoke import check_ws_session, parse_base_url, smoke_url
from kokoro_cli.checks.session_check import BINARY_FRAME_HINT
from kokoro_cli.checks.smoke_report import Outcome
from kokoro_cli.common.errors import UsageError, VerifyFailed


def test_both_paths_of_the_real_model_server_pass(model_server_url):
    report = smoke_url(model_server_url, "af_heart")
    assert [c.name for c in report.checks] == ["invocations", "session"]
    assert report.ok, report.to_json()
    assert all(c.audio_s > 0.5 for c in report.checks)
    report.raise_if_failed()


def test_an_unknown_voice_fails_both_paths_with_the_servers_reason(model_server_url):
    report = smoke_url(model_server_url, "zz_nobody")
    assert not report.ok
    assert all(c.outcome is Outcome.FAILED and "voice" in c.detail for c in report.checks)


def test_a_server_that_reads_only_text_frames_fails_the_session_with_the_reason():
    with serving(app_with(text_frames_only)) as url:
        report = smoke_url(url, None)
    invocations, session = report.checks
    assert invocations.outcome is Outcome.PASSED  # /invocations alone would have called this healthy
    assert session.outcome is Outcome.FAILED
    assert re.search(r"closed the session \(code 10\d\d\) before any audio", session.detail)
    assert BINARY_FRAME_HINT in session.detail
    with pytest.raises(VerifyFailed) as caught:
        report.raise_if_failed()
    assert caught.value.details == (f"session: {session.detail}",)


def test_garbage_and_silence_fail_clearly_instead_of_hanging():
    with serving(app_with(answers_garbage)) as url:
        garbage = asyncio.run(check_ws_session(parse_base_url(url)[1], None, timeout_s=5))
    assert garbage.outcome is Outcome.FAILED and "does not follow the session protocol" in garbage.detail
    with serving(app_with(never_answers)) as url:
        silent = asyncio.run(check_ws_session(parse_base_url(url)[1], None, timeout_s=0.5))
    assert silent.outcome is Outcome.FAILED and "no end of the utterance within" in silent.detail


def test_nothing_listening_is_a_failed_check_not_a_crash():
    report = smoke_url("http://127.0.0.1:9", None)
    assert not report.ok and all("127.0.0.1:9" in c.detail or "Connect" in c.detail for c in report.checks)


@pytest.mark.parametrize("url", ["", "127.0.0.1:8080", "ftp://host", "http://", "javascript:alert(1)"])
def test_malformed_urls_are_usage_errors(url):
    with pytest.raises(UsageError):
        parse_base_url(url)


def test_ws_and_http_urls_map_to_each_other():
    assert parse_base_url("ws://h:1/") == ("http://h:1", "ws://h:1/invocations-bidirectional-stream")
    assert parse_base_url("https://h/base") == ("https://h/base", "wss://h/base/invocations-bidirectional-stream")
