"""Prerequisite checks: each failure names its fix, and all failures are reported together."""

from __future__ import annotations

import stat

import pytest

from kokoro_cli.common.aws_api import Identity, StackState
from kokoro_cli.common.errors import PrerequisiteMissing
from kokoro_cli.deploy.cdk_command import PINNED_CDK
from kokoro_cli.deploy.prerequisites import Finding, check_bootstrap, check_cdk, check_docker, require

IDENTITY = Identity(account="123456789012", arn="arn:aws:iam::123456789012:user/ci", region="eu-west-1")


class Stacks:
    region = "eu-west-1"

    def __init__(self, state):
        self.state = state

    def stack(self, name):
        return self.state


def script(tmp_path, body: str):
    path = tmp_path / "fake-docker"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_the_pinned_cdk_is_found_and_a_missing_one_says_run_setup():
    assert check_cdk(str(PINNED_CDK)).ok
    missing = check_cdk("/nonexistent/cdk")
    assert not missing.ok and "setup.sh" in missing.fix


def test_docker_needs_a_running_engine_not_just_the_client(tmp_path):
    absent = check_docker("/nonexistent/docker", "building the image", "--image-uri")
    assert not absent.ok and "not installed" in absent.detail and "--image-uri" in absent.fix
    stopped = check_docker(
        script(tmp_path, "echo 'Cannot connect to the Docker daemon' >&2; exit 1"), "building the image", "--image-uri"
    )
    assert not stopped.ok and "Cannot connect to the Docker daemon" in stopped.detail
    running = check_docker(script(tmp_path, "echo 28.2.2"), "building the image", "--image-uri")
    assert running.ok and running.detail == "Docker engine 28.2.2"


@pytest.mark.parametrize(
    ("state", "ok"),
    [
        (None, False),
        (StackState("CDKToolkit", "ROLLBACK_COMPLETE"), False),
        (StackState("CDKToolkit", "CREATE_COMPLETE"), True),
        (StackState("CDKToolkit", "UPDATE_ROLLBACK_COMPLETE"), True),
    ],
)
def test_bootstrap_is_checked_and_offered(state, ok):
    finding = check_bootstrap(Stacks(state), IDENTITY)
    assert finding.ok is ok
    if not ok:
        assert "--bootstrap" in finding.fix and "aws://123456789012/eu-west-1" in finding.fix


def test_require_lists_every_failure_with_its_fix():
    require([Finding("cdk", True, "ok")])
    with pytest.raises(PrerequisiteMissing) as caught:
        require([Finding("docker", False, "not running", "start it"), Finding("aws", False, "no creds", "login")])
    assert caught.value.message == "prerequisites missing: docker, aws"
    assert caught.value.details == ("docker: not running -> fix: start it", "aws: no creds -> fix: login")
