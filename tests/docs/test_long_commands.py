"""The runner of ``long`` commands (tests/docs/documented_commands.py) on pages of its own: commands that
run side by side, each stopped with Ctrl-C once it has had its time, and the failures it must report."""

from __future__ import annotations

import os
from pathlib import Path

import documented_commands
import pytest
from documented_commands import blocks, page_run


def _run_page(tmp_path: Path, body: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setattr(documented_commands, "LONG_RUN_S", 2.0)
    page = tmp_path / "page.md"
    page.write_text(body, encoding="utf-8")
    logs = tmp_path / "logs"
    logs.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    with page_run(tmp_path, env, {}, logs) as run:
        for block in blocks(page, tmp_path):
            run.run(block, cuda=False)
    return run.failures


def test_long_commands_run_side_by_side_and_each_gets_ctrl_c(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The first command writes its file only once the second has started: run one at a time, it would wait
    # until its Ctrl-C and never write it. Each exits 130 on Ctrl-C, as the project's programs do.
    body = (
        "```bash long\n"
        "trap 'exit 130' INT; until [ -e second ]; do sleep 0.05; done; touch first; sleep 600\n"
        "trap 'exit 130' INT; touch second; sleep 600\n"
        "```\n"
        "```bash\n"
        "test -e second   # the command after the long ones runs while they do\n"
        "```\n"
    )
    assert _run_page(tmp_path, body, monkeypatch) == []
    assert (tmp_path / "first").exists()


def test_a_long_command_that_fails_or_ignores_its_exit_code_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = "```bash long\nexit 4\ntrap 'exit 130' INT; sleep 600\nexit 2\n#> [exit 2]\n```\n"
    failures = _run_page(tmp_path, body, monkeypatch)
    assert len(failures) == 1, failures
    assert "exit 4, documented 0" in failures[0]


def test_a_long_command_that_survives_ctrl_c_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Control: a command that ends with its own exit code on SIGINT, not as interrupted (130)."""
    body = "```bash long\ntrap 'exit 0' INT; while true; do sleep 0.1; done\n```\n"
    failures = _run_page(tmp_path, body, monkeypatch)
    assert len(failures) == 1, failures
    assert "exit 0, documented 130" in failures[0]
