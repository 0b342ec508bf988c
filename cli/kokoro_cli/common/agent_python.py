"""The agent's Python 3.12 environment (``.venv312``, made by ``./setup.sh``), for the CLIs on 3.11.

The SageMaker streaming SDK exists for Python >= 3.12 only, and the agent deploys on 3.12. Where the
CLI's own interpreter lacks the SDK, what needs it (deploy-model's session check, deploy-agent local
over the SageMaker transport) runs in this environment as a subprocess.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
AGENT_PYTHON = REPO / ".venv312" / "bin" / "python"
MISSING = (
    "the SageMaker streaming client needs Python 3.12 (this is Python {version}) and {python} does not "
    "exist. Fix: install Python 3.12 (python3.12 on PATH, or pyenv's 3.12), then rerun ./setup.sh"
)


def sdk_here() -> bool:
    """Whether this interpreter has the SageMaker streaming SDK."""
    try:
        import aws_sdk_sagemaker_runtime_http2.models  # noqa: F401 - imported only to learn whether it is installed
    except ImportError:
        return False
    return True


def missing_message(python: Path = AGENT_PYTHON) -> str:
    shown = python.relative_to(REPO) if python.is_relative_to(REPO) else python
    return MISSING.format(version=platform.python_version(), python=shown)


def subprocess_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This environment, with the project's source folders first on the subprocess's import path."""
    folders = (REPO, *(REPO / name for name in ("container", "agent", "speech_protocol", "cli", "devtools")))
    paths = [*map(str, folders), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, **(extra or {}), "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
