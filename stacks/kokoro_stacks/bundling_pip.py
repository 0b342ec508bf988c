"""The pip run that resolves the agent's dependencies for AgentCore's platform, and the pip it needs.

It runs the pip beside this Python (``.venv``'s, which ``setup.sh`` pins). pip releases before
:data:`MIN_PIP` check ``Requires-Python`` against the running 3.11 instead of the target 3.12 and cannot
resolve the agent's requirements (docs/decisions/020-bundling-pip.md). Standard library only, so the
check also runs in a Python that has no CDK installed.
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

TARGET_PLATFORM = ("--platform", "manylinux2014_aarch64", "--implementation", "cp", "--python-version", "3.12")
MIN_PIP = (26, 0)


BUNDLING_FAILED = "cannot bundle the agent: "  # how every BundlingError's message begins


class BundlingError(RuntimeError):
    """The agent cannot be bundled; the message, which begins with :data:`BUNDLING_FAILED`, says which file
    or which pip step failed."""


def pip_install_command(
    requirements: Path, target: Path, constraints: Path | None, local_packages: tuple[Path, ...] = ()
) -> list[str]:
    """``local_packages`` are project folders (pure Python): built here with this environment's
    setuptools (``--no-build-isolation``, so a ``--no-index`` requirements file still works)."""
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile"]
    command += [*TARGET_PLATFORM, "--only-binary=:all:", "--target", str(target), "-r", str(requirements)]
    if local_packages:
        command += ["--no-build-isolation", *(str(folder) for folder in local_packages)]
    return command + (["-c", str(constraints)] if constraints else [])


def check_pip(version: str | None = None) -> None:
    """Fail before resolving with the command that installs a pip able to resolve for another Python."""
    found = version or metadata.version("pip")
    numbers = tuple(int(part) for part in found.split(".")[:2] if part.isdigit())
    if numbers < MIN_PIP:
        wanted = ".".join(map(str, MIN_PIP))
        raise BundlingError(
            f"cannot bundle the agent: pip {found} cannot resolve packages for Python 3.12 from Python "
            f"{sys.version.split()[0]}; install pip >= {wanted} with: {sys.executable} -m pip install 'pip>={wanted}' "
            "(./setup.sh does this)"
        )
