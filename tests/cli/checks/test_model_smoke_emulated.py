"""`deploy-model smoke --endpoint-url` against the SageMaker emulator: the endpoint's two paths as on AWS.

The CLI runs on .venv (Python 3.11), which cannot have the SageMaker streaming SDK: its session check
runs in the agent's 3.12 environment (.venv312, made by ./setup.sh), so this also proves the check is
not skipped for someone who followed the README.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from aws_env import env_without_aws
from broken_servers import app_with, serving, text_frames_only
from emulator import sagemaker_emulator

from kokoro_cli.checks import sagemaker_session
from kokoro_cli.checks.session_check import BINARY_FRAME_HINT
from kokoro_cli.checks.smoke_report import Outcome
from kokoro_cli.common import agent_python

DEPLOY_MODEL = str(Path(sys.executable).parent / "deploy-model")


def smoke_through_emulator(container_url: str) -> subprocess.CompletedProcess:
    with sagemaker_emulator(container_url) as emulator:
        env = env_without_aws(
            AWS_ACCESS_KEY_ID="AKIDEXAMPLE",
            AWS_SECRET_ACCESS_KEY="secret",
            SSL_CERT_FILE=str(emulator.ca_file),
            AWS_CA_BUNDLE=str(emulator.ca_file),
        )
        command = [
            DEPLOY_MODEL,
            "--region",
            "us-east-1",
            "--endpoint-name",
            "kokoro-tts",
            "smoke",
            "--endpoint-url",
            emulator.endpoint_url,
        ]
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, stdin=subprocess.DEVNULL)


def test_smoke_of_an_emulated_endpoint_runs_the_session_check_and_passes(model_server_url) -> None:
    result = smoke_through_emulator(model_server_url)
    assert result.returncode == 0, result.stdout + result.stderr
    output = result.stdout + result.stderr
    assert "session" in output and "PASSED" in output and "SKIPPED" not in output.upper().replace("SKIPPED)", "")


def test_smoke_of_an_endpoint_reading_only_text_frames_fails_with_the_reason() -> None:
    with serving(app_with(text_frames_only)) as url:
        result = smoke_through_emulator(url)
    assert result.returncode == 1, result.stdout + result.stderr
    assert BINARY_FRAME_HINT in " ".join((result.stdout + result.stderr).split())
    assert "Traceback" not in result.stderr


def test_without_python_312_the_check_fails_loudly_with_the_fix(monkeypatch) -> None:
    monkeypatch.setattr(agent_python, "sdk_here", lambda: False)
    monkeypatch.setattr(agent_python, "AGENT_PYTHON", agent_python.REPO / ".no-venv312" / "bin" / "python")
    result = asyncio.run(sagemaker_session.check_endpoint_session("kokoro-tts", "us-east-1", None))
    assert result.outcome is Outcome.FAILED
    assert "NOT verified" in result.detail and "rerun ./setup.sh" in result.detail
