"""Each fix the deploy CLIs print, followed literally: the command then succeeds, or fails differently
(the next missing thing, never the same one). No AWS: every run has no credentials at all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
IMAGE = "123456789012.dkr.ecr.eu-west-1.amazonaws.com/kokoro-tts:1"
pytestmark = pytest.mark.usefixtures("no_aws")


def run(cli: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / cli), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},  # every test here runs under the no_aws fixture
        stdin=subprocess.DEVNULL,  # no terminal: nothing may prompt
    )


def fix_of(result: subprocess.CompletedProcess) -> str:
    return next(line for line in result.stderr.splitlines() if line.startswith("fix: "))[len("fix: ") :]


def test_destroy_without_a_terminal_and_pass_yes() -> None:
    refused = run("deploy-model", "--region", "eu-west-1", "destroy")
    assert refused.returncode == 2 and fix_of(refused) == "pass --yes to destroy unattended"
    followed = run("deploy-model", "--region", "eu-west-1", "--yes", "destroy")
    assert followed.returncode == 3, followed.stderr  # past the question: now the missing credentials
    assert "no AWS credentials found" in followed.stderr and "--yes" not in followed.stderr


def test_an_empty_option_and_leaving_it_out(tmp_path: Path) -> None:
    refused = run("deploy-model", "--image-uri", "", "--out-dir", str(tmp_path), "--dry-run", "synth")
    assert refused.returncode == 2
    assert fix_of(refused) == "give --image-uri a value, or leave it out for the default"
    followed = run("deploy-model", "--out-dir", str(tmp_path), "--dry-run", "synth")
    assert followed.returncode == 0, followed.stderr


def test_a_bad_setting_and_passing_it_before_the_subcommand(tmp_path: Path) -> None:
    refused = run("deploy-model", "--sessions-per-instance", "99", "--dry-run", "synth")
    assert refused.returncode == 2 and fix_of(refused) == "pass --sessions-per-instance VALUE before the subcommand"
    followed = run("deploy-model", "--sessions-per-instance", "8", "--out-dir", str(tmp_path), "--dry-run", "synth")
    assert followed.returncode == 0 and "-c sessions_per_instance=8" in followed.stdout


def test_no_docker_and_passing_image_uri() -> None:
    missing = run("deploy-model", "--region", "eu-west-1", "--yes", CDK_DOCKER="/nonexistent/docker")
    assert missing.returncode == 3 and "prerequisites missing: docker, aws" in missing.stderr
    assert "or pass --image-uri to skip the build" in missing.stderr
    followed = run(
        "deploy-model", "--region", "eu-west-1", "--yes", "--image-uri", IMAGE, CDK_DOCKER="/nonexistent/docker"
    )
    assert followed.returncode == 3 and "prerequisites missing: aws" in followed.stderr


@pytest.mark.slow
def test_a_bad_smoke_url_and_one_like_the_fix(model_server_url: str) -> None:
    refused = run("deploy-model", "smoke", "--url", "localhost-8090")
    assert refused.returncode == 2 and fix_of(refused) == "give one like http://127.0.0.1:8090"
    followed = run("deploy-model", "smoke", "--url", model_server_url)  # http://127.0.0.1:<its port>
    assert followed.returncode == 0, followed.stderr
