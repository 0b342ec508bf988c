"""parse_settings: documented defaults, every key's validation, and the rules between keys.

(Named test_stack_settings, not test_settings: tests/ has no packages, and the agent and the server
have settings modules of their own.)
"""

from __future__ import annotations

import pytest

from kokoro_stacks.settings.bedrock_model import BedrockModel
from kokoro_stacks.settings.deploy_settings import (
    CONTEXT_DEFAULTS,
    CONTEXT_KEYS,
    DeploySettings,
    SettingsError,
    parse_settings,
)

AGENT_IMAGE = "123456789012.dkr.ecr.us-east-1.amazonaws.com/agent:v1"


def test_no_context_gives_the_documented_defaults():
    settings = parse_settings({})
    assert settings == DeploySettings(
        region="us-east-1",
        account=None,
        model_stack_name="KokoroTtsModel",
        agent_stack_name="KokoroVoiceAgent",
        endpoint_name="kokoro-tts",
        instance_type="ml.g5.xlarge",
        instance_count=1,
        min_instances=1,
        max_instances=2,
        sessions_per_instance=4,
        engine="torch",
        model_image=None,
        voice="af_heart",
        model=BedrockModel("anthropic.claude-haiku-4-5-20251001-v1:0", "global"),
        agent_artifact="code",
        agent_image=None,
        runtime_name="kokoro_voice_agent",
    )


def test_every_context_key_is_a_settings_field_with_help():
    fields = set(DeploySettings.__dataclass_fields__)
    renamed = {"image_uri": "model_image", "agent_image_uri": "agent_image", "model_id": "model"}
    assert {renamed.get(key.name, key.name) for key in CONTEXT_KEYS} == fields
    assert all(key.help for key in CONTEXT_KEYS)
    assert len(CONTEXT_DEFAULTS) == len(CONTEXT_KEYS)


def test_region_and_account_fall_back_to_the_cli_environment_and_context_wins():
    assert parse_settings({}, fallback_region="eu-west-1", fallback_account="111122223333").region == "eu-west-1"
    settings = parse_settings({"region": "ap-south-1", "account": "222233334444"}, fallback_account="111122223333")
    assert (settings.region, settings.account) == ("ap-south-1", "222233334444")


def test_cdk_json_integers_and_padded_strings_are_accepted():
    settings = parse_settings({"max_instances": 5, "instance_count": " 3 ", "engine": "onnx "})
    assert (settings.max_instances, settings.instance_count, settings.engine) == (5, 3, "onnx")


def test_empty_values_mean_the_default():
    assert parse_settings({"instance_type": "", "image_uri": "  "}) == parse_settings({})


# Each key, what its error says a good value is, and the values it refuses.
BAD_VALUES = [
    ("region", "an AWS Region", ["mars-1", "US-EAST-1"]),
    ("account", "12-digit", ["1234"]),
    ("model_stack_name", "stack name", ["1stack"]),
    ("agent_stack_name", "stack name", ["Agent_Stack"]),
    ("endpoint_name", "SageMaker endpoint name", ["kokoro_tts", "k" * 64]),
    ("instance_type", "SageMaker real-time instance type", ["g5.xlarge", "ml.g5.xlarge; rm -rf /"]),
    ("instance_count", "integer between 1 and 2", ["abc", "0", "3", "1.5"]),
    ("min_instances", "integer >= 1", ["0", "-1"]),
    ("max_instances", "integer >= 1", ["1e3"]),
    ("sessions_per_instance", "integer between 1 and 64", ["0", "9" * 40]),
    ("engine", "one of torch, onnx", ["tensorflow", "TORCH"]),
    ("image_uri", "ECR image URI", ["kokoro:latest"]),
    ("voice", "Kokoro voice name", ["Heart", "af_heart.pt"]),
    ("model_id", "Bedrock model id", ["gpt-4o"]),
    ("agent_artifact", "one of code, container, image", ["zip"]),
    ("runtime_name", "AgentCore runtime name", ["kokoro-voice-agent", "_agent", "a" * 49]),
    ("agent_allowed_origins", "not an origin", ["null", "app.example", "https://app.example/path"]),
]


@pytest.mark.parametrize(
    ("key", "value", "expected"), [(key, value, expected) for key, expected, values in BAD_VALUES for value in values]
)
def test_each_bad_value_names_its_key(key: str, value: str, expected: str):
    with pytest.raises(SettingsError, match=expected) as caught:
        parse_settings({key: value})
    assert caught.value.key == key
    assert str(caught.value).startswith(f"context key '{key}': ")
    assert f"`cdk ... -c {key}=VALUE`" in str(caught.value)


def test_allowed_origins_are_normalized_and_sorted():
    settings = parse_settings(
        {"agent_allowed_origins": "https://b.example http://127.0.0.1:8000/, HTTPS://A.example:443"}
    )
    assert settings.agent_allowed_origins == ("http://127.0.0.1:8000", "https://a.example", "https://b.example")
    assert parse_settings({"agent_allowed_origins": "*"}).agent_allowed_origins == ()


def test_bounds_are_checked_against_each_other():
    with pytest.raises(SettingsError, match="max_instances': expected an integer >= 3"):
        parse_settings({"min_instances": "3", "max_instances": "2"})
    assert parse_settings({"min_instances": "2", "max_instances": "3", "instance_count": "2"}).instance_count == 2


def test_image_artifact_and_its_uri_come_together():
    with pytest.raises(SettingsError, match="agent_image_uri': is required by agent_artifact=image"):
        parse_settings({"agent_artifact": "image"})
    with pytest.raises(SettingsError) as caught:
        parse_settings({"agent_image_uri": AGENT_IMAGE})  # would be silently ignored with agent_artifact=code
    assert caught.value.key == "agent_image_uri"
    settings = parse_settings({"agent_artifact": "image", "agent_image_uri": AGENT_IMAGE})
    assert settings.agent_image is not None and settings.agent_image.repository == "agent"


def test_settings_are_frozen():
    settings = parse_settings({})
    with pytest.raises(AttributeError):
        settings.instance_type = "ml.p5.48xlarge"  # type: ignore[misc]  # assigning to a frozen field is the test
