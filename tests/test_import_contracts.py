"""The layering, as import contracts (pyproject.toml's [tool.importlinter], docs/decisions/118-import-contracts.md)
checked by import-linter: the protocol imports nothing of the project, the server and the agent never import
each other, the benchmark and the CLIs sit on top, and no package has an import cycle at any depth."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from servers import REPO

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
# Where each root package lives in the repository.
PACKAGE_DIRS = {
    "speech_protocol": REPO / "speech_protocol" / "speech_protocol",
    "kokoro_server": REPO / "container" / "kokoro_server",
    "voice_agent": REPO / "agent" / "voice_agent",
    "kokoro_processes": REPO / "kokoro_processes",
    "kokoro_cli": REPO / "cli" / "kokoro_cli",
    "kokoro_bench": REPO / "bench" / "kokoro_bench",
    "kokoro_stacks": REPO / "stacks" / "kokoro_stacks",
    "kokoro_devtools": REPO / "devtools" / "kokoro_devtools",
}


def lint_imports(root: Path, config: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the packages under ``root``, with no cache (nothing is written into the tree)."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(config), "--no-cache", "--no-logo"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture()
def copied(tmp_path: Path) -> Path:
    """The project's packages, copied flat under one folder, for contracts to be broken on purpose."""
    for name, folder in PACKAGE_DIRS.items():
        shutil.copytree(folder, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "*.json", "*.html"))
    return tmp_path


def test_every_root_package_is_under_contract() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    assert sorted(config["root_packages"]) == sorted(PACKAGE_DIRS)
    assert all(folder.joinpath("__init__.py").is_file() for folder in PACKAGE_DIRS.values())


def test_the_project_keeps_its_import_contracts(copied: Path) -> None:
    result = lint_imports(copied, REPO / "pyproject.toml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 kept, 0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        ("speech_protocol/pace.py", "import kokoro_server.admission", "speech_protocol imports nothing"),
        ("kokoro_server/admission.py", "import voice_agent.events", "do not import each other"),
        ("speech_protocol/pieces/cuts.py", "import voice_agent.events", "speech_protocol imports nothing"),
        ("voice_agent/events.py", "import kokoro_bench.texts", "layers"),
        ("kokoro_bench/run.py", "import kokoro_cli.typer_app", "layers"),
        ("kokoro_bench/measuring/timeline.py", "import kokoro_bench.reporting.cost", "bench: its command line"),
        ("kokoro_server/engine/backend.py", "import kokoro_server.engine.onnx_backend", "no import cycle"),
    ],
)
def test_an_import_against_the_layering_breaks_a_contract(copied: Path, module: str, line: str, broken: str) -> None:
    with (copied / module).open("a", encoding="utf-8") as source:
        source.write(f"\n{line}\n")
    result = lint_imports(copied, REPO / "pyproject.toml")
    assert result.returncode != 0
    assert "BROKEN" in result.stdout and broken in result.stdout.split("Broken contracts")[-1]
