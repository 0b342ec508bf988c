"""Everything a deploy needs, checked in seconds before anything slow, each failure with its fix.

All the checks run and all their failures are reported together: a user missing both Docker and
credentials learns both at once instead of one per 10-minute attempt.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

from kokoro_cli.common.aws_api import AwsApi, Identity
from kokoro_cli.common.errors import CliError, PrerequisiteMissing
from kokoro_stacks.project import PROJECT_NODE

BOOTSTRAP_STACK = "CDKToolkit"
USABLE_STACK_STATES = {"CREATE_COMPLETE", "UPDATE_COMPLETE", "UPDATE_ROLLBACK_COMPLETE", "IMPORT_COMPLETE"}
DOCKER_TIMEOUT_S = 15


@dataclass(frozen=True)
class Finding:
    name: str
    ok: bool
    detail: str
    fix: str | None = None


def check_cdk(cdk_bin: str) -> Finding:
    """The project's pinned CDK CLI (``setup.sh`` installs it) and a Node.js to run it on."""
    fix = "run ./setup.sh (npm ci installs the pinned CDK CLI into node_modules/.bin/cdk)"
    if not (os.path.isfile(cdk_bin) and os.access(cdk_bin, os.X_OK)) and shutil.which(cdk_bin) is None:
        return Finding("cdk", False, f"CDK CLI not found at {cdk_bin}", fix)
    if not PROJECT_NODE.is_file() and shutil.which("node") is None:  # the pinned one runs cdk when present
        return Finding(
            "cdk", False, "Node.js (node) is not on PATH", "install Node.js 22 or 24 (its npm runs ./setup.sh)"
        )
    return Finding("cdk", True, cdk_bin)


def check_docker(docker_bin: str, needed_for: str, avoid_with: str) -> Finding:
    """A running Docker engine, not just the client: ``docker info`` talks to the daemon."""
    fix = f"start Docker (or set CDK_DOCKER), or pass {avoid_with} to skip the build"
    try:
        probe = subprocess.run(
            [docker_bin, "info", "--format", "{{.ServerVersion}}"],
            capture_output=True,
            text=True,
            timeout=DOCKER_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except (FileNotFoundError, PermissionError):
        return Finding("docker", False, f"{needed_for} needs Docker; {docker_bin!r} is not installed", fix)
    except subprocess.TimeoutExpired:
        return Finding("docker", False, f"`{docker_bin} info` did not answer in {DOCKER_TIMEOUT_S} s", fix)
    if probe.returncode != 0:
        reason = (probe.stderr.strip().splitlines() or ["no reason given"])[-1][:200]
        return Finding("docker", False, f"{needed_for} needs Docker, which is not running: {reason}", fix)
    return Finding("docker", True, f"Docker engine {probe.stdout.strip()}")


def check_aws(connect: Callable[[], AwsApi]) -> tuple[Finding, AwsApi | None, Identity | None]:
    """Credentials and region resolved through boto3 (``connect`` builds the :class:`AwsApi`)."""
    try:
        aws = connect()
        identity = aws.identity()
    except CliError as err:
        return Finding("aws", False, err.message, err.fix), None, None
    return Finding("aws", True, f"{identity.arn} in {identity.region}"), aws, identity


def check_bootstrap(aws: AwsApi, identity: Identity) -> Finding:
    """The CDK bootstrap stack (asset bucket, image repository, deploy roles) in this account/region."""
    env = f"aws://{identity.account}/{identity.region}"
    try:
        stack = aws.stack(BOOTSTRAP_STACK)
    except CliError as err:
        return Finding("bootstrap", False, err.message, "check the credentials' CloudFormation permissions")
    if stack is None or stack.status not in USABLE_STACK_STATES:
        state = "missing" if stack is None else stack.status
        return Finding(
            "bootstrap",
            False,
            f"{env} is not bootstrapped ({BOOTSTRAP_STACK}: {state})",
            "rerun with --bootstrap, or run `cdk bootstrap " + env + "`",
        )
    return Finding("bootstrap", True, f"{env} ({stack.status})")


def require(findings: list[Finding]) -> None:
    """Raise one :class:`PrerequisiteMissing` that lists every failed finding and its fix."""
    failed = [f for f in findings if not f.ok]
    if failed:
        names = ", ".join(f.name for f in failed)
        details = tuple(f"{f.name}: {f.detail}" + (f" -> fix: {f.fix}" if f.fix else "") for f in failed)
        raise PrerequisiteMissing(f"prerequisites missing: {names}", details=details)
