"""Every shell command in README.md and docs/*.md runs as written and does what its page says.

How commands are marked, and what each mark asks of them: tests/docs/documented_commands.py. Each page
runs in a copy of the repository (nothing is written here), with no AWS credentials anywhere, no
virtual environment on PATH (the pages say `.venv/bin/...`), and its well-known ports moved to free ones.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from documented_commands import TAGS, Block, Shared, blocks, page_ports, page_run
from repo_copy import copy_repo

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
# The folders that hold the project's packages (pyproject's [tool.setuptools.packages.find] where).
PACKAGE_FOLDERS = ("container", "agent", "speech_protocol", "cli", "stacks", "bench", "devtools", ".")
NO_AWS = {
    "AWS_CONFIG_FILE": "/nonexistent/aws-config",
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-credentials",
    "AWS_EC2_METADATA_DISABLED": "true",
}


def _page_blocks() -> dict[Path, list[Block]]:
    return {page: found for page in PAGES if (found := blocks(page, REPO))}


def _param(page: Path, page_blocks: list[Block]) -> object:
    quick = all(block.tags & {"aws", "manual"} for block in page_blocks)
    return pytest.param(page, id=page.name, marks=() if quick else (pytest.mark.slow,))


PAGE_BLOCKS = _page_blocks()


@pytest.fixture(scope="module")
def repo_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The working tree as git sees it (tracked and new files), with the environments ./setup.sh built."""
    return copy_repo(tmp_path_factory.mktemp("repo"))


@pytest.fixture(scope="module")
def reader_env(repo_copy: Path) -> dict[str, str]:
    """A reader's shell: no AWS anywhere, no virtual environment activated, none of the settings the suite
    gives its own servers (tests/conftest.py: KOKORO_ONNX_SPIN, OMP_WAIT_POLICY), so the pages' servers run
    with the product's defaults."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("AWS_", "CDK_", "JSII_", "KOKORO_")) and k not in ("CI", "OMP_WAIT_POLICY")
    }
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if "/.venv" not in p)
    # The copy's code, never the checkout's: .venv's editable install points at the checkout, whose CLIs
    # would write their cdk.out there. PYTHONPATH goes before the editable install's paths and finder.
    env["PYTHONPATH"] = os.pathsep.join(str(repo_copy / p) for p in PACKAGE_FOLDERS)
    return {**env, **NO_AWS}


@pytest.fixture(scope="module")
def shared() -> Iterator[Shared]:
    """The servers and outcomes of commands that several pages run identically (documented_commands.Shared):
    the pages are one scope of a parallel run (tests/needs.py), so one worker runs them all and shares these."""
    found = Shared.of(list(PAGE_BLOCKS.values()))
    yield found
    found.stop()


@pytest.fixture(scope="module")
def cuda() -> bool:
    probe = subprocess.run(
        [str(REPO / ".venv" / "bin" / "python"), "-c", "import torch; print(torch.cuda.is_available())"],
        capture_output=True,
        text=True,
    )
    return probe.stdout.strip() == "True"


def test_every_fence_is_parsed_and_tagged_known() -> None:
    """Runs everywhere: the pages' commands are found and their tags are ones the runner knows."""
    assert PAGE_BLOCKS, "no ```bash blocks found"
    for page_blocks in PAGE_BLOCKS.values():
        for block in page_blocks:
            assert block.commands, f"{block.where}: a ```bash block without a command"
            assert block.tags <= TAGS


@pytest.mark.parametrize("page", [_param(p, b) for p, b in PAGE_BLOCKS.items()])
def test_documented_commands_run_as_written(
    page: Path,
    repo_copy: Path,
    reader_env: dict[str, str],
    cuda: bool,
    shared: Shared,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    page_blocks = PAGE_BLOCKS[page]
    # Not tmp_path: a server this page starts for later pages too (Shared) keeps its log and TMPDIR here,
    # and pytest removes a passed test's tmp_path when it ends.
    tmp_path = tmp_path_factory.mktemp(page.stem)
    env = {**reader_env, "TMPDIR": str(tmp_path)}
    with page_run(repo_copy, env, page_ports(page_blocks, shared), tmp_path, shared) as run:
        for block in page_blocks:
            run.run(block, cuda)
    for seconds, where in sorted(run.timings, reverse=True)[:5]:
        print(f"{seconds:6.1f} s  {where}")  # shown with the failure, or with -rP
    assert not run.failures, "\n\n".join(run.failures)


def test_servers_that_pages_share_exit_0_on_ctrl_c(shared: Shared) -> None:
    """After the last page: each server that several pages used ends on Ctrl-C as a reader's does, exit 0
    (docs/decisions/110-a-requested-stop-exits-0.md)."""
    failures = shared.stop()
    assert not failures, "\n\n".join(failures)
