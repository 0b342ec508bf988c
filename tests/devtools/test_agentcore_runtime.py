"""The agent's code bundle run as AgentCore Runtime runs it, behind the AgentCore emulator, asked by its ARN.

The runtime is the one the real CDK app declares (``python app.py``, as ``cdk synth`` runs it, bundling skipped):
its entry point, its Python and its environment come from that template; the bundle is built by the project's
own bundler for this machine's platform; the agent speaks through the SageMaker emulator in front of a real model
server, as deployed; what ``deploy-agent invoke|smoke|web <ARN>`` get back is heard by the recognizer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
import wave
from pathlib import Path

import pytest
from agentcore_web import DEPLOY_AGENT, web_turn
from emulator import agentcore_caller_env, agentcore_emulator, agentcore_runtime, sagemaker_emulator
from speech import assert_heard

from kokoro_devtools.agentcore_emulator.runtime.host import loopback_ports
from kokoro_devtools.agentcore_emulator.runtime.template import TemplateError, read_runtime
from kokoro_devtools.local_python import base_interpreter, local_python

REPO = Path(__file__).resolve().parents[2]
ARN = "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/kokoro_voice_agent-AbCdEf1234"
REPLY = "Good evening. Your table by the window is ready"
RUNTIME = [sys.executable, "-m", "kokoro_devtools.agentcore_emulator.runtime"]
CALLER_KEYS = ("AWS_ACCESS_KEY_ID=AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY=secret")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The agent stack's template as ``cdk synth`` writes it (the app's defaults, bundling skipped)."""
    out = tmp_path_factory.mktemp("cdk.out")
    env = {**os.environ, "CDK_OUTDIR": str(out), "CDK_CONTEXT_JSON": json.dumps({"aws:cdk:bundling-stacks": []})}
    done = subprocess.run([sys.executable, "app.py"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return out / "KokoroVoiceAgent.template.json"


@pytest.fixture(scope="module")
def speech(model_server_url):
    with sagemaker_emulator(model_server_url) as emulator:
        yield emulator


@pytest.fixture(scope="module")
def runtime(template, speech):
    """The bundle serving, its words scripted, its speech from the SageMaker emulator (the template's endpoint
    name and transport kept: only the address, the credentials and the emulator's CA are the caller's)."""
    settings = ["LLM_PROVIDER=scripted", f"LLM_REPLY={REPLY}", f"TTS_ENDPOINT_URL={speech.endpoint_url}"]
    settings += [*CALLER_KEYS, f"SSL_CERT_FILE={speech.ca_file}"]
    with agentcore_runtime(template, *settings) as served:
        yield served


@pytest.fixture(scope="module")
def endpoint(runtime):
    with agentcore_emulator({ARN: runtime.url}) as url:
        yield url


def deploy_agent(endpoint: str, *args: str) -> subprocess.CompletedProcess:
    env = agentcore_caller_env(endpoint)
    command = [DEPLOY_AGENT, *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, stdin=subprocess.DEVNULL)


def children_of(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def test_the_entry_point_runs_as_agentcore_starts_it(runtime, template) -> None:
    """The template's Python and entry point, in the bundle's folder, with the template's environment and the
    caller's settings only, serving 0.0.0.0:8080 in a network namespace of its own."""
    (sandbox,) = children_of(runtime.pid)
    (agent,) = children_of(sandbox)
    declared = read_runtime(template, "us-east-1")
    cmdline = Path(f"/proc/{agent}/cmdline").read_bytes().split(b"\0")[:-1]
    assert [part.decode() for part in cmdline] == [str(base_interpreter(local_python(3, 12))), *declared.entrypoint]
    folder = Path(os.readlink(f"/proc/{agent}/cwd"))
    assert (folder / "main.py").is_file() and (folder / "voice_agent").is_dir() and (folder / "strands").is_dir()
    assert list(folder.glob("kokoro_speech_protocol-*.dist-info"))  # installed by the bundler's pip, not copied
    environ = dict(item.split("=", 1) for item in Path(f"/proc/{agent}/environ").read_text().split("\0") if item)
    assert set(environ) == {*declared.environment, "LLM_REPLY", "TTS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID",
                            "AWS_SECRET_ACCESS_KEY", "SSL_CERT_FILE", "PATH", "HOME"}  # fmt: skip
    assert environ["TTS_TRANSPORT"] == "sagemaker" and environ["TTS_ENDPOINT_NAME"] == "kokoro-tts"
    assert environ["LLM_PROVIDER"] == "scripted"  # the caller's setting replaced the template's bedrock
    assert os.readlink(f"/proc/{agent}/ns/net") != os.readlink("/proc/self/ns/net")
    listening = [line.split()[1] for line in Path(f"/proc/{agent}/net/tcp").read_text().splitlines()[1:]]
    assert "00000000:1F90" in listening  # 0.0.0.0:8080, in its own namespace


def test_invoke_and_smoke_by_arn_speak_through_the_bundle(endpoint, tmp_path) -> None:
    result = deploy_agent(endpoint, "invoke", ARN, "--prompt", "Is my table ready?", "--out", str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    with wave.open(str(tmp_path / "answer.wav")) as wav:
        assert_heard(wav.readframes(wav.getnframes()), wav.getframerate(), REPLY)
    smoke = deploy_agent(endpoint, "smoke", "--runtime-arn", ARN)
    assert smoke.returncode == 0 and "PASSED" in smoke.stdout + smoke.stderr, smoke.stdout + smoke.stderr


async def test_web_by_arn_talks_to_the_bundle_over_its_signed_websocket(endpoint) -> None:
    end, audio = await web_turn(endpoint, ARN, f"test-session-{uuid.uuid4().hex}", "Is my table ready?")
    assert end.heard_text == REPLY
    assert_heard(audio, 24000, REPLY)


def test_an_entry_point_that_exits_at_start_is_one_line_with_the_agents_reason(template) -> None:
    command = [*RUNTIME, str(template), "--port", "0", "-e", "TTS_TRANSPORT=carrier-pigeon"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "configuration error: TTS_TRANSPORT must be one of sagemaker, websocket" in result.stderr
    assert result.stderr.count("error: the entry point exited (1) before /ping answered") == 1
    assert "Traceback" not in result.stderr and result.stdout == ""


@pytest.mark.parametrize("bad", ["TTS_URL", "=value", ""])
def test_a_setting_that_is_not_name_equals_value_is_a_usage_error(bad, template) -> None:
    result = subprocess.run([*RUNTIME, str(template), "-e", bad], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "not NAME=VALUE" in result.stderr


def with_runtime(template: Path, tmp_path: Path, change) -> Path:
    document = json.loads(template.read_text())
    (properties,) = [
        r["Properties"] for r in document["Resources"].values() if r["Type"] == "AWS::BedrockAgentCore::Runtime"
    ]
    change(properties)
    changed = tmp_path / "changed.template.json"
    changed.write_text(json.dumps(document))
    return changed


def test_the_template_region_stands_for_the_region_given(template, tmp_path) -> None:
    changed = with_runtime(
        template, tmp_path, lambda p: p["EnvironmentVariables"].update(TTS_REGION={"Ref": "AWS::Region"})
    )
    assert read_runtime(changed, "eu-central-1").environment["TTS_REGION"] == "eu-central-1"


def test_a_variable_made_at_deployment_must_be_given(template, tmp_path) -> None:
    made = {"Fn::ImportValue": "KokoroTtsModel:EndpointName"}
    changed = with_runtime(template, tmp_path, lambda p: p["EnvironmentVariables"].update(TTS_ENDPOINT_NAME=made))
    with pytest.raises(
        TemplateError, match="TTS_ENDPOINT_NAME is set from the stack at deployment.*-e TTS_ENDPOINT_NAME="
    ):
        read_runtime(changed, "us-east-1")
    given = read_runtime(changed, "us-east-1", overrides={"TTS_ENDPOINT_NAME": "kokoro-tts"})
    assert given.environment["TTS_ENDPOINT_NAME"] == "kokoro-tts"


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda p: p["AgentRuntimeArtifact"].pop("CodeConfiguration"), "runs a container image, not a code bundle"),
        (
            lambda p: p["AgentRuntimeArtifact"]["CodeConfiguration"].update(Runtime="NODE_22"),
            "not a Python entry point",
        ),
        (lambda p: p.update(AgentRuntimeName="other"), "declares no runtime kokoro_voice_agent"),
    ],
)
def test_a_runtime_that_cannot_run_here_is_refused_with_the_reason(template, tmp_path, change, reason) -> None:
    changed = with_runtime(template, tmp_path, change)
    command = [*RUNTIME, str(changed), "--name", "kokoro_voice_agent"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 1 and reason in result.stderr and "Traceback" not in result.stderr, result.stderr


def test_a_template_without_a_runtime_is_refused(template, tmp_path) -> None:
    model = template.with_name("KokoroTtsModel.template.json")
    with pytest.raises(TemplateError, match="declares no AWS::BedrockAgentCore::Runtime"):
        read_runtime(model, "us-east-1")
    (tmp_path / "broken.json").write_text("{not json")
    with pytest.raises(TemplateError, match="cannot read the template"):
        read_runtime(tmp_path / "broken.json", "us-east-1")


def test_every_loopback_server_the_environment_names_is_reached_and_no_other() -> None:
    environment = {"A": "https://127.0.0.1:8443", "B": "ws://localhost:8090/v1", "C": "http://example.com:80", "D": "x"}
    assert loopback_ports(environment) == [8090, 8443]
