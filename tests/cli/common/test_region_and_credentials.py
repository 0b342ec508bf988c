"""Region and credentials as a user meets them: every missing one reported at once, each hint followed.

The CLIs run as installed console scripts in a subprocess with no AWS configuration at all; each step
does exactly what the previous message said (the variable it names, the option it names) and reruns.
moto stands in for AWS once credentials exist (it cannot exist here).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from aws_env import env_without_aws

BIN = Path(sys.executable).parent
IMAGE = "123456789012.dkr.ecr.eu-west-1.amazonaws.com/kokoro-tts:1"


def run(cli: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / cli), *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=env_without_aws(**env),
        stdin=subprocess.DEVNULL,
    )


def test_no_region_and_no_credentials_are_both_reported_and_each_hint_works(moto_url: str, tmp_path: Path):
    args = ("--image-uri", IMAGE, "--out-dir", str(tmp_path), "--yes")
    nothing = run("deploy-model", *args)
    assert nothing.returncode == 3, nothing.stderr
    assert "no AWS region configured and no AWS credentials found" in nothing.stderr
    assert "set AWS_REGION" in nothing.stderr and "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY" in nothing.stderr

    # "set AWS_REGION": boto3 alone would ignore it; now only the credentials are missing
    region_set = run("deploy-model", *args, AWS_REGION="eu-west-1")
    assert region_set.returncode == 3
    assert "no AWS credentials found" in region_set.stderr and "region" not in region_set.stderr.split("fix:")[0]

    # "pass --region REGION (before the subcommand)": the same
    flag = run("deploy-model", "--region", "eu-west-1", *args)
    assert flag.returncode == 3 and "no AWS region" not in flag.stderr and "no AWS credentials" in flag.stderr

    # "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY" (against moto): region and credentials pass, the next
    # prerequisite (bootstrap) is what remains
    keys = dict(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_ENDPOINT_URL=moto_url)
    both = run("deploy-model", *args, AWS_REGION="eu-west-1", **keys)
    assert both.returncode == 3, both.stderr
    assert "ok  aws:" in both.stderr and "in eu-west-1" in both.stderr
    assert "not bootstrapped" in both.stderr and "no AWS" not in both.stderr


def test_a_read_only_command_honours_aws_region_too(moto_url: str):
    keys = dict(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_ENDPOINT_URL=moto_url)
    result = run("deploy-agent", "outputs", AWS_REGION="ap-south-1", **keys)
    assert result.returncode == 1, result.stderr
    assert "stack KokoroVoiceAgent is not deployed in ap-south-1" in result.stderr


def test_only_aws_default_region_works_as_boto3_has_it(moto_url: str):
    keys = dict(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_ENDPOINT_URL=moto_url)
    result = run("deploy-model", "outputs", AWS_DEFAULT_REGION="sa-east-1", **keys)
    assert result.returncode == 1 and "not deployed in sa-east-1" in result.stderr


def test_diff_and_destroy_without_credentials_stop_before_cdk_and_the_fix_works(moto_url: str, tmp_path: Path):
    for args in (("diff",), ("--yes", "destroy")):
        bare = run("deploy-model", "--region", "eu-west-1", "--out-dir", str(tmp_path), *args)
        assert bare.returncode == 3, bare.stderr
        assert bare.stderr.splitlines()[0] == "error: prerequisites missing: aws"
        assert "Unable to resolve AWS account" not in bare.stderr
    # the fix's AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, against moto: cdk runs, and finds nothing to destroy
    keys = dict(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_ENDPOINT_URL=moto_url)
    followed = run("deploy-model", "--region", "eu-west-1", "--out-dir", str(tmp_path), "--yes", "destroy", **keys)
    assert "prerequisites missing" not in followed.stderr and "==> cdk destroy KokoroTtsModel" in followed.stderr
