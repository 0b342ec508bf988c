"""The stock `cdk synth` through the project's pinned CLI: offline, no credentials, no Docker.

``cdk synth KokoroTtsModel --exclusively`` writes both templates but bundles only the model stack (which
has nothing to bundle), so the agent's dependencies are not fetched from PyPI here; test_agent_bundle
covers bundling. cfn-lint then runs on every template these tests synthesize.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from stack_synth import REGION, REPO_ROOT, Synthesized

CDK = REPO_ROOT / "node_modules" / ".bin" / "cdk"
CFN_LINT = REPO_ROOT / ".venv" / "bin" / "cfn-lint"


def run_cdk(*args: str, outdir: Path) -> subprocess.CompletedProcess[str]:
    assert CDK.is_file(), "the pinned CDK CLI is missing: run ./setup.sh (npm ci)"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "CDK_"))}
    env |= {
        "AWS_REGION": REGION,
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": str(outdir / "no-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(outdir / "no-credentials"),
    }
    command = [str(CDK), "synth", *args, "--output", str(outdir), "--quiet"]
    return subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def cli_synth(tmp_path_factory: pytest.TempPathFactory) -> Path:
    outdir = tmp_path_factory.mktemp("cli") / "cdk.out"
    result = run_cdk("KokoroTtsModel", "--exclusively", outdir=outdir)
    assert result.returncode == 0, result.stderr
    return outdir


def test_stock_cli_synthesizes_both_templates_for_the_cli_region(cli_synth: Path):
    model = json.loads((cli_synth / "KokoroTtsModel.template.json").read_text())
    agent = json.loads((cli_synth / "KokoroVoiceAgent.template.json").read_text())
    (variant,) = next(r for r in model["Resources"].values() if r["Type"] == "AWS::SageMaker::EndpointConfig")[
        "Properties"
    ]["ProductionVariants"]
    assert variant["InstanceType"] == "ml.g5.xlarge"
    runtime = next(r for r in agent["Resources"].values() if r["Type"] == "AWS::BedrockAgentCore::Runtime")
    assert runtime["Properties"]["EnvironmentVariables"]["TTS_REGION"] == REGION
    report = json.loads((cli_synth / "validation-report.json").read_text())
    assert report["pluginReports"] == []  # cdk-nag ran and found nothing unacknowledged


def test_cfn_lint_passes_on_every_template(
    cli_synth: Path, default_build: Synthesized, cpu_build: Synthesized, prebuilt_build: Synthesized
):
    templates = sorted(cli_synth.glob("*.template.json"))
    for build in (default_build, cpu_build, prebuilt_build):
        templates += [
            build.template_path(build.settings.model_stack_name),
            build.template_path(build.settings.agent_stack_name),
        ]
    assert len(templates) == 8
    result = subprocess.run(
        [str(CFN_LINT), *map(str, templates)], capture_output=True, text=True, timeout=120, check=False
    )
    assert (result.returncode, result.stdout) == (0, ""), result.stdout + result.stderr


@pytest.mark.parametrize(
    ("option", "key"), [("instance_count=zero", "instance_count"), ("runtime_name=kokoro-agent", "runtime_name")]
)
def test_a_bad_setting_stops_synth_with_its_key_and_no_traceback(tmp_path: Path, option: str, key: str):
    result = run_cdk("-c", option, outdir=tmp_path / "cdk.out")
    assert result.returncode != 0
    assert f"error: context key '{key}': " in result.stderr
    assert "Traceback" not in result.stderr


def test_a_misspelled_key_stops_synth_and_its_hint_followed_literally_works(tmp_path: Path):
    wrong = run_cdk("KokoroTtsModel", "--exclusively", "-c", "instance_typ=ml.m5.xlarge", outdir=tmp_path / "a")
    assert wrong.returncode != 0 and "Traceback" not in wrong.stderr
    assert "context key 'instance_typ': is not a setting of this app; did you mean 'instance_type'?" in wrong.stderr
    hinted = wrong.stderr.split("`cdk ... -c ")[1].split("=VALUE`")[0]
    right = run_cdk("KokoroTtsModel", "--exclusively", "-c", f"{hinted}=ml.m5.xlarge", outdir=tmp_path / "b")
    assert right.returncode == 0, right.stderr
    assert '"InstanceType": "ml.m5.xlarge"' in (tmp_path / "b" / "KokoroTtsModel.template.json").read_text()
