"""`deploy-agent` as a user runs it: the installed console script, in a subprocess, with the real `cdk`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from aws_env import env_without_aws

DEPLOY_AGENT = str(Path(sys.executable).parent / "deploy-agent")
AGENT_IMAGE = "123456789012.dkr.ecr.eu-west-1.amazonaws.com/kokoro-agent:1"
MODEL_IMAGE = "123456789012.dkr.ecr.eu-west-1.amazonaws.com/kokoro-tts:1"


def deploy_agent(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [DEPLOY_AGENT, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env_without_aws(**env),
        stdin=subprocess.DEVNULL,
    )


def test_dry_run_names_where_the_endpoint_comes_from():
    result = deploy_agent("--json", "--dry-run", "--region", "eu-west-1")
    commands = json.loads(result.stdout)["commands"]
    assert [c.split(" KokoroVoiceAgent")[0].split()[-1] for c in commands] == ["synth", "deploy"]
    assert "endpoint_name is read at run time from KokoroTtsModel's outputs" in result.stderr
    given = json.loads(deploy_agent("--json", "--dry-run", "--endpoint-name", "tts-2").stdout)["commands"]
    assert all("-c endpoint_name=tts-2" in c for c in given)


def test_without_credentials_it_stops_with_exit_3_and_no_traceback():
    result = deploy_agent("--region", "eu-west-1")
    assert result.returncode == 3, result.stderr
    assert "no AWS credentials found" in result.stderr and "Traceback" not in result.stderr


def test_container_artifact_needs_docker_and_says_how_to_avoid_it():
    result = deploy_agent("--region", "eu-west-1", "--agent-artifact", "container", CDK_DOCKER="/nonexistent/docker")
    assert result.returncode == 3 and "--agent-artifact code" in result.stderr


def test_bad_settings_are_usage_errors():
    result = deploy_agent("--runtime-name", "has-hyphen", "synth")
    assert result.returncode == 2 and "--runtime-name" in result.stderr and "Traceback" not in result.stderr
    assert deploy_agent("--agent-artifact", "image", "synth").returncode == 2  # image needs --agent-image-uri
    assert deploy_agent("smoke", "--prompt", " ", "--url", "http://127.0.0.1:9").returncode == 2


def test_synth_runs_the_real_cdk_offline_and_writes_the_template(tmp_path):
    result = deploy_agent(
        "--json",
        "--region",
        "eu-west-1",
        "--agent-artifact",
        "image",
        "--agent-image-uri",
        AGENT_IMAGE,
        "--out-dir",
        str(tmp_path),
        "synth",
    )
    assert result.returncode == 0, result.stderr
    template = json.loads(Path(json.loads(result.stdout)["template"]).read_text())
    assert "AWS::BedrockAgentCore::Runtime" in {r["Type"] for r in template["Resources"].values()}


def test_smoke_against_nothing_listening_fails_with_exit_1():
    result = deploy_agent("--json", "smoke", "--url", "http://127.0.0.1:9")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert json.loads(result.stdout)["error"]["type"] == "VerifyFailed"
