"""A small project to bundle (agent/, a copy of the real speech_protocol package) whose requirements pip
resolves offline from wheels made here (``--no-index``): the agent bundle's tests never write the real tree
and never reach an index."""

from __future__ import annotations

import base64
import hashlib
import shutil
import zipfile
from pathlib import Path

from stack_synth import REPO_ROOT

from kokoro_stacks.project import ProjectPaths

REAL_PACKAGE = REPO_ROOT / "speech_protocol"


def make_wheel(folder: Path, name: str, tag: str) -> None:
    """A minimal valid wheel holding ``<name>/__init__.py``."""
    dist_info = f"{name}-0.1.dist-info"
    files = {
        f"{name}/__init__.py": f"NAME = {name!r}\n",
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n",
        f"{dist_info}/WHEEL": f"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: {tag.startswith('py3')}\nTag: {tag}\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    files[f"{dist_info}/RECORD"] = "\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n"
    with zipfile.ZipFile(folder / f"{name}-0.1-{tag}.whl", "w") as wheel:
        for path, text in files.items():
            wheel.writestr(path, text)


def small_project(tmp_path: Path) -> ProjectPaths:
    """The project in ``tmp_path / "project"``, its wheels in ``tmp_path / "wheels"``."""
    root = tmp_path / "project"
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    make_wheel(wheels, "puredep", "py3-none-any")
    make_wheel(wheels, "armdep", "cp312-cp312-manylinux2014_aarch64")
    make_wheel(wheels, "hostdep", "cp311-cp311-manylinux2014_x86_64")
    (root / "agent" / "voice_agent" / "__pycache__").mkdir(parents=True)
    (root / "agent" / "main.py").write_text("print('agent')\n")
    (root / "agent" / "voice_agent" / "__init__.py").write_text("")
    (root / "agent" / "voice_agent" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    (root / "agent" / "requirements.txt").write_text(f"--no-index\n--find-links {wheels}\npuredep==0.1\narmdep==0.1\n")
    shutil.copytree(
        REAL_PACKAGE, root / "speech_protocol", ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    )
    return ProjectPaths(root)
