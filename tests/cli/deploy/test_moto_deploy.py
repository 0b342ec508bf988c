"""`deploy-model` against moto's server, through the real `cdk` CLI: bootstrap, create, read back, destroy.

moto stands in for AWS, which cannot exist here; everything else is what a user runs: the installed
console script, `cdk bootstrap` / `synth` / `deploy` / `destroy`, and boto3 reading the result back.
moto's limits (007-cdk-cli-environment.md) decide the options: no container runs behind its endpoints
(``--skip-smoke``), it drops a change set's outputs (``--direct``), its SageMaker knows no ml.g5
instance types, and it has no CloudFormation model for AgentCore (so only the model stack).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import boto3
import pytest
from aws_env import env_without_aws
from botocore.exceptions import ClientError

DEPLOY_MODEL = str(Path(sys.executable).parent / "deploy-model")
COMMAND_TIMEOUT_S = 150  # one deploy with bootstrap takes ~20 s here; this only bounds a hang
STACK = "KokoroTtsModel"


def image_in(region: str) -> str:
    return f"123456789012.dkr.ecr.{region}.amazonaws.com/kokoro-tts:1"


@pytest.fixture(scope="module")
def moto_endpoint(moto_url: str) -> str:
    """The shared moto server, named ``localhost``: cdk builds its template URL from the S3 endpoint,
    and moto's CloudFormation reads that URL as path-style (bucket first) only when it says localhost."""
    return moto_url.replace("127.0.0.1", "localhost")


Run = Callable[..., subprocess.CompletedProcess]


@pytest.fixture
def deploy_model(moto_endpoint: str) -> Run:
    """Run `deploy-model` with throwaway credentials and every AWS API (boto3's and cdk's) on moto."""
    env = env_without_aws(AWS_ENDPOINT_URL=moto_endpoint, AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [DEPLOY_MODEL, *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=COMMAND_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )

    return run


def moto_client(moto_endpoint: str, service: str, region: str):
    return boto3.client(
        service,
        region_name=region,
        endpoint_url=moto_endpoint,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def settings(region: str, instance_type: str = "ml.m5.xlarge") -> list[str]:
    return ["--region", region, "--image-uri", image_in(region), "--instance-type", instance_type, "--engine", "onnx"]


def assert_no_traceback(result: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in result.stdout + result.stderr, result.stderr


def test_dry_run_shows_the_direct_method_and_no_smoke_step(tmp_path):
    result = subprocess.run(
        [DEPLOY_MODEL, *settings("us-west-2"), "--out-dir", str(tmp_path), "--direct", "--skip-smoke", "--dry-run"],
        capture_output=True,
        text=True,
        env=env_without_aws(),
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    synth, deploy = result.stdout.splitlines()
    assert " synth KokoroTtsModel " in synth and "--method" not in synth
    assert deploy.endswith("--method direct")
    assert "wait for the endpoint InService (no smoke test)" in result.stderr
    assert "smoke both paths" not in result.stderr


def test_an_environment_that_is_not_bootstrapped_stops_before_cdk_deploy(deploy_model, moto_endpoint, tmp_path):
    result = deploy_model(
        "--json", *settings("ap-south-1"), "--out-dir", str(tmp_path), "--yes", "--direct", "--skip-smoke"
    )
    assert result.returncode == 3, result.stderr
    assert_no_traceback(result)
    error = json.loads(result.stdout)["error"]
    assert error["message"] == "prerequisites missing: bootstrap"
    assert "rerun with --bootstrap" in error["details"][0]
    assert not list(tmp_path.iterdir())  # refused before synth: nothing was built
    with pytest.raises(ClientError, match="does not exist"):
        moto_client(moto_endpoint, "cloudformation", "ap-south-1").describe_stacks(StackName=STACK)


@pytest.mark.slow
@pytest.mark.timeout(4 * COMMAND_TIMEOUT_S)  # three commands, each bounded by COMMAND_TIMEOUT_S
def test_deploy_creates_the_stack_and_endpoint_and_destroy_removes_them(deploy_model, moto_endpoint, tmp_path):
    region = "us-west-2"
    created = deploy_model(
        "--json", *settings(region), "--out-dir", str(tmp_path), "--yes", "--bootstrap", "--direct", "--skip-smoke"
    )
    assert created.returncode == 0, created.stderr
    assert_no_traceback(created)
    result = json.loads(created.stdout)
    assert (result["ok"], result["stack"], result["status"], result["smoke"]) == (True, STACK, "CREATE_COMPLETE", None)
    assert "smoke test skipped (--skip-smoke)" in created.stderr
    assert "NodeVersionSupportWarning" not in created.stderr  # cdk and its AWS SDK run on the pinned Node.js

    cloudformation = moto_client(moto_endpoint, "cloudformation", region)
    sagemaker = moto_client(moto_endpoint, "sagemaker", region)
    stack = cloudformation.describe_stacks(StackName=STACK)["Stacks"][0]
    outputs = {o["OutputKey"]: o["OutputValue"] for o in stack["Outputs"]}
    assert stack["StackStatus"] == "CREATE_COMPLETE"
    assert outputs["EndpointName"] == result["endpoint_name"]  # moto names the endpoint itself
    assert outputs["EndpointArn"] == result["endpoint_arn"]
    endpoint = sagemaker.describe_endpoint(EndpointName=result["endpoint_name"])
    assert endpoint["EndpointStatus"] == "InService"
    variant = sagemaker.describe_endpoint_config(EndpointConfigName=endpoint["EndpointConfigName"])
    assert variant["ProductionVariants"][0]["InstanceType"] == "ml.m5.xlarge"
    model = sagemaker.describe_model(ModelName=variant["ProductionVariants"][0]["ModelName"])
    assert model["PrimaryContainer"]["Image"] == image_in(region)

    shown = deploy_model("--json", "--region", region, "outputs")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["endpoint_status"] == "InService"

    destroyed = deploy_model("--json", *settings(region), "--out-dir", str(tmp_path / "destroy"), "--yes", "destroy")
    assert destroyed.returncode == 0, destroyed.stderr
    assert json.loads(destroyed.stdout) == {"ok": True, "destroyed": STACK}
    with pytest.raises(ClientError, match="does not exist"):
        cloudformation.describe_stacks(StackName=STACK)
    assert sagemaker.list_endpoints()["Endpoints"] == []
    assert sagemaker.list_models()["Models"] == []


@pytest.mark.slow
def test_a_deploy_that_aws_rejects_exits_1_with_the_reason(deploy_model, tmp_path):
    """moto's SageMaker rejects ml.g5.xlarge as AWS rejects an instance type it does not offer."""
    rejected = deploy_model(
        "--json",
        *settings("eu-north-1", "ml.g5.xlarge"),
        "--out-dir",
        str(tmp_path),
        "--yes",
        "--bootstrap",
        "--direct",
        "--skip-smoke",
    )
    assert rejected.returncode == 1, rejected.stderr
    assert_no_traceback(rejected)
    assert json.loads(rejected.stdout)["error"]["type"] == "DeployFailed"
    assert "'ml.g5.xlarge' at 'instanceType' failed to satisfy constraint" in rejected.stderr
