"""``deploy-agent local`` over the SageMaker transport: the whole agent speaking through the emulator.

The CLI runs on .venv (3.11); the agent, which needs the 3.12-only SDK, runs in .venv312 as a
subprocess, exactly as ``agent/main.py`` builds it in the image. The answer is transcribed back.
"""

from __future__ import annotations

import wave
from pathlib import Path

import pytest
from emulator import sagemaker_emulator
from speech import assert_heard
from test_agent_local import read_outputs
from typer.testing import CliRunner

from kokoro_cli.common.errors import UsageError
from kokoro_cli.deploy_agent import app
from kokoro_cli.local.local_settings import LlmChoice, local_settings
from voice_agent.settings import settings_from_env, settings_to_env

REPLY = "Good evening. Your table by the window is ready"


@pytest.mark.slow
def test_local_agent_speaks_through_the_emulated_endpoint(model_server_url, tmp_path: Path, monkeypatch) -> None:
    with sagemaker_emulator(model_server_url) as emulator:
        monkeypatch.setenv("SSL_CERT_FILE", str(emulator.ca_file))
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
        args = [
            "local",
            "--tts-endpoint",
            "kokoro-tts",
            "--tts-endpoint-url",
            emulator.endpoint_url,
            "--region",
            "us-east-1",
            "--prompt",
            "Is my table ready?",
            "--out",
            str(tmp_path),
            "--reply",
            REPLY,
            "--tokens-per-s",
            "40",
        ]
        result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "SageMaker endpoint kokoro-tts at https://127.0.0.1:" in " ".join(result.output.split())
    report, seconds = read_outputs(tmp_path)
    assert report["error"] is None and report["text"] == REPLY and seconds > 1.0
    with wave.open(str(tmp_path / "answer.wav")) as wav:
        assert_heard(wav.readframes(wav.getnframes()), wav.getframerate(), REPLY)


def test_sagemaker_settings_round_trip_through_the_agents_environment() -> None:
    settings = local_settings(
        None,
        LlmChoice.scripted,
        REPLY,
        40.0,
        None,
        None,
        "eu-west-1",
        "bf_emma",
        1.1,
        tts_endpoint="kokoro-tts",
        tts_endpoint_url="https://127.0.0.1:8443",
    )
    assert settings_from_env(settings_to_env(settings)) == settings


def test_an_endpoint_without_a_region_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="--region"):
        local_settings(None, None, REPLY, 40.0, None, None, None, "af_heart", 1.0, tts_endpoint="kokoro-tts")
