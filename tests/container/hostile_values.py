"""Hypothesis strategies for what a hostile client puts in a request: the fields of a synthesis (for the
HTTP body and the session's messages alike), with huge integers, NaN, deep nesting and wrong types."""

from __future__ import annotations

from hypothesis import strategies as st

huge_ints = st.integers(min_value=-(10**400), max_value=10**400)
json_scalars = (
    st.none() | st.booleans() | huge_ints | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
short_texts = st.sampled_from(
    ["Hello.", "Yes", "a/b/c", "$3.50", "1-2-3", "ok!", "\u00e9t\u00e9", "", " ", "Hi \ud800", "a/b-c_d&e" * 4]
)
voices = st.sampled_from(
    [
        "af_heart",
        "am_michael",
        "af_heart(2)+af_bella(1)",
        "af_heart(1e40)",
        "zz_x",
        "af_heart(0)",
        "",
        "af_heart+" * 9 + "af_bella",
    ]
)
request_fields = st.fixed_dictionaries(
    {},
    optional={
        "text": short_texts | json_values,
        "voice": voices | json_values,
        "speed": st.sampled_from([1, 0.5, 2.0, 1.5]) | json_values,
        "format": st.sampled_from(["wav", "pcm", "mp3"]) | json_values,
        "id": json_values,
    },
)
