"""Settings given to the CLIs: refused at once with the CLI's own flag in the advice, fuzzed with hypothesis.

Runs the real Typer apps in-process (CliRunner) with ``--dry-run`` or ``--json ... synth`` where nothing
slow starts; the fuzz asserts exit 0 or 2 with a one-line reason, never a traceback (150 cases per CLI).
"""

from __future__ import annotations

import json
import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kokoro_cli import deploy_agent, deploy_model

IMAGE = "123456789012.dkr.ecr.eu-west-1.amazonaws.com/kokoro-tts:1"
RUNNER = CliRunner()


def invoke(app, *args: str):
    return RUNNER.invoke(app, list(args), env={"CI": "true", "AWS_REGION": "eu-west-1"}, catch_exceptions=True)


def test_a_made_up_instance_type_is_refused_at_synth_and_the_hint_works_when_followed():
    bad = invoke(deploy_model.app, "--instance-type", "ml.bogus.huge", "--image-uri", IMAGE, "--json", "synth")
    assert bad.exit_code == 2
    error = json.loads(bad.stdout)["error"]
    assert error["message"].startswith("--instance-type: expected a SageMaker real-time instance type")
    assert "-c " not in error["message"] + error["fix"]  # deploy-model has no -c: its own flag is named
    assert error["fix"] == "pass --instance-type VALUE before the subcommand"
    fixed = shlex.split(error["fix"].replace("pass ", "").replace("VALUE", "ml.m5.xlarge").split(" before")[0])
    good = invoke(deploy_model.app, *fixed, "--image-uri", IMAGE, "--dry-run", "synth")
    assert good.exit_code == 0, good.output
    assert "-c instance_type=ml.m5.xlarge" in good.stdout


_OPTION_VALUES = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        [
            "",
            " ",
            "0",
            "-1",
            "9" * 400,
            "ml.g5.xlarge",
            "ml.c7g.xlarge",
            "onnx",
            "x" * 300,
            "eu-west-1",
            "\x00",
            "--help",
        ]
    ),
)
_MODEL_OPTIONS = [
    "--region",
    "--account",
    "--endpoint-name",
    "--instance-type",
    "--instance-count",
    "--min-instances",
    "--max-instances",
    "--engine",
    "--image-uri",
    "--voice",
    "--model-stack-name",
]
_AGENT_OPTIONS = [
    "--region",
    "--account",
    "--agent-stack-name",
    "--endpoint-name",
    "--voice",
    "--model-id",
    "--agent-artifact",
    "--agent-image-uri",
    "--runtime-name",
]


def _fuzz(app, chosen: list[tuple[str, str]]) -> None:
    args = [arg for name, value in chosen for arg in (name, value)]
    result = invoke(app, *args, "--dry-run", "synth")
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 2), result.output
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        assert "error" in result.output.lower() or "Usage" in result.output


@settings(max_examples=150)
@given(st.lists(st.tuples(st.sampled_from(_MODEL_OPTIONS), _OPTION_VALUES), max_size=4))
def test_deploy_model_options_fuzz(chosen):
    _fuzz(deploy_model.app, chosen)


@settings(max_examples=150)
@given(st.lists(st.tuples(st.sampled_from(_AGENT_OPTIONS), _OPTION_VALUES), max_size=4))
def test_deploy_agent_options_fuzz(chosen):
    _fuzz(deploy_agent.app, chosen)


@pytest.mark.parametrize("value", ["ml.c7g.xlarge", "ml.g5.huge"])
def test_instance_types_refused_by_deploy_model_name_the_option(value: str):
    result = invoke(deploy_model.app, "--instance-type", value, "--dry-run", "synth")
    assert result.exit_code == 2 and "--instance-type:" in result.output
