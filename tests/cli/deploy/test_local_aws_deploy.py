"""`deploy-model` then `deploy-agent` one-shot against the local AWS, end to end: no account, nothing faked but AWS.

``python -m kokoro_devtools.local_aws`` is moto with AgentCore runtimes that run (the agent's bundle started as the
template says, behind the AgentCore emulator) and the SageMaker emulator in front of a real model server. The
CLIs run as a user runs them, through the real `cdk`: the model stack (moto runs no container: ``--skip-smoke``;
it drops a change set's outputs: ``--direct``), then the agent stack, whose one-shot verification is a spoken
answer; then ``outputs``, ``invoke`` (heard), ``smoke`` and ``destroy`` of both, after which nothing is left.
"""

from __future__ import annotations

import json
import subprocess
import sys
import wave
from pathlib import Path

import boto3
from aws_env import env_without_aws
from emulator import local_aws
from speech import assert_heard

from kokoro_processes.servers import free_port
from voice_agent.settings import DEFAULT_SCRIPTED_REPLY

BIN = Path(sys.executable).parent
REGION = "us-east-1"
MODEL = ["--image-uri", f"123456789012.dkr.ecr.{REGION}.amazonaws.com/kokoro-tts:1", "--instance-type", "ml.m5.xlarge"]
MODEL += ["--engine", "onnx", "--yes", "--bootstrap", "--direct", "--skip-smoke"]
TIMEOUT_S = 600  # a deploy with bootstrap, synth (the agent's bundle from PyPI) and a runtime's start: a minute here


def cli(env: dict[str, str], tool: str, *args: str, out: Path | None = None) -> subprocess.CompletedProcess:
    command = [str(BIN / tool), "--region", REGION, *args]
    if out is not None:
        command += ["--out-dir", str(out)]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)


def deployed_model(env: dict[str, str], tmp_path: Path) -> str:
    """The model stack on the local AWS; its endpoint's name."""
    model = cli(env, "deploy-model", *MODEL, "--json", out=tmp_path / "model.out")
    assert model.returncode == 0, model.stdout + model.stderr
    return json.loads(model.stdout)["endpoint_name"]


def client(env: dict[str, str], service: str):
    return boto3.client(
        service,
        region_name=REGION,
        endpoint_url=env["AWS_ENDPOINT_URL"],
        aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
    )


def caller(aws: dict[str, str]) -> dict[str, str]:
    return env_without_aws(**aws)


def test_both_stacks_deploy_speak_and_are_destroyed_leaving_nothing(model_server_url, tmp_path) -> None:
    with local_aws("--model-server", model_server_url) as aws:
        env = caller(aws)
        deployed_model(env, tmp_path)
        agent = cli(env, "deploy-agent", "--yes", "--direct", "--json", out=tmp_path / "agent.out")
        assert agent.returncode == 0, agent.stdout + agent.stderr
        result = json.loads(agent.stdout)
        arn = result["runtime_arn"]
        assert "agent: PASSED" in agent.stderr  # the one-shot's verification: speech came back through the runtime
        outputs = cli(env, "deploy-agent", "--json", "outputs")
        assert json.loads(outputs.stdout)["outputs"]["RuntimeArn"] == arn
        invoke = cli(env, "deploy-agent", "invoke", arn, "--prompt", "Hello?", "--out", str(tmp_path / "answer"))
        assert invoke.returncode == 0, invoke.stdout + invoke.stderr
        with wave.open(str(tmp_path / "answer" / "answer.wav")) as wav:
            assert_heard(
                wav.readframes(wav.getnframes()), wav.getframerate(), DEFAULT_SCRIPTED_REPLY
            )  # no Bedrock here
        smoke = cli(env, "deploy-agent", "smoke")
        assert smoke.returncode == 0 and "PASSED" in smoke.stdout + smoke.stderr, smoke.stdout + smoke.stderr
        for tool in ("deploy-agent", "deploy-model"):
            destroyed = cli(env, tool, "--yes", "destroy")
            assert destroyed.returncode == 0, destroyed.stdout + destroyed.stderr
        assert client(env, "bedrock-agentcore-control").list_agent_runtimes()["agentRuntimes"] == []
        stacks = client(env, "cloudformation").list_stacks()["StackSummaries"]
        assert {s["StackName"]: s["StackStatus"] for s in stacks if s["StackName"] != "CDKToolkit"} == {
            "KokoroVoiceAgent": "DELETE_COMPLETE",
            "KokoroTtsModel": "DELETE_COMPLETE",
        }
        gone = cli(env, "deploy-agent", "invoke", arn, "--prompt", "Hello?", "--out", str(tmp_path / "gone"))
        assert gone.returncode == 1 and "ResourceNotFoundException" in gone.stderr, gone.stderr


def test_an_agent_that_cannot_reach_its_endpoint_fails_its_deploy_naming_the_endpoint(tmp_path) -> None:
    with local_aws("--model-server", f"http://127.0.0.1:{free_port()}") as aws:  # nothing listens there
        env = caller(aws)
        endpoint = deployed_model(env, tmp_path)
        agent = cli(env, "deploy-agent", "--yes", "--direct", out=tmp_path / "agent.out")
    assert agent.returncode == 1, agent.stdout + agent.stderr
    assert f"endpoint '{endpoint}' did not open" in agent.stderr and "error: smoke check failed" in agent.stderr
    assert "Traceback" not in agent.stderr


def test_a_runtime_that_fails_to_start_is_the_failed_resource_with_its_reason(tmp_path) -> None:
    with local_aws("-e", "TTS_TRANSPORT=carrier-pigeon") as aws:  # the agent refuses its settings at start
        env = caller(aws)
        deployed_model(env, tmp_path)
        agent = cli(env, "deploy-agent", "--yes", "--direct", out=tmp_path / "agent.out")
        runtimes = client(env, "bedrock-agentcore-control").list_agent_runtimes()["agentRuntimes"]
    assert agent.returncode == 1, agent.stdout + agent.stderr
    assert "error: deploying KokoroVoiceAgent failed (stack ROLLBACK_COMPLETE)" in agent.stderr
    assert "(AWS::BedrockAgentCore::Runtime): the runtime did not start: the entry point exited (1)" in agent.stderr
    assert runtimes == []  # rolled back
