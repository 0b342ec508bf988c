"""Bedrock model ids and the ARNs a policy names for them."""

from __future__ import annotations

import pytest

from kokoro_stacks.settings.bedrock_model import DEFAULT_MODEL_ID, BedrockModel, parse_bedrock_model

HAIKU = "anthropic.claude-haiku-4-5-20251001-v1:0"


def test_default_is_claude_haiku_through_the_global_profile():
    assert parse_bedrock_model(DEFAULT_MODEL_ID) == BedrockModel(HAIKU, "global")


@pytest.mark.parametrize(
    ("model_id", "expected"),
    [
        (HAIKU, BedrockModel(HAIKU, None)),
        (f"us.{HAIKU}", BedrockModel(HAIKU, "us")),
        ("eu.amazon.nova-pro-v1:0", BedrockModel("amazon.nova-pro-v1:0", "eu")),
        ("apac.amazon.nova-lite-v1:0", BedrockModel("amazon.nova-lite-v1:0", "apac")),
        (
            "us-gov.anthropic.claude-3-haiku-20240307-v1:0",
            BedrockModel("anthropic.claude-3-haiku-20240307-v1:0", "us-gov"),
        ),
        ("meta.llama3-3-70b-instruct-v1:0", BedrockModel("meta.llama3-3-70b-instruct-v1:0", None)),
    ],
)
def test_ids_split_into_profile_and_foundation_model(model_id: str, expected: BedrockModel):
    model = parse_bedrock_model(model_id)
    assert model == expected
    assert model.model_id == model_id


def test_plain_model_is_granted_in_its_region_and_has_no_profile():
    model = BedrockModel(HAIKU)
    assert model.inference_profile_arn("aws", "eu-west-1", "111122223333") is None
    assert model.foundation_model_arns("aws", "eu-west-1") == [f"arn:aws:bedrock:eu-west-1::foundation-model/{HAIKU}"]


def test_geographic_profile_reaches_the_model_in_any_region_it_routes_to():
    model = BedrockModel(HAIKU, "eu")
    assert model.inference_profile_arn("aws", "eu-west-1", "111122223333") == (
        f"arn:aws:bedrock:eu-west-1:111122223333:inference-profile/eu.{HAIKU}"
    )
    assert model.foundation_model_arns("aws", "eu-west-1") == [f"arn:aws:bedrock:*::foundation-model/{HAIKU}"]


def test_global_profile_also_names_the_regionless_model_arn():
    assert BedrockModel(HAIKU, "global").foundation_model_arns("aws", "us-east-1") == [
        f"arn:aws:bedrock:*::foundation-model/{HAIKU}",
        f"arn:aws:bedrock:::foundation-model/{HAIKU}",
    ]


@pytest.mark.parametrize(
    "model_id",
    [
        "",
        "claude",  # no provider
        "global.",  # a profile and nothing else
        "global.claude",  # a profile, then no provider
        "arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0",
        "anthropic.claude haiku",
        "anthropic.claude-haiku\n",
        "anthropic." + "x" * 121,
        "anthropic.*",
    ],
)
def test_malformed_ids_are_refused(model_id: str):
    with pytest.raises(ValueError, match="expected a Bedrock model id"):
        parse_bedrock_model(model_id)
