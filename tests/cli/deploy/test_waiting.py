"""Waiting for InService: the reason comes from DescribeEndpoint, progress is reported, no real sleeping."""

from __future__ import annotations

import pytest

from kokoro_cli.common.aws_api import EndpointState
from kokoro_cli.common.errors import DeployFailed
from kokoro_cli.deploy.waiting import wait_for_endpoint


class EndpointStates:
    """The narrow AWS seam, answering DescribeEndpoint from a script of states."""

    region = "eu-west-1"

    def __init__(self, *states):
        self.states = list(states)

    def endpoint(self, name):
        return self.states.pop(0) if len(self.states) > 1 else self.states[0]


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def wait(aws, **kw):
    clock, lines = FakeClock(), []
    result = wait_for_endpoint(aws, "tts", clock=clock, sleep=clock.sleep, on_progress=lines.append, **kw)
    return result, lines, clock


def test_returns_once_in_service_and_reports_each_status_change():
    aws = EndpointStates(*[EndpointState("tts", "Creating")] * 6, EndpointState("tts", "InService"))
    state, lines, clock = wait(aws, poll_s=15)
    assert state.status == "InService" and clock.now == 90
    assert lines[0] == "endpoint tts: Creating (0 s)"
    assert any("(60 s)" in line for line in lines)  # a heartbeat during long waits


def test_failed_endpoint_carries_sagemakers_failure_reason():
    aws = EndpointStates(EndpointState("tts", "Creating"), EndpointState("tts", "Failed", "ping failed: 503"))
    with pytest.raises(DeployFailed) as caught:
        wait(aws)
    assert caught.value.details == ("ping failed: 503",)
    assert "/aws/sagemaker/Endpoints/tts" in caught.value.fix


def test_missing_endpoint_and_timeout_are_clear_failures():
    with pytest.raises(DeployFailed, match="does not exist"):
        wait(EndpointStates(None))
    with pytest.raises(DeployFailed, match="still Creating after"):
        wait(EndpointStates(EndpointState("tts", "Creating")), timeout_s=60, poll_s=15)
