"""Both images built here from their unchanged Dockerfiles (buildah, stand-in bases) and run as their services
run them: the model image behind the SageMaker emulator, checked by ``deploy-model smoke``; the agent image
behind the AgentCore emulator, asked by its runtime ARN and speaking through the model image, as deployed. What
they say is heard by the recognizer.

The image storage is ``~/.cache/kokoro-images`` (kokoro_devtools.images.buildah), outside the repository: a
second run reuses its layers, which one test checks step by step.
"""

from __future__ import annotations

import re
import subprocess
import sys
import wave
from pathlib import Path

import httpx
import pytest
from emulator import agentcore_caller_env, agentcore_emulator, sagemaker_emulator
from speech import assert_heard

from kokoro_devtools.images.buildah import Buildah, storage_root
from kokoro_devtools.images.services import SERVICES, serving
from kokoro_processes.servers import free_port

# A cold build of both images (stand-in bases included) takes minutes before the first test's own work.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
BIN = Path(sys.executable).parent
IMAGES = [sys.executable, "-m", "kokoro_devtools.images"]
REPLY = "Good evening. Your table by the window is ready"
RUNTIME_ARN = "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/kokoro_voice_agent-AbCdEf1234"
BUILDAH = Buildah(storage_root())


def images(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([*IMAGES, *args], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def built(service: str) -> str:
    result = images("build", service)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    tag = SERVICES[service].tag("onnx")
    assert f"Successfully tagged {tag}" in result.stdout
    return tag


@pytest.fixture(scope="module")
def model_image() -> str:
    return built("model")


@pytest.fixture(scope="module")
def agent_image() -> str:
    return built("agent")


@pytest.fixture(scope="module")
def model_endpoint(model_image):
    """The model image serving, with the SageMaker emulator in front of it: (container URL, emulator)."""
    with serving(BUILDAH, model_image, SERVICES["model"], free_port()) as url, sagemaker_emulator(url) as emulator:
        yield url, emulator


def steps_run_again(output: str) -> list[str]:
    """The build steps (other than FROM) that buildah ran rather than took from its layer cache."""
    lines = output.splitlines()
    return [
        line
        for number, line in enumerate(lines)
        if re.match(r"\[\d+/\d+\] STEP \d+/\d+: (?!FROM)", line)
        and not (number + 1 < len(lines) and lines[number + 1].startswith("--> Using cache"))
    ]


@pytest.mark.parametrize("service", ["model", "agent"])
def test_an_unchanged_rebuild_takes_every_step_from_the_layer_cache(service, model_image, agent_image) -> None:
    result = images("build", service)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Using cache" in result.stdout
    assert steps_run_again(result.stdout) == []


def test_the_model_image_passes_deploy_models_smoke_check_through_the_emulator(model_endpoint) -> None:
    _, emulator = model_endpoint
    env = {
        "PATH": str(BIN) + ":/usr/bin:/bin",
        "HOME": str(Path.home()),
        "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "secret",
        "SSL_CERT_FILE": str(emulator.ca_file),
        "AWS_CA_BUNDLE": str(emulator.ca_file),
    }
    command = [str(BIN / "deploy-model"), "--region", "us-east-1", "--endpoint-name", "kokoro-tts", "smoke"]
    result = subprocess.run(
        [*command, "--endpoint-url", emulator.endpoint_url],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "session" in output and "PASSED" in output


def test_the_model_image_speaks_what_it_is_sent(model_endpoint) -> None:
    url, _ = model_endpoint
    reply = httpx.post(f"{url}/invocations", json={"text": REPLY, "format": "pcm"}, timeout=120)
    assert reply.status_code == 200, reply.text
    assert_heard(reply.content, 24000, REPLY)


def test_the_agent_image_asked_by_its_runtime_arn_speaks_through_the_model_image(
    model_endpoint, agent_image, tmp_path
) -> None:
    """The deployed path whole: ``deploy-agent invoke <ARN>`` -> the AgentCore emulator -> the agent image ->
    the SageMaker emulator -> the model image."""
    _, emulator = model_endpoint
    settings = {
        "LLM_PROVIDER": "scripted",
        "LLM_REPLY": REPLY,
        "TTS_TRANSPORT": "sagemaker",
        "TTS_ENDPOINT_NAME": "kokoro-tts",
        "TTS_REGION": "us-east-1",
        "TTS_ENDPOINT_URL": emulator.endpoint_url,
        "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "secret",
        "SSL_CERT_FILE": "/etc/emulator-ca.pem",
    }
    env = [f"{name}={value}" for name, value in settings.items()]
    volumes = [f"{emulator.ca_file}:/etc/emulator-ca.pem:ro"]
    with (
        serving(BUILDAH, agent_image, SERVICES["agent"], free_port(), env, volumes) as url,
        agentcore_emulator({RUNTIME_ARN: url}) as agentcore,
    ):
        command = [str(BIN / "deploy-agent"), "invoke", RUNTIME_ARN, "--prompt", "Is my table ready?"]
        result = subprocess.run(
            [*command, "--out", str(tmp_path)],
            capture_output=True,
            text=True,
            env=agentcore_caller_env(agentcore),
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
    assert result.returncode == 0, result.stdout + result.stderr
    with wave.open(str(tmp_path / "answer.wav")) as wav:
        assert_heard(wav.readframes(wav.getnframes()), wav.getframerate(), REPLY)


@pytest.mark.parametrize("bad", ["NOVALUE", "=value", ""])
def test_a_setting_that_is_not_name_equals_value_is_a_usage_error(bad) -> None:
    result = images("run", "model", "--env", bad, timeout=60)
    assert result.returncode == 2 and "not NAME=VALUE" in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("service", "setting", "reason"),
    [
        ("model", "KOKORO_ENGINE=bogus", "engine: 'bogus' is not one of onnx, torch"),
        ("model", "KOKORO_ASSETS_DIR=/nowhere", "/nowhere/voices/af_alloy.bin: file is missing"),
        ("agent", "TTS_TRANSPORT=carrier-pigeon", "TTS_TRANSPORT must be one of sagemaker, websocket"),
        ("agent", "TTS_TRANSPORT=websocket", "TTS_TRANSPORT=websocket needs TTS_URL"),
    ],
)
def test_a_bad_setting_stops_the_container_at_start_with_the_reason(
    service, setting, reason, model_image, agent_image
) -> None:
    result = images("run", service, "--port", str(free_port()), "--env", setting, timeout=300)
    assert result.returncode != 0
    assert reason in result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
