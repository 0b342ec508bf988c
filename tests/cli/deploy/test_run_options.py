"""Options parsed once at the edge: bad, empty and hostile values stop with a usage error naming the flag."""

from __future__ import annotations

import pytest

from kokoro_cli.common.errors import ExitCode, UsageError
from kokoro_cli.deploy.run_options import build_run_options, is_unattended


def build(given, **kw):
    return build_run_options(given, cdk_bin="/x/cdk", env={}, stdin_is_terminal=True, **kw)


@pytest.mark.parametrize(
    ("env", "terminal", "expected"),
    [
        ({}, True, False),
        ({}, False, True),
        ({"CI": "true"}, True, True),
        ({"CI": "1"}, True, True),
        ({"CI": "false"}, True, False),
        ({"CI": ""}, True, False),
    ],
)
def test_unattended_when_ci_or_no_terminal(env, terminal, expected):
    assert is_unattended(env, terminal) is expected


def test_only_given_options_become_context_and_settings_get_the_stack_defaults():
    run = build({"region": "eu-west-1", "voice": None, "instance_count": 2, "max_instances": 3})
    assert run.context == {"region": "eu-west-1", "instance_count": "2", "max_instances": "3"}
    assert run.region == "eu-west-1"
    assert run.settings.model_stack_name == "KokoroTtsModel" and run.settings.instance_count == 2
    assert run.cdk_target().context == run.context


@pytest.mark.parametrize(
    ("given", "flag"),
    [
        ({"region": "eu west 1"}, "--region"),
        ({"instance_count": 0}, "--instance-count"),
        ({"runtime_name": "has-hyphen"}, "--runtime-name"),
        ({"engine": "cuda"}, "--engine"),
        ({"endpoint_name": "x" * 300}, "--endpoint-name"),
        ({"voice": "af_heart\x00"}, "--voice"),
        ({"region": "   "}, "--region"),
        ({"image_uri": "not an image"}, "--image-uri"),
    ],
)
def test_bad_values_are_usage_errors_naming_the_flag(given, flag):
    with pytest.raises(UsageError) as caught:
        build(given)
    assert caught.value.message.startswith(flag)
    assert caught.value.exit_code == ExitCode.USAGE


def test_empty_profile_and_cdk_path_are_rejected():
    with pytest.raises(UsageError, match="--profile"):
        build({}, profile=" ")
    with pytest.raises(UsageError, match="--cdk-bin"):
        build_run_options({}, cdk_bin="", env={}, stdin_is_terminal=True)
