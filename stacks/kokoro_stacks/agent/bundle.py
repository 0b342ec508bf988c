"""Bundles the agent's code artifact on this machine, without Docker: the zip AgentCore runs on arm64.

What the bundle holds and how it is built is :mod:`kokoro_stacks.agent.bundle_build`; this is the CDK's side. The
pip command itself, which pip can run it, and the probe of its index are in :mod:`kokoro_stacks.agent.bundle_pip`. The asset's
hash is :func:`bundle_fingerprint`, over every input of the bundle: CDK skips bundling into a ``cdk.out``
that already holds a bundle of that hash (docs/decisions/139-the-agent-bundle-hash.md).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import jsii
from aws_cdk import BundlingOptions, DockerImage, FileSystem, ILocalBundling

from kokoro_stacks.agent.bundle_build import BUILD_OUTPUT_NAMES, UNREAD_AGENT_FILES, bundle_agent
from kokoro_stacks.agent.bundle_pip import BUNDLING_FAILED, target_platform
from kokoro_stacks.project import ProjectPaths

# BundlingOptions requires an image; it is never run, because AgentBundler either bundles or raises.
UNUSED_BUNDLING_IMAGE = DockerImage.from_registry("public.ecr.aws/sam/build-python3.12")


def bundle_fingerprint(paths: ProjectPaths) -> str:
    """The agent folder, the speech_protocol package, the pins and pip's target platform, hashed: the code
    asset's hash. CDK's own hash covers only the asset's folder (agent/), so an edit of speech_protocol or
    of a pin, synthesized again into the same ``cdk.out``, kept the old bundle."""
    parts = [
        FileSystem.fingerprint(str(paths.agent_dir), exclude=list(UNREAD_AGENT_FILES)),
        FileSystem.fingerprint(str(paths.protocol_package), exclude=list(BUILD_OUTPUT_NAMES)),
        FileSystem.fingerprint(str(paths.constraints)) if paths.constraints.is_file() else "no constraints",
        " ".join(target_platform()),
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def bundling_failure(error: BaseException) -> str | None:
    """The :class:`BundlingError` message inside the error jsii raises for a failed bundling callback (jsii
    keeps only the text), so ``app.py`` can print it without jsii's and the CDK's stack traces."""
    message = str(error)
    start = message.find(BUNDLING_FAILED)
    return message[start:] if start >= 0 else None


@jsii.implements(ILocalBundling)
class AgentBundler:
    """The CDK side of :func:`~kokoro_stacks.agent.bundle_build.bundle_agent`: called at synth unless bundling is skipped for the stack."""

    def __init__(self, paths: ProjectPaths):
        self._paths = paths

    def try_bundle(self, output_dir: str, options: BundlingOptions) -> bool:  # jsii passes both positionally
        bundle_agent(self._paths, Path(output_dir))
        return True
