"""The agent's code bundle, built by real pip for arm64/cp312, offline from wheels made here.

Each test builds a small project in a temporary directory (agent/, a copy of the speech_protocol
package) so that the real tree is never written to, and points pip at a local wheel folder with
``--no-index``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from aws_cdk import AssetStaging
from small_project import REAL_PACKAGE
from stack_synth import REPO_ROOT, Synthesized, synthesize

from kokoro_stacks.agent.bundle_build import bundle_agent
from kokoro_stacks.agent.bundle_pip import BundlingError, check_pip, pip_install_command
from kokoro_stacks.project import ProjectPaths

REAL_FRAMING = REAL_PACKAGE / "speech_protocol" / "framing.py"


def test_pip_targets_the_runtime_platform_and_the_pinned_versions(tmp_path: Path):
    command = pip_install_command(Path("req.txt"), tmp_path, Path("constraints.txt"))
    joined = " ".join(command)
    assert "--platform manylinux2014_aarch64 --implementation cp --python-version 3.12" in joined
    assert "--only-binary=:all:" in command and "--no-compile" in command
    assert command[-2:] == ["-c", "constraints.txt"]
    assert "-c" not in pip_install_command(Path("req.txt"), tmp_path, None)
    local = pip_install_command(Path("req.txt"), tmp_path, None, (Path("speech_protocol"),))
    assert local[-2:] == ["--no-build-isolation", "speech_protocol"]


def test_pip_can_target_another_platform_for_the_agentcore_emulator(tmp_path: Path):
    command = pip_install_command(Path("req.txt"), tmp_path, None, platform="manylinux2014_x86_64")
    assert "--platform manylinux2014_x86_64 --implementation cp --python-version 3.12" in " ".join(command)


def test_bundle_holds_arm64_dependencies_the_agent_and_the_protocol_package(project: ProjectPaths, tmp_path: Path):
    out = tmp_path / "out"
    out.mkdir()
    bundle_agent(project, out)
    assert (out / "main.py").read_text() == "print('agent')\n"
    assert (out / "voice_agent" / "__init__.py").is_file()
    assert (out / "puredep" / "__init__.py").is_file() and (out / "armdep" / "__init__.py").is_file()
    assert (out / "speech_protocol" / "framing.py").read_bytes() == REAL_FRAMING.read_bytes()
    assert list(out.glob("kokoro_speech_protocol-*.dist-info"))  # installed by pip, not copied
    assert not (out / "kokoro_server").exists()
    assert not list(out.rglob("__pycache__")) and not (out / "requirements.txt").exists()


def test_a_dependency_without_an_arm64_wheel_fails_with_pips_reason(project: ProjectPaths, tmp_path: Path):
    requirements = project.agent_dir / "requirements.txt"
    requirements.write_text(requirements.read_text() + "hostdep==0.1\n")
    with pytest.raises(BundlingError, match="(?s)dependencies for manylinux2014_aarch64.*hostdep"):
        bundle_agent(project, tmp_path)


@pytest.mark.parametrize("missing", ["agent/requirements.txt", "agent/main.py", "speech_protocol/pyproject.toml"])
def test_a_missing_source_file_is_named(project: ProjectPaths, tmp_path: Path, missing: str):
    (project.root / missing).unlink()
    with pytest.raises(BundlingError, match=f"{missing} does not exist"):
        bundle_agent(project, tmp_path)


def test_cdk_runs_the_bundler_and_stages_its_output(project: ProjectPaths, tmp_path: Path):
    """Through jsii, as `cdk synth` does: the code asset is the bundle, not the agent/ folder."""
    (project.root / project.model_dockerfile).parent.mkdir(parents=True)
    (project.root / project.model_dockerfile).write_text("FROM scratch\n")
    staged = _staged_code(synthesize({}, tmp_path / "cdk.out", paths=project, bundle=True))
    assert (staged / "main.py").is_file() and (staged / "armdep" / "__init__.py").is_file()
    assert (staged / "speech_protocol" / "framing.py").is_file()


def _staged_code(build: Synthesized) -> Path:
    (code,) = (a for a in build.assets("KokoroVoiceAgent")["files"].values() if a["source"]["packaging"] == "zip")
    return build.outdir / code["source"]["path"]


@pytest.mark.parametrize(
    ("edited", "changed"),
    [
        ("speech_protocol/speech_protocol/framing.py", True),
        ("constraints.txt", True),
        ("agent/voice_agent/extra.py", True),
        ("speech_protocol/speech_protocol/__pycache__/framing.cpython-311.pyc", False),  # the control
        ("agent/Dockerfile", False),
    ],
)
def test_a_synth_into_the_same_cdk_out_rebundles_when_any_input_changed(
    project: ProjectPaths, tmp_path: Path, edited: str, changed: bool
):
    """CDK skips bundling when ``cdk.out`` holds a bundle of the asset's hash: the hash covers every input
    of the bundle (agent/, speech_protocol/, the pins), not only agent/, and nothing that is not one."""
    (project.root / project.model_dockerfile).parent.mkdir(parents=True)
    (project.root / project.model_dockerfile).write_text("FROM scratch\n")
    first = _staged_code(synthesize({}, tmp_path / "cdk.out", paths=project, bundle=True))
    path = project.root / edited
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text((path.read_text() if path.exists() else "") + "# edited\n")
    AssetStaging.clear_asset_hash_cache()  # each `cdk synth` is a process of its own
    second = _staged_code(synthesize({}, tmp_path / "cdk.out", paths=project, bundle=True))
    assert (second != first) is changed
    if edited.endswith("framing.py"):
        assert (second / "speech_protocol" / "framing.py").read_text().endswith("# edited\n")


def test_a_pip_too_old_for_another_python_is_refused_with_the_command_that_fixes_it():
    with pytest.raises(BundlingError) as caught:
        check_pip("23.2.1")
    assert "pip 23.2.1" in str(caught.value) and "-m pip install 'pip>=26.0'" in str(caught.value)
    check_pip("26.3")


def test_following_the_old_pip_hint_literally_gives_a_pip_that_passes(tmp_path: Path):
    """A fresh venv with pip 23.2.1 (what Python 3.11 ships; a Python that ships a newer one is taken back to
    it), then exactly the command the error names."""
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True, timeout=120)
    python = tmp_path / "venv" / "bin" / "python"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "stacks"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    pip_23 = [str(python), "-m", "pip", "install", "pip==23.2.1"]
    subprocess.run(pip_23, env=env, check=True, capture_output=True, timeout=300)
    probe = "from kokoro_stacks.agent.bundle_pip import check_pip; check_pip()"
    old = subprocess.run([str(python), "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert old.returncode != 0, old.stderr
    hint = old.stderr.split("install pip >= 26.0 with: ")[1].split(" (./setup.sh")[0]
    subprocess.run(hint, shell=True, env=env, check=True, capture_output=True, timeout=300)
    version = subprocess.run([str(python), "-m", "pip", "--version"], capture_output=True, text=True, check=True)
    check_pip(version.stdout.split()[1])
