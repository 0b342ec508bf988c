"""Bundling the agent with no package index: one line that names the index, and its advice works."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from stack_synth import REPO_ROOT

from kokoro_stacks.agent.bundle_pip import unreachable

REFUSED = "http://127.0.0.1:9/simple"  # the discard port: nothing listens, the connection is refused


def test_a_refusing_index_is_unreachable() -> None:
    assert "refused" in (unreachable(REFUSED) or "").lower()


def npx_cdk(*args: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "CDK_", "JSII_"))}
    env |= {"AWS_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true", "PIP_INDEX_URL": REFUSED}
    env |= {"AWS_CONFIG_FILE": str(tmp / "none"), "AWS_SHARED_CREDENTIALS_FILE": str(tmp / "none")}
    return subprocess.run(
        ["npx", "cdk", *args, "--output", str(tmp / "cdk.out")],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.mark.slow
def test_the_stock_synth_says_the_index_is_unreachable_and_the_model_only_synth_works(tmp_path: Path) -> None:
    failed = npx_cdk("synth", "KokoroVoiceAgent", tmp=tmp_path)
    assert failed.returncode == 1, failed.stderr
    error = next(line for line in failed.stderr.splitlines() if line.startswith("error: "))
    assert error.startswith(f"error: cannot bundle the agent: the package index {REFUSED} cannot be reached")
    assert "Traceback" not in failed.stderr and "ResolutionImpossible" not in failed.stderr
    advice = error.split("synth only the model stack: ")[1]  # cdk synth KokoroTtsModel --exclusively
    assert advice == "cdk synth KokoroTtsModel --exclusively"
    followed = npx_cdk(*advice.split()[1:], tmp=tmp_path / "followed")
    assert followed.returncode == 0, followed.stderr
    assert (tmp_path / "followed" / "cdk.out" / "KokoroTtsModel.template.json").is_file()
