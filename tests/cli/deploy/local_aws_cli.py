"""The deploy CLIs run against the local AWS (``python -m kokoro_devtools.local_aws``), for its deploy tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import boto3
from aws_env import env_without_aws

BIN = Path(sys.executable).parent
REGION = "us-east-1"
IMAGE = f"123456789012.dkr.ecr.{REGION}.amazonaws.com/kokoro-tts:1"
MODEL = ["--image-uri", IMAGE, "--engine", "onnx", "--yes", "--bootstrap"]
TIMEOUT_S = 600  # a deploy with bootstrap, synth (the agent's bundle from PyPI) and a runtime's start: a minute here


def cli(env: dict[str, str], out: Path, tool: str, *args: str) -> subprocess.CompletedProcess:
    """``tool`` with its cloud assembly in ``out`` (by default it is the project's own cdk.out)."""
    command = [str(BIN / tool), "--region", REGION, "--out-dir", str(out), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)


def deployed_model(env: dict[str, str], tmp_path: Path) -> str:
    """The model stack on the local AWS (no model server behind it: no smoke test); its endpoint's name."""
    model = cli(env, tmp_path / "model.out", "deploy-model", *MODEL, "--skip-smoke", "--json")
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
