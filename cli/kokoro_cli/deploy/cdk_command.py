"""Which `cdk` command line to run: pure functions, tested without a subprocess.

The CLIs only ever run the project's pinned CDK CLI (``node_modules/.bin/cdk``, installed by
``setup.sh``), from the project root where ``cdk.json`` names the app. Every option a user gives becomes
``-c key=value`` context that ``stacks/kokoro_stacks/settings/deploy_settings.py`` parses; nothing else reaches the app.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kokoro_stacks.project import PROJECT_NODE

PROJECT_ROOT = Path(__file__).resolve().parents[3]
PINNED_CDK = PROJECT_ROOT / "node_modules" / ".bin" / "cdk"
OUTPUT_DIR = "cdk.out"
# Only the named stack: the two stacks are independent, and without it `cdk` bundles every stack's
# assets (the model CLI would pip-install the agent's arm64 bundle just to synth the endpoint).
EXCLUSIVELY = "--exclusively"


@dataclass(frozen=True)
class CdkCall:
    """One `cdk` run: its argv and the environment variables it adds to the caller's."""

    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: Path = PROJECT_ROOT  # where cdk.json names the app

    def shell(self) -> str:
        """The exact command line, as a user would paste it into a shell (``--dry-run`` prints this)."""
        assignments = [f"{k}={shlex.quote(v)}" for k, v in sorted(self.env.items())]
        command = " ".join([*assignments, *(shlex.quote(a) for a in self.argv)])
        return f"cd {shlex.quote(str(self.cwd))} && {command}"


@dataclass(frozen=True)
class CdkTarget:
    """Where the app deploys to, and the context the user chose; shared by every `cdk` verb."""

    context: Mapping[str, str]
    region: str | None = None
    profile: str | None = None
    unattended: bool = False
    cdk_bin: str = str(PINNED_CDK)
    app: str | None = None  # a synthesized assembly directory to deploy instead of cdk.json's app

    def env(self, offline: bool = False) -> dict[str, str]:
        """``AWS_REGION``, not ``CDK_DEFAULT_REGION``: the CLI overwrites the latter (007-cdk-cli-environment.md)."""
        env: dict[str, str] = {}
        if self.region:
            env["AWS_REGION"] = env["AWS_DEFAULT_REGION"] = self.region
        if offline:
            # synth needs no account; without this the SDK probes the EC2 metadata service first.
            env["AWS_EC2_METADATA_DISABLED"] = "true"
        return env

    def cdk(self) -> list[str]:
        """How to start the CDK CLI: the pinned one on the pinned Node.js. Its ``#!/usr/bin/env node`` would
        take the machine's node, on which the AWS SDK inside cdk warns at every call (decision 021)."""
        if Path(self.cdk_bin) == PINNED_CDK and PROJECT_NODE.is_file():
            return [str(PROJECT_NODE), self.cdk_bin]
        return [self.cdk_bin]

    def common(self) -> list[str]:
        args = ["--app", self.app] if self.app else []
        args += [arg for key, value in sorted(self.context.items()) for arg in ("-c", f"{key}={value}")]
        if self.profile:
            args += ["--profile", self.profile]
        return args


def synth(target: CdkTarget, stack: str, output_dir: str = OUTPUT_DIR) -> CdkCall:
    """``cdk synth``: works offline with no credentials and no Docker (images are only staged)."""
    argv = [*target.cdk(), "synth", stack, EXCLUSIVELY, *target.common(), "--output", output_dir, "--quiet"]
    return CdkCall(tuple(argv), target.env(offline=True))


def diff(target: CdkTarget, stack: str, output_dir: str = OUTPUT_DIR) -> CdkCall:
    """``cdk diff``; it synthesizes the app first, into ``output_dir`` as ``synth`` does."""
    argv = (*target.cdk(), "diff", stack, EXCLUSIVELY, *target.common(), "--output", output_dir)
    return CdkCall(argv, target.env())


def deploy(
    target: CdkTarget,
    stack: str,
    *,
    approve_all: bool,
    outputs_file: str,
    direct: bool = False,
) -> CdkCall:
    """``cdk deploy``; ``approve_all`` (``--yes``, CI, or no terminal) skips the security-change prompt.

    ``direct`` deploys without a change set: moto's CloudFormation drops the outputs of change sets.
    """
    argv = [*target.cdk(), "deploy", stack, EXCLUSIVELY, *target.common(), "--outputs-file", outputs_file]
    argv += ["--require-approval", "never" if approve_all else "broadening"]
    if target.unattended:
        argv += ["--progress", "events"]
    if direct:
        argv += ["--method", "direct"]
    return CdkCall(tuple(argv), target.env())


def destroy(target: CdkTarget, stack: str, output_dir: str = OUTPUT_DIR) -> CdkCall:
    """``cdk destroy --force``: the CLI asks for confirmation itself (or was given ``--yes``). It synthesizes
    the app first, into ``output_dir`` as ``synth`` does (``--out-dir``), not into the project's cdk.out."""
    argv = (*target.cdk(), "destroy", stack, EXCLUSIVELY, *target.common(), "--output", output_dir, "--force")
    return CdkCall(argv, target.env())


def bootstrap(target: CdkTarget, account: str, region: str, output_dir: str = OUTPUT_DIR) -> CdkCall:
    """``cdk bootstrap``; in a CDK project it synthesizes the app first, into ``output_dir``."""
    argv = [*target.cdk(), "bootstrap", f"aws://{account}/{region}", *target.common(), "--output", output_dir]
    return CdkCall(tuple(argv), target.env())


def template_path(stack: str, output_dir: str = OUTPUT_DIR) -> Path:
    """Where ``cdk synth`` writes a stack's template (a relative ``output_dir`` is the project root's)."""
    return PROJECT_ROOT / output_dir / f"{stack}.template.json"
