"""`deploy-model` as a user runs it: the installed console script, in a subprocess, with the real `cdk`."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from aws_env import env_without_aws
from broken_servers import app_with, serving, text_frames_only

from kokoro_cli.deploy.cdk_command import PINNED_CDK, PROJECT_ROOT
from kokoro_stacks.project import PROJECT_NODE

DEPLOY_MODEL = str(Path(sys.executable).parent / "deploy-model")
IMAGE = "123456789012.dkr.ecr.eu-west-1.amazonaws.com/kokoro-tts:1"
CDK = f"{PROJECT_NODE} {PINNED_CDK}"  # the pinned CDK CLI on the pinned Node.js (decision 021)


def deploy_model(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [DEPLOY_MODEL, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env_without_aws(**env),
        stdin=subprocess.DEVNULL,
    )


def assert_clean_failure(result: subprocess.CompletedProcess, code: int, *phrases: str) -> None:
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    for phrase in phrases:
        assert phrase in result.stderr


def test_dry_run_prints_exactly_the_commands(tmp_path):
    result = deploy_model("--region", "eu-west-1", "--engine", "onnx", "--out-dir", str(tmp_path), "--dry-run")
    assert result.returncode == 0, result.stderr
    cd = f"cd {PROJECT_ROOT} && "
    region = "AWS_DEFAULT_REGION=eu-west-1"
    context = "-c engine=onnx -c region=eu-west-1"
    assert result.stdout.splitlines() == [
        f"{cd}{region} AWS_EC2_METADATA_DISABLED=true AWS_REGION=eu-west-1 {CDK} synth "
        f"KokoroTtsModel --exclusively {context} --output {tmp_path} --quiet",
        f"{cd}{region} AWS_REGION=eu-west-1 {CDK} deploy KokoroTtsModel --exclusively --app {tmp_path} "
        f"{context} "
        f"--outputs-file {tmp_path}/outputs.json --require-approval never --progress events",
    ]


def test_json_output_parses_and_logs_stay_on_stderr():
    result = deploy_model("--json", "--dry-run", "--image-uri", IMAGE, "destroy")
    document = json.loads(result.stdout)
    assert document["ok"] is True and document["dry_run"] is True
    assembly = shlex.quote(str(PROJECT_ROOT / "cdk.out"))
    assert document["commands"][0].endswith(
        f"destroy KokoroTtsModel --exclusively -c image_uri={IMAGE} --output {assembly} --force"
    )


def test_without_credentials_it_stops_with_exit_3_and_says_so():
    result = deploy_model("--region", "eu-west-1", "--image-uri", IMAGE, "--json")
    assert_clean_failure(result, 3, "no AWS credentials found", "aws configure")
    error = json.loads(result.stdout)["error"]
    assert error["type"] == "PrerequisiteMissing" and error["exit_code"] == 3


def test_without_docker_or_cdk_every_missing_prerequisite_is_named():
    result = deploy_model("--region", "eu-west-1", CDK_DOCKER="/nonexistent/docker", CDK_BIN="/nonexistent/cdk")
    assert_clean_failure(result, 3, "prerequisites missing: cdk, docker, aws", "--image-uri", "setup.sh")


def test_bad_values_are_usage_errors():
    assert_clean_failure(deploy_model("--instance-count", "0", "--dry-run"), 2, "--instance-count")
    assert_clean_failure(deploy_model("--instance-count", "many"), 2)
    assert_clean_failure(deploy_model("--endpoint-name", "bad name!", "synth"), 2, "--endpoint-name")
    assert_clean_failure(deploy_model("smoke", "--url", "not a url"), 2, "not a server URL")


def test_destroy_without_a_terminal_needs_yes():
    assert_clean_failure(deploy_model("--region", "eu-west-1", "destroy"), 2, "pass --yes")


def test_synth_runs_the_real_cdk_offline_and_writes_the_template(tmp_path):
    result = deploy_model("--json", "--region", "eu-west-1", "--image-uri", IMAGE, "--out-dir", str(tmp_path), "synth")
    assert result.returncode == 0, result.stderr
    template_path = json.loads(result.stdout)["template"]
    assert template_path == str(tmp_path / "KokoroTtsModel.template.json")
    resources = json.loads(Path(template_path).read_text())["Resources"].values()
    assert {r["Type"] for r in resources} >= {"AWS::SageMaker::Endpoint", "AWS::SageMaker::Model"}


def test_smoke_passes_against_the_real_local_server(model_server_url):
    result = deploy_model("--json", "smoke", "--url", model_server_url)
    assert result.returncode == 0, result.stderr
    checks = json.loads(result.stdout)["smoke"]["checks"]
    assert [(c["name"], c["outcome"]) for c in checks] == [("invocations", "passed"), ("session", "passed")]


def test_smoke_fails_with_exit_1_and_the_reason_against_a_text_frame_only_server():
    with serving(app_with(text_frames_only)) as url:
        result = deploy_model("smoke", "--url", url)
    assert_clean_failure(result, 1, "smoke check failed", "session:", "BINARY frame")
