"""Context keys and values: a typo is refused naming the closest key; instance types come from a list.

Includes a property test over arbitrary contexts: parsing gives settings or one SettingsError, nothing
else (hypothesis, 300 cases).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kokoro_stacks.settings.deploy_settings import (
    CONTEXT_KEYS,
    DeploySettings,
    SettingsError,
    check_known_keys,
    parse_settings,
)
from kokoro_stacks.settings.instance_types import _botocore_enum, instance_type_problem, known_instance_types

VALID = [key.name for key in CONTEXT_KEYS]


def test_a_misspelled_key_names_the_closest_valid_key_and_the_cdk_flag_for_it():
    with pytest.raises(SettingsError) as caught:
        check_known_keys({"instance_typ": "ml.m5.xlarge"})
    assert "did you mean 'instance_type'?" in str(caught.value)
    assert "`cdk ... -c instance_type=VALUE`" in str(caught.value)


def test_a_key_like_nothing_lists_the_valid_ones():
    with pytest.raises(SettingsError, match="valid keys: region, account"):
        check_known_keys(["zzzzzz"])


def test_cdks_own_keys_and_cdk_json_entries_pass():
    check_known_keys(
        [
            *VALID,
            "aws:cdk:bundling-stacks",
            "@aws-cdk/core:newStyleStackSynthesis",
            "availability-zones:account=123456789012:region=us-east-1",
            "team",
        ],
        own={"team": "x"},
    )


def test_the_instance_type_list_is_botocores_enum_of_real_time_types():
    assert known_instance_types() == frozenset(_botocore_enum())
    assert {"ml.g5.xlarge", "ml.m5.xlarge", "ml.c7i.xlarge", "ml.g6e.12xlarge"} <= known_instance_types()


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("ml.bogus.huge", "real-time instance type"),
        ("ml.g5.huge", "g5 sizes: ml.g5.12xlarge"),
        ("ml.g5.xlarge ", "real-time instance type"),
        ("g5.xlarge", "real-time instance type"),
        ("ml.c7g.xlarge", "arm64 (Graviton)"),
        ("ml.m6gd.large", "arm64 (Graviton)"),
    ],
)
def test_instance_types_that_look_right_but_cannot_host_the_image_are_refused(value: str, expected: str):
    assert expected in (instance_type_problem(value) or "")
    with pytest.raises(SettingsError, match="context key 'instance_type'"):
        parse_settings({"instance_type": value.strip() + ("x" if value.endswith(" ") else "")})


_TEXT = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["1", "0", "-1", "9" * 400, "ml.g5.xlarge", "onnx", "image", "code", "af_heart", "eu-west-1"]),
)
_VALUE = st.one_of(st.none(), _TEXT, st.integers(), st.booleans(), st.floats(), st.lists(st.integers(), max_size=2))


@settings(max_examples=300)
@given(st.dictionaries(st.one_of(st.sampled_from(VALID), st.text(max_size=20)), _VALUE, max_size=6))
def test_any_context_gives_settings_or_one_settings_error(context: dict):
    try:
        check_known_keys(context)
        result = parse_settings(context)
    except SettingsError as err:
        assert err.key in context or err.key in VALID
        assert str(err).startswith(f"context key '{err.key}': ") and "-c " in str(err)
        return
    assert isinstance(result, DeploySettings)
