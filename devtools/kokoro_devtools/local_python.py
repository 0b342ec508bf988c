"""Which Python ``major.minor`` interpreter on this machine stands for the one a deployment target runs.

Both the images' stand-in base (``python:3.12-slim``) and the AgentCore emulator's runtime (``PYTHON_3_12``)
need a bare interpreter of a given version. ``./setup.sh`` finds one for ``.venv312``; a venv's own ``python``
would bring the venv's packages along, so :func:`base_interpreter` goes through it to the interpreter it was
made from.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


class NoSuchPython(RuntimeError):
    """No interpreter of the version asked for is on this machine."""


def local_python(major: int, minor: int) -> Path:
    """A Python ``major.minor`` on this machine: ``$PYTHON312`` (or its like), ``.venv312``'s, or on PATH."""
    candidates = [
        os.environ.get(f"PYTHON{major}{minor}"),
        str(REPO / f".venv{major}{minor}" / "bin" / "python"),
        shutil.which(f"python{major}.{minor}"),
    ]
    for candidate in candidates:
        if candidate and Path(candidate).exists():
            return Path(candidate)
    raise NoSuchPython(f"no Python {major}.{minor} on this machine: install it (or set PYTHON{major}{minor}), then "
                       "rerun ./setup.sh")  # fmt: skip


def base_interpreter(python: Path) -> Path:
    """The interpreter ``python`` runs on: itself, or the one its venv was made from."""
    probe = [str(python), "-c", "import sys; print(sys._base_executable)"]
    return Path(subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip())
