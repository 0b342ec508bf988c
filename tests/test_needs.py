"""The need markers of tests/needs.py, on tests whose needs are known: found through fixtures, helpers,
imports inside a test, and commands; the marks ``./test.sh --fast`` selects by."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

import pytest
from needs import heaviest_first, needs_of_function, scope
from servers import REPO

FILES = (
    "tests/protocol/test_tts_session.py",  # the shared server by fixture, scripted servers beside it
    "tests/agent/test_conversation.py",  # the recognizer imported inside one test
    "tests/container/test_engine.py",  # the model in-process, through a module fixture
    "tests/cli/deploy/test_deploy_model.py",  # the cdk CLI behind a command
)
REPORTER = """
def pytest_collection_finish(session):
    for item in session.items:
        print("MARKS", item.nodeid.split("::")[-1], *sorted(m.name for m in item.iter_markers()))
"""


@pytest.fixture(scope="module")
def marks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[str]]:
    """Each test of FILES by name, with the markers a collection gives it."""
    plugin = tmp_path_factory.mktemp("plugin")
    (plugin / "report_marks.py").write_text(REPORTER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "report_marks", "--collect-only", *FILES]
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    found: dict[str, set[str]] = {}
    for line in result.stdout.splitlines():
        if line.startswith("MARKS "):
            name, *names = line.split()[1:]
            found.setdefault(name.split("[")[0], set()).update(names)
    return found


NEEDS = {"server", "recognizer", "browser", "cdk", "aws_emulator", "model", "network", "unit"}


@pytest.mark.parametrize(
    ("test", "expected"),
    [
        ("test_real_server_speaks_pieces_in_order", {"server"}),
        ("test_pieces_are_sent_before_earlier_audio_arrives", {"unit"}),
        ("test_real_model_server_speaks_a_turn_and_an_interrupt_silences_it", {"server", "recognizer"}),
        ("test_bye_ends_the_turn_and_closes_the_socket", {"unit"}),
        ("test_real_synthesis_starts_speaking_at_once", {"model"}),
        ("test_one_chunk_per_sentence", {"unit"}),
        ("test_synth_runs_the_real_cdk_offline_and_writes_the_template", {"cdk"}),
        ("test_smoke_passes_against_the_real_local_server", {"server"}),
        ("test_bad_values_are_usage_errors", {"unit"}),
    ],
)
def test_each_test_is_marked_by_what_it_needs(marks: dict[str, set[str]], test: str, expected: set[str]) -> None:
    assert marks[test] & NEEDS == expected


def test_a_module_imported_inside_a_function_is_a_need() -> None:
    """Helpers import kokoro inside themselves (tests/container/random_kokoro.py), so that collecting their
    modules stays light on a ``--fast`` run; their tests still need the model. (The probes are compiled from
    text: written here as functions, they would make this test itself need the model.)"""
    assert needs_of_function(_probe("from kokoro.istftnet import Decoder"), set()) == {"model"}
    assert needs_of_function(_probe("from pathlib import Path"), set()) == set()


def _probe(statement: str) -> Callable[[], None]:
    namespace: dict[str, Callable[[], None]] = {}
    exec(compile(f"def probe():\n    {statement}\n", "<probe>", "exec"), namespace)  # noqa: S102 - the suite's own text
    return namespace["probe"]


def test_recognition_gets_its_longer_limit(marks: dict[str, set[str]]) -> None:
    assert "timeout" in marks["test_real_model_server_speaks_a_turn_and_an_interrupt_silences_it"]
    assert "timeout" not in marks["test_one_chunk_per_sentence"]


def test_a_parallel_worker_takes_a_file_or_the_stacks_folder_whole() -> None:
    assert scope("tests/agent/test_app.py::test_x[a-b]") == "tests/agent/test_app.py"
    assert scope("tests/stacks/test_nag.py::test_y") == scope("tests/stacks/test_model_stack.py::test_z")


def test_the_documented_pages_are_one_scope() -> None:
    """The pages share the servers and commands several of them run (documented_commands.Shared): one worker
    takes them all, after each other, and the shared servers' last test after them."""
    page = "tests/docs/test_documented_commands.py::test_documented_commands_run_as_written[{}]"
    last = "tests/docs/test_documented_commands.py::test_servers_that_pages_share_exit_0_on_ctrl_c"
    assert scope(page.format("README.md")) == scope(page.format("benchmark.md")) == scope(last)


class _Collected:
    """What heaviest_first reads of a collected test: its id and its markers."""

    def __init__(self, nodeid: str, *needs: str):
        self.nodeid = nodeid
        self.marks = [getattr(pytest.mark, need).mark for need in needs]

    def iter_markers(self) -> list:
        return self.marks


def test_workers_take_the_scopes_of_the_longest_tests_first() -> None:
    items = [
        _Collected("tests/a/test_unit.py::t1", "unit"),
        _Collected("tests/a/test_speech.py::t1", "server"),
        _Collected("tests/a/test_speech.py::t2", "server", "recognizer"),
        _Collected("tests/stacks/test_x.py::t1", "unit"),
        _Collected("tests/stacks/test_y.py::t1", "cdk"),
    ]
    heaviest_first(items)  # stand-ins with what it reads of a pytest.Item
    assert [item.nodeid for item in items] == [
        "tests/a/test_speech.py::t1",
        "tests/a/test_speech.py::t2",
        "tests/stacks/test_x.py::t1",
        "tests/stacks/test_y.py::t1",
        "tests/a/test_unit.py::t1",
    ]


def test_a_parallel_run_takes_the_heaviest_scopes_first() -> None:
    """On a real pytest-xdist worker, which collects with ``dist`` reset to "no": the scheduler keeps the order
    the workers collected in, so the documented pages (the longest scope) must lead it there. One worker runs
    its queue in that order; a unit file that sorts before them by path comes after."""
    pages = "tests/docs/test_documented_commands.py::test_every_fence_is_parsed_and_tagged_known"
    unit = "tests/agent/test_agent_pool.py"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "1", "--dist", "loadscope"]
        + ["--no-loadscope-reorder", "-v", unit, pages],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    ran = [line.split()[-1] for line in done.stdout.splitlines() if " PASSED " in line]
    assert done.returncode == 0 and ran[0] == pages, done.stdout[-3000:]
    assert any(test.startswith(unit) for test in ran[1:]), ran


def test_every_marker_is_registered() -> None:
    pyproject = (REPO / "pyproject.toml").read_text()
    assert all(f'"{name}: ' in pyproject for name in NEEDS)


def test_the_documented_commands_start_before_any_recognition() -> None:
    """Every page's commands run one after the other, longer than any recognition file: they go first."""
    items = [
        _Collected("tests/a/test_speech.py::t1", "server", "recognizer"),
        _Collected("tests/docs/test_documented_commands.py::test_page[README.md]", "server", "network"),
    ]
    heaviest_first(items)
    assert items[0].nodeid.startswith("tests/docs/test_documented_commands.py::")
