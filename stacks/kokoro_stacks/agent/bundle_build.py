"""What goes into the agent's code bundle, and its build: pip for the target platform, then the sources on top.

pip resolves ``agent/requirements.txt`` for the runtime's platform, not this one (manylinux2014 aarch64,
CPython 3.12, wheels only: nothing is compiled here), pinned by the project's ``constraints.txt`` so the
bundle holds the versions the tests ran. The same pip run installs the shared ``speech_protocol``
package from a copy of its folder (pure Python, built here: pip builds a local project in its own folder,
and the repository is no place for its build/ and egg-info); the agent's sources go on top.

Standard library and pip only: the AgentCore emulator builds the same bundle for this machine's platform
without loading the CDK. The CDK's side (the asset, its hash) is :mod:`kokoro_stacks.agent.bundle`. A finished
bundle is copied from :mod:`kokoro_stacks.agent.bundle_cache` instead, when one is configured and holds one built
from the same inputs (:func:`bundle_key`).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path

from kokoro_stacks.agent.bundle_cache import BundleCache
from kokoro_stacks.agent.bundle_pip import (
    AGENTCORE_PLATFORM,
    BundlingError,
    check_pip,
    index_url,
    pip_install_command,
    unreachable,
)
from kokoro_stacks.project import ProjectPaths

ENTRYPOINT = "main.py"
UNREAD_AGENT_FILES = ("__pycache__", "*.pyc", "*.egg-info", "Dockerfile", "*.dockerignore")  # not in the bundle
BUILD_OUTPUT_NAMES = ("__pycache__", "*.pyc", "*.egg-info", "build")
# requirements.txt is read by pip but not copied into the bundle.
_SKIPPED_SOURCES = shutil.ignore_patterns(*UNREAD_AGENT_FILES, "requirements.txt")
_BUILD_OUTPUTS = shutil.ignore_patterns(*BUILD_OUTPUT_NAMES)


def bundle_agent(paths: ProjectPaths, output_dir: Path, platform: str = AGENTCORE_PLATFORM) -> None:
    """Dependencies first, then the sources on top, so a dependency can never shadow the agent's code.
    ``platform`` is the wheels' platform tag: AgentCore's, or this machine's for the AgentCore emulator."""
    requirements = paths.agent_dir / "requirements.txt"
    for required in (requirements, paths.agent_dir / ENTRYPOINT, paths.protocol_package / "pyproject.toml"):
        if not required.is_file():
            raise BundlingError(f"cannot bundle the agent: {required} does not exist")
    cache = BundleCache.configured()
    key = bundle_key(paths, platform, index_url()) if cache else ""
    if cache and cache.restore(key, output_dir):
        return
    check_pip()
    constraints = paths.constraints
    with tempfile.TemporaryDirectory(prefix="agent-bundle-") as scratch:
        protocol = shutil.copytree(paths.protocol_package, Path(scratch) / "speech_protocol", ignore=_BUILD_OUTPUTS)
        command = pip_install_command(
            requirements, output_dir, constraints if constraints.is_file() else None, (protocol,), platform
        )
        result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        index = index_url()
        down = unreachable(index)
        if down is not None:
            raise BundlingError(
                f"cannot bundle the agent: the package index {index} cannot be reached ({down}); bundling downloads "
                "the agent's wheels, so connect to it (or set PIP_INDEX_URL to a mirror), or synth only the "
                "model stack: cdk synth KokoroTtsModel --exclusively"
            )
        raise BundlingError(
            f"cannot bundle the agent: pip could not resolve its dependencies for {platform}:\n{result.stderr[-4000:]}"
        )
    shutil.copytree(paths.agent_dir, output_dir, ignore=_SKIPPED_SOURCES, dirs_exist_ok=True)
    if cache:
        cache.store(key, output_dir)


def bundle_key(paths: ProjectPaths, platform: str, index: str) -> str:
    """Every input of a bundle, hashed: the agent's files and the protocol package's (less what the bundle
    never reads), the pins, the target platform and the package index pip resolves from. Equal keys, equal
    bundles, as far as the pins pin (a dependency they leave open resolves to what the index had then, as
    CDK's own reuse of a ``cdk.out`` bundle keeps it)."""
    digest = hashlib.sha256(f"{platform}\0{index}\0".encode())
    inputs = [
        ("agent", paths.agent_dir, UNREAD_AGENT_FILES),
        ("speech_protocol", paths.protocol_package, BUILD_OUTPUT_NAMES),
    ]
    for label, folder, unread in inputs:
        for path in _files(folder, unread):
            digest.update(f"{label}/{path.relative_to(folder).as_posix()}\0".encode() + path.read_bytes() + b"\0")
    if paths.constraints.is_file():
        digest.update(b"constraints\0" + paths.constraints.read_bytes())
    return digest.hexdigest()


def _files(folder: Path, unread: tuple[str, ...]) -> Iterator[Path]:
    """The files under ``folder`` in a stable order, less those a part of whose path matches ``unread``."""
    for path in sorted(folder.rglob("*")):
        parts = path.relative_to(folder).parts
        if path.is_file() and not any(fnmatch(part, pattern) for part in parts for pattern in unread):
            yield path
