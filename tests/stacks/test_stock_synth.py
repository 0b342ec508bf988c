"""The stock ``cdk synth`` a user types, with no stack arguments: both stacks, the agent's code really bundled.

pip fetches the real ``agent/requirements.txt`` for arm64/cp312 from the package registry, as a user's
synth does (pip's own wheel cache makes reruns cheaper). Then ``deploy-agent synth`` and
``cdk synth KokoroVoiceAgent`` run on the same output folder, where cdk reuses the staged bundle.

The output folder is the test's own (``--output``): the repository's ``cdk.out`` is the user's, never
read, deleted or written here.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import zipfile
from pathlib import Path

import pytest
from stack_synth import REPO_ROOT

CDK = REPO_ROOT / "node_modules" / ".bin" / "cdk"
DEPLOY_AGENT = REPO_ROOT / ".venv" / "bin" / "deploy-agent"
REGION = "us-east-1"
ELF_AARCH64 = 183  # e_machine
# AgentCore's direct code deployment quotas (docs/decisions/022-agent-code-size.md).
MAX_ZIPPED = 250 * 1024 * 1024
MAX_UNZIPPED = 750 * 1024 * 1024
_EXTENSION_TAG = re.compile(r"\.(cpython-\d+[^.]*|abi3)\.so$")


def user_env(tmp: Path) -> dict[str, str]:
    """A newcomer's shell: AWS_REGION only, no credentials, no AWS or CDK variables of ours."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "CDK_", "JSII_"))}
    return env | {
        "AWS_REGION": REGION,
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": str(tmp / "no-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp / "no-credentials"),
    }


def users_cdk_out() -> list[tuple[str, int]]:
    """The repository's own cdk.out as it stands: every path under it with its modification time."""
    root = REPO_ROOT / "cdk.out"
    return sorted((str(p.relative_to(root)), p.stat().st_mtime_ns) for p in [root, *root.rglob("*")] if p.exists())


@pytest.fixture(scope="module")
def users_output_before() -> list[tuple[str, int]]:
    return users_cdk_out()


@pytest.fixture(scope="module")
def stock(
    users_output_before: list[tuple[str, int]], tmp_path_factory: pytest.TempPathFactory
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``cdk synth`` as typed at a terminal, cwd the repository, into a fresh output folder of the test's
    (a fresh one: cdk would reuse an earlier synth's staged bundle instead of bundling)."""
    tmp = tmp_path_factory.mktemp("stock")
    return typed([CDK, "synth", "--output", tmp / "cdk.out"], REPO_ROOT, tmp), tmp / "cdk.out"


def typed(argv: list[str | Path], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """A command as a newcomer types it in ``cwd`` (their shell: :func:`user_env` in ``home``)."""
    return subprocess.run(
        [str(arg) for arg in argv],
        cwd=cwd,
        env=user_env(home),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def code_bundle(outdir: Path) -> Path:
    manifest = json.loads((outdir / "KokoroVoiceAgent.assets.json").read_text())
    (source,) = [f["source"] for f in manifest["files"].values() if f["source"].get("packaging") == "zip"]
    return outdir / source["path"]


def elf_machine(path: Path) -> int:
    header = path.read_bytes()[:20]
    assert header[:4] == b"\x7fELF", f"{path} is not an ELF file"
    return int.from_bytes(header[18:20], "little")


def test_stock_synth_with_no_arguments_writes_both_templates_without_a_node_banner(stock):
    result, outdir = stock
    assert result.returncode == 0, result.stderr[-4000:]
    assert "end-of-life" not in result.stderr + result.stdout
    assert {"KokoroTtsModel.template.json", "KokoroVoiceAgent.template.json"} <= {p.name for p in outdir.iterdir()}
    assert "Bundling asset KokoroVoiceAgent/Artifact/Code" in result.stderr


def test_the_bundle_is_arm64_cp312_with_the_agent_and_fits_agentcore(stock, tmp_path: Path):
    bundle = code_bundle(stock[1])
    assert (bundle / "main.py").is_file() and (bundle / "voice_agent" / "app.py").is_file()
    assert (bundle / "speech_protocol" / "framing.py").is_file()
    assert (bundle / "bedrock_agentcore").is_dir() and (bundle / "strands").is_dir()
    compiled = [p for p in bundle.rglob("*") if p.is_file() and (p.suffix == ".so" or ".so." in p.name)]
    assert compiled, "the agent's dependencies include compiled wheels (pydantic-core, awscrt)"
    for path in compiled:
        assert elf_machine(path) == ELF_AARCH64, path
        tag = _EXTENSION_TAG.search(path.name)
        assert tag is None or tag.group(1) == "abi3" or tag.group(1).startswith("cpython-312-"), path
    files = [p for p in bundle.rglob("*") if p.is_file()]
    assert sum(p.stat().st_size for p in files) < MAX_UNZIPPED
    archive = tmp_path / "agent.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        for path in files:
            zipped.write(path, path.relative_to(bundle))
    assert archive.stat().st_size < MAX_ZIPPED


def test_deploy_agent_synth_and_the_named_stack_reuse_the_bundle(stock, tmp_path: Path):
    outdir = stock[1]
    assert stock[0].returncode == 0
    named = typed([CDK, "synth", "KokoroVoiceAgent", "--quiet", "--output", outdir], REPO_ROOT, tmp_path)
    assert named.returncode == 0, named.stderr[-4000:]
    cli = typed([DEPLOY_AGENT, "--region", REGION, "--out-dir", outdir, "--json", "synth"], tmp_path, tmp_path)
    assert cli.returncode == 0, cli.stderr[-4000:]
    assert json.loads(cli.stdout)["ok"] is True
    assert "end-of-life" not in cli.stderr


def test_the_users_own_cdk_out_is_left_alone(stock, users_output_before):
    assert stock[1] != REPO_ROOT / "cdk.out"
    assert users_cdk_out() == users_output_before
