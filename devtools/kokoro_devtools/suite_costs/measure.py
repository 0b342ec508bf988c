"""A pytest plugin (``-p kokoro_devtools.suite_costs.measure --cost-map FILE``): each test file's wall seconds
and the CPU seconds of the whole process tree that ran it, written to FILE as JSON at the end of the run.

CPU is the suite's scarce resource on a 2-core machine (both cores are busy most of a parallel run), and most
of it is spent outside the test's own process: in the model servers, G2P workers, CLIs and ``cdk`` it
starts. So a test's CPU is that of its worker's whole tree, read from ``/proc`` before and after each phase
(set-up, call, tear-down): the worker itself, the children it has reaped (their time is in its ``cutime``),
and each live descendant with the children that one reaped. A shared server started by one file's first test
and serving others is counted with whichever test it is working for at the time. Under pytest-xdist each
worker measures its own tests, and the controller gathers the figures through the test reports.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from collections.abc import Generator
from pathlib import Path

import pytest

from kokoro_processes.tree import tree_cpu_seconds

_KEY = "suite_cost"
_CPU_START = pytest.StashKey[float]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cost-map", metavar="FILE", help="write each test file's wall and CPU seconds to FILE (JSON)")


def _measured(item: pytest.Item) -> Generator[None, object, object]:
    item.stash[_CPU_START] = tree_cpu_seconds()
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, object, object]:
    return (yield from _measured(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    return (yield from _measured(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, object, object]:
    return (yield from _measured(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Generator[None, object, object]:
    report = yield
    if item.config.getoption("cost_map") and _CPU_START in item.stash:
        cpu = tree_cpu_seconds() - item.stash[_CPU_START]
        report.user_properties.append((_KEY, {"wall_s": call.duration, "cpu_s": cpu}))  # type: ignore[attr-defined]
    return report


class _Tally:
    """The controller's sum of the figures each test's reports carry (a run without workers is its own)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.files: dict[str, dict[str, float]] = {}
        self.tests: set[str] = set()
        self.started = time.monotonic()
        self.cpu_started = tree_cpu_seconds()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for key, value in report.user_properties:
            if key == _KEY and isinstance(value, dict):
                path = report.nodeid.split("::", 1)[0]
                row = self.files.setdefault(path, {"tests": 0, "wall_s": 0.0, "cpu_s": 0.0})
                row["wall_s"] += value["wall_s"]
                row["cpu_s"] += value["cpu_s"]
                if report.nodeid not in self.tests:
                    self.tests.add(report.nodeid)
                    row["tests"] += 1

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        results = {
            "commit": _commit(self.config.rootpath),
            "machine": f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}",
            "workers": getattr(self.config.option, "numprocesses", None) or 1,
            "tests": len(self.tests),
            "wall_s": round(time.monotonic() - self.started, 1),
            "cpu_s": round(tree_cpu_seconds() - self.cpu_started, 1),
            "files": {
                path: {"tests": int(row["tests"]), "wall_s": round(row["wall_s"], 1), "cpu_s": round(row["cpu_s"], 1)}
                for path, row in sorted(self.files.items())
            },
        }
        out = Path(self.config.getoption("cost_map"))
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("cost_map") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Tally(config), "suite-cost-tally")


def _commit(root: Path) -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True)
    return done.stdout.strip() or "unknown"
