"""Settings given to the CLIs: refused at once with the CLI's own flag in the advice, fuzzed with hypothesis.

Runs the real Typer apps in-process (CliRunner) with ``--dry-run`` or ``--json ... synth`` where nothing
slow starts; the fuzz asserts, never a traceback, either exit 2 with an ``error:`` line naming an option it was
given, or exit 0 with every value given passed on to ``cdk synth`` unchanged (150 cases per CLI).
"""

from __future__ import annotations

import json
import re
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
            # values some option accepts, so that exit 0 is drawn too and its -c values are checked
            "af_heart",
            "1",
            "2",
            "123456789012",
            IMAGE,
            "anthropic.claude-haiku-4-5-20251001-v1:0",
            "code",
            "KokoroStack2",
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
    """Exit 2 names an option given in its ``error:`` line (or Typer's "Invalid value for"): a refusal points at
    what the user typed, never at a default they did not set. Exit 0 passes every option given (the last of a
    repeated one) to ``cdk synth`` as its ``-c`` context value, unchanged."""
    args = [arg for name, value in chosen for arg in (name, value)]
    result = invoke(app, *args, "--dry-run", "synth")
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 2), result.output
    assert "Traceback" not in result.output
    given = dict(chosen)  # click keeps the last value of a repeated option
    if result.exit_code == 2:
        # the CLI's own check ("error: --region: ...") or Typer's parse of a typed option ("Invalid value for
        # '--instance-count': ...")
        refused = re.match(r"error: (--[a-z-]+)", result.output) or re.search(
            r"Invalid value for '(--[a-z-]+)'", result.output
        )
        assert refused and refused.group(1) in given, result.output
        return
    command = shlex.split(result.output.strip().splitlines()[-1])
    contexts = {command[i + 1] for i, word in enumerate(command[:-1]) if word == "-c"}
    for name, value in given.items():
        assert f"{name[2:].replace('-', '_')}={value}" in contexts, (name, value, result.output)


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
