"""Agent bundles kept across ``cdk.out`` folders (``KOKORO_AGENT_BUNDLE_CACHE``): the second bundle of the same
inputs is a copy, pip does not run; an edit of anything the bundle is built from is a new bundle; unset, nothing
is kept. Real pip, offline, on the small project of small_project.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from kokoro_stacks.agent import bundle_build
from kokoro_stacks.agent.bundle_build import bundle_agent, bundle_key
from kokoro_stacks.agent.bundle_cache import CACHE_VARIABLE, BundleCache
from kokoro_stacks.project import ProjectPaths

INDEX = "https://pypi.org/simple/"


@pytest.fixture
def pip_runs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Every pip command the bundler runs."""
    runs: list[list[str]] = []
    real = subprocess.run

    def counted(command, *args, **kwargs):
        if command[1:4] == ["-m", "pip", "install"]:
            runs.append(command)
        return real(command, *args, **kwargs)

    monkeypatch.setattr(bundle_build.subprocess, "run", counted)
    return runs


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_second_bundle_of_the_same_inputs_is_copied_without_pip(
    project: ProjectPaths,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    pip_runs: list[list[str]],
) -> None:
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "cache"))
    first, second = tmp_path / "first", tmp_path / "second"
    bundle_agent(project, first)
    bundle_agent(project, second)
    assert len(pip_runs) == 1
    assert tree(second) == tree(first) and "armdep/__init__.py" in tree(second)
    assert [entry.name for entry in (tmp_path / "cache").iterdir()] == [
        bundle_key(project, "manylinux2014_aarch64", INDEX)
    ]
    (project.agent_dir / "main.py").write_text("print('edited')\n")
    edited = tmp_path / "edited"
    bundle_agent(project, edited)
    assert len(pip_runs) == 2 and (edited / "main.py").read_text() == "print('edited')\n"


def test_without_the_variable_nothing_is_kept(
    project: ProjectPaths,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    pip_runs: list[list[str]],
) -> None:
    monkeypatch.delenv(CACHE_VARIABLE, raising=False)
    for name in ("first", "second"):
        bundle_agent(project, tmp_path / name)
    assert len(pip_runs) == 2
    assert BundleCache.configured({CACHE_VARIABLE: " "}) is None


@pytest.mark.parametrize(
    ("edit", "new_bundle"),
    [
        ("agent/voice_agent/extra.py", True),
        ("agent/requirements.txt", True),
        ("speech_protocol/speech_protocol/framing.py", True),
        ("constraints.txt", True),
        ("agent/voice_agent/__pycache__/x.cpython-311.pyc", False),
        ("agent/Dockerfile", False),
        ("speech_protocol/build/lib/x.py", False),
    ],
)
def test_the_key_covers_every_input_and_nothing_else(
    project: ProjectPaths,
    edit: str,
    new_bundle: bool,
) -> None:
    before = bundle_key(project, "manylinux2014_aarch64", INDEX)
    path = project.root / edit
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as file:
        file.write("# edited\n")
    assert (bundle_key(project, "manylinux2014_aarch64", INDEX) != before) is new_bundle


def test_the_key_names_the_platform_and_the_index(project: ProjectPaths) -> None:
    keys = {
        bundle_key(project, platform, index)
        for platform in ("manylinux2014_aarch64", "manylinux2014_x86_64")
        for index in (INDEX, "https://mirror.example/simple/")
    }
    assert len(keys) == 4


def test_a_taken_entry_is_kept_and_a_failed_store_leaves_nothing_behind(tmp_path: Path) -> None:
    cache = BundleCache(tmp_path / "cache")
    for text in ("first", "second"):
        bundle = tmp_path / text
        bundle.mkdir()
        (bundle / "main.py").write_text(text)
        cache.store("k", bundle)
    assert [p.name for p in cache.folder.iterdir()] == ["k"] and (cache.folder / "k" / "main.py").read_text() == "first"
    blocked = BundleCache(tmp_path / "first" / "main.py" / "cache")  # under a file: no folder can be made there
    blocked.store("k", tmp_path / "first")
    assert not blocked.restore("k", tmp_path / "out") and not (tmp_path / "out").exists()
