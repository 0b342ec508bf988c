"""The suite's cost map (kokoro_devtools.suite_costs): a test's CPU is its whole process tree's, gathered per
file from parallel workers, and docs/test-costs.md is what tests/costs.json renders."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kokoro_devtools.suite_costs.page import PAGE, RESULTS, render

REPO = Path(__file__).resolve().parents[2]
# One test burns CPU in a child it waits for, one in a grandchild behind a shell: none in its own process, so
# a plugin that counted only the worker's own CPU would find next to nothing.
BURN = "x = 0\nfor i in range(3_000_000): x += i"
TESTS = f"""
import subprocess, sys
BURN = {BURN!r}

def test_child():
    subprocess.run([sys.executable, "-c", BURN], check=True)

def test_grandchild():
    subprocess.run(["bash", "-c", f"{{sys.executable}} -c '{{BURN}}'; true"], check=True)
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_each_file_gets_the_cpu_of_its_tests_whole_process_tree(tmp_path: Path, workers: list[str]) -> None:
    (tmp_path / "test_burn.py").write_text(TESTS, encoding="utf-8")
    (tmp_path / "test_idle.py").write_text("def test_nothing():\n    pass\n", encoding="utf-8")
    out = tmp_path / "costs.json"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *workers, "-c", "/dev/null"]
        + ["--rootdir", str(tmp_path), "-p", "kokoro_devtools.suite_costs.measure", "--cost-map", str(out)]
        + ["test_burn.py", "test_idle.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    costs = json.loads(out.read_text())
    burn, idle = costs["files"]["test_burn.py"], costs["files"]["test_idle.py"]
    assert (costs["tests"], burn["tests"], idle["tests"]) == (3, 2, 1)
    # two loops in other processes, each about a fifth of a CPU-second (and a Python start); an idle test
    # next to nothing
    assert burn["cpu_s"] >= 2 * 0.1 and burn["cpu_s"] > 10 * idle["cpu_s"], costs
    assert burn["wall_s"] > 0 and costs["cpu_s"] >= burn["cpu_s"]


def test_the_page_is_what_the_cost_map_renders() -> None:
    costs = json.loads((REPO / RESULTS).read_text(encoding="utf-8"))
    assert (REPO / PAGE).read_text(encoding="utf-8") == render(costs), "run: python -m kokoro_devtools.suite_costs"
    assert set(costs["files"]) <= {str(p.relative_to(REPO)) for p in (REPO / "tests").rglob("test_*.py")}, (
        "the cost map names test files that are gone: measure again with ./test.sh --cost-map"
    )


@pytest.mark.parametrize(
    ("costs", "argv", "code", "said"),
    [
        (None, [], 2, "error: tests/costs.json is not a cost map"),
        ("", [], 2, "error: tests/costs.json is not a cost map"),
        ('{"files": 3}', ["--check"], 2, "error: tests/costs.json is not a cost map"),
        ("x" * 100_000, [], 2, "error: tests/costs.json is not a cost map"),
        (None, ["--write", "everything"], 2, "usage: python -m kokoro_devtools.suite_costs [--check]"),
    ],
)
def test_a_missing_or_broken_cost_map_is_one_clear_error(
    tmp_path: Path, costs: str | None, argv: list[str], code: int, said: str
) -> None:
    if costs is not None:
        (tmp_path / "tests").mkdir()
        (tmp_path / "tests" / "costs.json").write_text(costs, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "kokoro_devtools.suite_costs", *argv], cwd=tmp_path, capture_output=True, text=True
    )
    assert (done.returncode, done.stderr.splitlines()[0][: len(said)]) == (code, said), done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "docs").exists()


def test_check_tells_a_stale_page_from_a_current_one(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "tests" / "costs.json").write_text((REPO / RESULTS).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "docs" / "test-costs.md").write_text("stale\n", encoding="utf-8")

    def run(*argv: str) -> int:
        return subprocess.run([sys.executable, "-m", "kokoro_devtools.suite_costs", *argv], cwd=tmp_path).returncode

    assert run("--check") == 1
    assert run() == 0 and run("--check") == 0
