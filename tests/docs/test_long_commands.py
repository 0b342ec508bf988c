"""The runner of documented commands (tests/docs/documented_commands.py) on pages of its own: ``long``
commands that run side by side, each stopped with Ctrl-C once it is into its work, the failures it must
report, and what several pages share (a server they all start, a command they all run)."""

from __future__ import annotations

import os
from pathlib import Path

import documented_commands
import pytest
from documented_commands import Shared, blocks, page_ports, page_run


def _run_page(
    tmp_path: Path, body: str, monkeypatch: pytest.MonkeyPatch, shared: Shared | None = None, name: str = "page"
) -> list[str]:
    monkeypatch.setattr(documented_commands, "LONG_RUN_S", 2.0)
    page = tmp_path / f"{name}.md"
    page.write_text(body, encoding="utf-8")
    logs = tmp_path / f"{name}-logs"
    logs.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    page_blocks = blocks(page, tmp_path)
    with page_run(tmp_path, env, page_ports(page_blocks, shared), logs, shared) as run:
        for block in page_blocks:
            run.run(block, cuda=False)
    return run.failures


def test_long_commands_run_side_by_side_and_each_gets_ctrl_c(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The first command writes its file only once the second has started: run one at a time, it would wait
    # until its Ctrl-C and never write it. Each exits 130 on Ctrl-C, as the project's programs do. The command
    # after them waits for the second's file, not for a time: under load bash may start it a while later.
    body = (
        "```bash long\n"
        "trap 'exit 130' INT; until [ -e second ]; do sleep 0.05; done; touch first; sleep 600\n"
        "trap 'exit 130' INT; touch second; sleep 600\n"
        "```\n"
        "```bash\n"
        "until [ -e second ]; do sleep 0.05; done   # the command after the long ones runs while they do\n"
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


@pytest.mark.timeout(60)
def test_a_long_command_gets_ctrl_c_once_it_has_printed_its_first_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its first line says it is past its start: it is stopped then, not after the bound (an hour here; the
    test's own 60 s limit fails it if the runner waits that out)."""
    body = "```bash long\ntrap 'echo stopped >> seen; exit 130' INT; echo ready; sleep 600\n```\n"
    (tmp_path / "seen").write_text("")
    monkeypatch.setattr(documented_commands, "LONG_RUN_S", 3600.0)
    page = tmp_path / "page.md"
    page.write_text(body, encoding="utf-8")
    with page_run(tmp_path, {"PATH": os.environ["PATH"]}, {}, tmp_path) as run:
        for block in blocks(page, tmp_path):
            run.run(block, cuda=False)
    assert run.failures == [] and (tmp_path / "seen").read_text() == "stopped\n"


def test_a_server_two_pages_start_is_started_once_on_one_port(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both pages start the same server on 8090 and reach it there; it starts once (its log of starts has one
    line), lives on past the first page, and ends on Ctrl-C with exit 0 after the last."""
    server = "echo start >> starts; exec python3 -m http.server --bind 127.0.0.1 8090"  # Ctrl-C: exit 0
    pages = [f"```bash\n{server} &\ncurl -sf localhost:8090/{name}.md -o /dev/null\n```\n" for name in ("a", "b")]
    other = "```bash\npython3 -m http.server --bind 127.0.0.1 8090 &\n```\n"  # one page's own: not shared
    page_blocks = [blocks(_write(tmp_path, f"{n}.md", body), tmp_path) for n, body in zip("abc", [*pages, other])]
    shared = Shared.of(page_blocks)
    assert shared.repeated == {server}
    assert (
        page_ports(page_blocks[0], shared) == page_ports(page_blocks[1], shared) != page_ports(page_blocks[2], shared)
    )
    for name, body in zip("ab", pages):
        assert _run_page(tmp_path, body, monkeypatch, shared, name=f"run-{name}") == []
        assert len(shared.servers) == 1
    assert (tmp_path / "starts").read_text() == "start\n"
    assert shared.stop() == [] and shared.servers == {}


def test_a_command_two_pages_run_identically_runs_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second page's copy is judged by the first's outcome (its exit code and documented first line); within
    one page a command run twice runs twice. Control: an exit code that the second page documents otherwise
    fails there, from the same outcome."""
    shared = Shared(frozenset())
    twice = "```bash\necho run >> runs; echo hello\n#> hello\necho run >> runs; echo hello\n```\n"
    assert _run_page(tmp_path, twice, monkeypatch, shared, name="first") == []
    assert _run_page(tmp_path, twice, monkeypatch, shared, name="second") == []
    assert (tmp_path / "runs").read_text() == "run\n" * 2
    documented_otherwise = "```bash\necho run >> runs; echo hello\n#> [exit 3]\n```\n"
    failures = _run_page(tmp_path, documented_otherwise, monkeypatch, shared, name="third")
    assert len(failures) == 1 and "exit 0, documented 3" in failures[0], failures
    assert (tmp_path / "runs").read_text() == "run\n" * 2


def _write(folder: Path, name: str, body: str) -> Path:
    (folder / name).write_text(body, encoding="utf-8")
    return folder / name
