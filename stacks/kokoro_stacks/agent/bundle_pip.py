"""The pip run that resolves the agent's dependencies for AgentCore's platform, the pip it needs, and
whether its package index answers.

It runs the pip beside this Python (``.venv``'s, which ``setup.sh`` pins). pip releases before
:data:`MIN_PIP` check ``Requires-Python`` against the running 3.11 instead of the target 3.12 and cannot
resolve the agent's requirements (docs/decisions/020-bundling-pip.md). Standard library only, so the
check also runs in a Python that has no CDK installed.

Bundling the agent downloads its arm64 wheels, so ``cdk synth`` of the agent stack needs the index
(docs/decisions/111-what-offline-means.md). Without it pip reports ``ResolutionImpossible ... conflicting
dependencies``, which names the wrong cause; after a failed pip run :func:`unreachable` names the right one.
"""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path

AGENTCORE_PLATFORM = "manylinux2014_aarch64"  # what AgentCore runs a code zip on: Linux arm64, CPython 3.12
PYTHON_VERSION = "3.12"
MIN_PIP = (26, 0)
DEFAULT_INDEX = "https://pypi.org/simple/"
PROBE_TIMEOUT_S = 10


BUNDLING_FAILED = "cannot bundle the agent: "  # how every BundlingError's message begins


class BundlingError(RuntimeError):
    """The agent cannot be bundled; the message, which begins with :data:`BUNDLING_FAILED`, says which file
    or which pip step failed."""


def target_platform(platform: str = AGENTCORE_PLATFORM) -> tuple[str, ...]:
    """pip's options that resolve for ``platform`` (a wheel platform tag) and CPython 3.12 instead of this Python.
    The AgentCore emulator bundles for this machine's ``manylinux2014_<machine>`` to run the bundle here."""
    return ("--platform", platform, "--implementation", "cp", "--python-version", PYTHON_VERSION)


def pip_install_command(
    requirements: Path,
    target: Path,
    constraints: Path | None,
    local_packages: tuple[Path, ...] = (),
    platform: str = AGENTCORE_PLATFORM,
) -> list[str]:
    """``local_packages`` are project folders (pure Python): built here with this environment's
    setuptools (``--no-build-isolation``, so a ``--no-index`` requirements file still works)."""
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile"]
    command += [*target_platform(platform), "--only-binary=:all:", "--target", str(target), "-r", str(requirements)]
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


def index_url(env: Mapping[str, str] = os.environ) -> str:
    """The index pip uses: ``PIP_INDEX_URL``, else pip's configured ``index-url``, else PyPI."""
    if env.get("PIP_INDEX_URL"):
        return env["PIP_INDEX_URL"]
    configured = subprocess.run(
        [sys.executable, "-m", "pip", "config", "get", "global.index-url"], capture_output=True, text=True, check=False
    )
    return configured.stdout.strip() if configured.returncode == 0 and configured.stdout.strip() else DEFAULT_INDEX


def unreachable(url: str, timeout_s: float = PROBE_TIMEOUT_S) -> str | None:
    """Why ``url`` cannot be read (refused, no such host, timed out), or ``None`` if it answers at all."""
    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}/pip/", timeout=timeout_s):  # noqa: S310 - pip's own index
            return None
    except urllib.error.HTTPError:
        return None  # it answered: the index is there, whatever it thinks of this path
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        return str(reason)[:200] or type(err).__name__
