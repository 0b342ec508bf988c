"""A CLI starts without the libraries only some of its commands load: ``--help`` or a usage error imports no
AWS SDK, no Strands and no HTTP client (docs/decisions/140-cli-start-up.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
# Loaded by the commands that call AWS, serve the agent or call a server, never at start-up.
LATER = ("boto3", "botocore.session", "strands", "httpx")


def imported_by(command: list[str]) -> set[str]:
    """The top-level and dotted module names a command imported, from Python's own import-time report."""
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)
    assert "Usage" in done.stdout + done.stderr
    return {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}


@pytest.mark.parametrize("cli", ["deploy-model", "deploy-agent"])
@pytest.mark.parametrize("args", [["--help"], ["local", "--help"], ["--no-such-option"]])
def test_a_cli_starts_without_the_sdks_its_commands_load_later(cli: str, args: list[str]) -> None:
    modules = imported_by([str(BIN / cli), *args])
    assert "typer" in modules  # the report is read
    assert [name for name in LATER if name in modules] == []


def test_the_report_sees_a_library_a_command_does_load() -> None:
    """The negative control: the same reading finds boto3 where it is imported."""
    modules = imported_by([sys.executable, "-c", "import boto3; print('Usage')"])
    assert "boto3" in modules
