"""The working tree copied for a test that runs commands as a reader runs them in a checkout (they write cdk.out,
out/, result files there, and no test writes into the repository)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = (".venv", ".venv312", "node_modules", "assets")  # built by ./setup.sh: linked, not copied


def copy_repo(copy: Path, link_environments: bool = True) -> Path:
    """The files git sees (tracked and new) copied into ``copy``, the environments ./setup.sh built linked (or not:
    a fresh checkout, for a test that runs its set-up)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file() and not source.is_symlink() and name.split("/")[0] not in SHARED:
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    for name in SHARED if link_environments else ():
        if (REPO / name).exists():
            (copy / name).symlink_to((REPO / name).resolve())
    return copy
