"""The /invocations payload: valid ones pass through, malformed and hostile ones get a code."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voice_agent.request import MAX_PROMPT_CHARS, BadRequest, Invocation, parse_invocation


def test_full_payload() -> None:
    payload = {"prompt": "Hi there", "voice": "bf_emma", "speed": 1, "session": "abc-123"}
    assert parse_invocation(payload) == Invocation("Hi there", "bf_emma", 1.0, "abc-123")
    assert parse_invocation({"prompt": "x" * MAX_PROMPT_CHARS}).voice is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)


@given(payload=json_values)
def test_any_json_gives_an_invocation_or_a_bad_request(payload: object) -> None:
    try:
        invocation = parse_invocation(payload)
    except BadRequest as err:
        assert err.code and err.message
    else:
        assert invocation.prompt.strip() and len(invocation.prompt) <= MAX_PROMPT_CHARS


@given(prompt=st.text(min_size=1, max_size=200).filter(str.strip), speed=st.floats(0.5, 2.0))
def test_valid_prompts_and_speeds_pass(prompt: str, speed: float) -> None:
    assert parse_invocation({"prompt": prompt, "speed": speed}) == Invocation(prompt, None, speed)


@pytest.mark.parametrize("speed", [float("inf"), float("nan"), -1, 0.49, 2.01])
def test_speed_out_of_range(speed: float) -> None:
    with pytest.raises(BadRequest) as caught:
        parse_invocation({"prompt": "hi", "speed": speed})
    assert caught.value.code == "bad_speed"
