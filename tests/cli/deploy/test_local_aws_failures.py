"""Deploys against the local AWS that must fail, and say why: an agent that cannot reach its model endpoint, a
runtime that does not start. (A file of their own: a parallel worker takes them beside the CI job's test.)"""

from __future__ import annotations

import subprocess
import sys

import pytest
from emulator import local_aws
from local_aws_cli import caller, cli, client, deployed_model

from kokoro_processes.servers import free_port


def test_an_agent_that_cannot_reach_its_endpoint_fails_its_deploy_naming_the_endpoint(tmp_path) -> None:
    with local_aws("--model-server", f"http://127.0.0.1:{free_port()}") as aws:  # nothing listens there
        env = caller(aws)
        endpoint = deployed_model(env, tmp_path)
        agent = cli(env, tmp_path / "agent.out", "deploy-agent", "--yes")
    assert agent.returncode == 1, agent.stdout + agent.stderr
    assert f"endpoint '{endpoint}' did not open" in agent.stderr and "error: smoke check failed" in agent.stderr
    assert "Traceback" not in agent.stderr


def test_a_runtime_that_fails_to_start_is_the_failed_resource_with_its_reason(tmp_path) -> None:
    with local_aws("-e", "TTS_TRANSPORT=carrier-pigeon") as aws:  # the agent refuses its settings at start
        env = caller(aws)
        deployed_model(env, tmp_path)
        agent = cli(env, tmp_path / "agent.out", "deploy-agent", "--yes")
        runtimes = client(env, "bedrock-agentcore-control").list_agent_runtimes()["agentRuntimes"]
    assert agent.returncode == 1, agent.stdout + agent.stderr
    assert "error: deploying KokoroVoiceAgent failed (stack ROLLBACK_COMPLETE)" in agent.stderr
    assert "(AWS::BedrockAgentCore::Runtime): the runtime did not start: the entry point exited (1)" in agent.stderr
    assert runtimes == []  # rolled back


@pytest.mark.parametrize(
    ("option", "reason", "code"),
    [
        (["-e", "TTS_URL"], "not NAME=VALUE", 2),
        (["-e", ""], "not NAME=VALUE", 2),
        (["--model-server", "not a url"], "error: the SageMaker emulator did not start", 1),
    ],
)
def test_the_local_aws_refuses_a_bad_setting_in_one_line(option, reason, code) -> None:
    command = [sys.executable, "-m", "kokoro_devtools.local_aws", "--port", "0", "--agentcore-port", "0", *option]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert result.returncode == code and reason in result.stderr, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
