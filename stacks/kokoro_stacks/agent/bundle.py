"""Bundles the agent's code artifact on this machine, without Docker: the zip AgentCore runs on arm64.

pip resolves ``agent/requirements.txt`` for the runtime's platform, not this one (manylinux2014 aarch64,
CPython 3.12, wheels only: nothing is compiled here), pinned by the project's ``constraints.txt`` so the
bundle holds the versions the tests ran. The same pip run installs the shared ``speech_protocol``
package from a copy of its folder (pure Python, built here: pip builds a local project in its own folder,
and the repository is no place for its build/ and egg-info); the agent's sources go on top.

The pip command itself, which pip can run it, and the probe of its index are in :mod:`kokoro_stacks.agent.bundle_pip`. The asset's
hash is :func:`bundle_fingerprint`, over every input of the bundle: CDK skips bundling into a ``cdk.out``
that already holds a bundle of that hash (docs/decisions/139-the-agent-bundle-hash.md).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from pathlib import Path

import jsii
from aws_cdk import BundlingOptions, DockerImage, FileSystem, ILocalBundling

from kokoro_stacks.agent.bundle_pip import (
    BUNDLING_FAILED,
    TARGET_PLATFORM,
    BundlingError,
    check_pip,
    index_url,
    pip_install_command,
    unreachable,
)
from kokoro_stacks.project import ProjectPaths

ENTRYPOINT = "main.py"
# BundlingOptions requires an image; it is never run, because AgentBundler either bundles or raises.
UNUSED_BUNDLING_IMAGE = DockerImage.from_registry("public.ecr.aws/sam/build-python3.12")
_UNREAD_AGENT_FILES = ("__pycache__", "*.pyc", "*.egg-info", "Dockerfile", "*.dockerignore")  # not in the bundle
# requirements.txt is read by pip but not copied into the bundle.
_SKIPPED_SOURCES = shutil.ignore_patterns(*_UNREAD_AGENT_FILES, "requirements.txt")
_BUILD_OUTPUT_NAMES = ("__pycache__", "*.pyc", "*.egg-info", "build")
_BUILD_OUTPUTS = shutil.ignore_patterns(*_BUILD_OUTPUT_NAMES)


def bundle_fingerprint(paths: ProjectPaths) -> str:
    """The agent folder, the speech_protocol package, the pins and pip's target platform, hashed: the code
    asset's hash. CDK's own hash covers only the asset's folder (agent/), so an edit of speech_protocol or
    of a pin, synthesized again into the same ``cdk.out``, kept the old bundle."""
    parts = [
        FileSystem.fingerprint(str(paths.agent_dir), exclude=list(_UNREAD_AGENT_FILES)),
        FileSystem.fingerprint(str(paths.protocol_package), exclude=list(_BUILD_OUTPUT_NAMES)),
        FileSystem.fingerprint(str(paths.constraints)) if paths.constraints.is_file() else "no constraints",
        " ".join(TARGET_PLATFORM),
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def bundle_agent(paths: ProjectPaths, output_dir: Path) -> None:
    """Dependencies first, then the sources on top, so a dependency can never shadow the agent's code."""
    requirements = paths.agent_dir / "requirements.txt"
    for required in (requirements, paths.agent_dir / ENTRYPOINT, paths.protocol_package / "pyproject.toml"):
        if not required.is_file():
            raise BundlingError(f"cannot bundle the agent: {required} does not exist")
    check_pip()
    constraints = paths.constraints
    with tempfile.TemporaryDirectory(prefix="agent-bundle-") as scratch:
        protocol = shutil.copytree(paths.protocol_package, Path(scratch) / "speech_protocol", ignore=_BUILD_OUTPUTS)
        command = pip_install_command(
            requirements, output_dir, constraints if constraints.is_file() else None, (protocol,)
        )
        result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        index = index_url()
        down = unreachable(index)
        if down is not None:
            raise BundlingError(
                f"cannot bundle the agent: the package index {index} cannot be reached ({down}); bundling downloads "
                "the agent's arm64 wheels, so connect to it (or set PIP_INDEX_URL to a mirror), or synth only the "
                "model stack: cdk synth KokoroTtsModel --exclusively"
            )
        raise BundlingError(
            f"cannot bundle the agent: pip could not resolve its arm64 dependencies:\n{result.stderr[-4000:]}"
        )
    shutil.copytree(paths.agent_dir, output_dir, ignore=_SKIPPED_SOURCES, dirs_exist_ok=True)


def bundling_failure(error: BaseException) -> str | None:
    """The :class:`BundlingError` message inside the error jsii raises for a failed bundling callback (jsii
    keeps only the text), so ``app.py`` can print it without jsii's and the CDK's stack traces."""
    message = str(error)
    start = message.find(BUNDLING_FAILED)
    return message[start:] if start >= 0 else None


@jsii.implements(ILocalBundling)
class AgentBundler:
    """The CDK side of :func:`bundle_agent`: called at synth unless bundling is skipped for the stack."""

    def __init__(self, paths: ProjectPaths):
        self._paths = paths

    def try_bundle(self, output_dir: str, options: BundlingOptions) -> bool:  # jsii passes both positionally
        bundle_agent(self._paths, Path(output_dir))
        return True
