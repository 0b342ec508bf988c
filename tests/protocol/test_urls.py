"""A model server's HTTP base and session URL, from either form a user may type."""

from __future__ import annotations

import pytest

from speech_protocol.http.urls import ServerUrlError, ServerUrls, server_urls


@pytest.mark.parametrize(
    ("url", "http_base", "session"),
    [
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080", "ws://127.0.0.1:8080/invocations-bidirectional-stream"),
        ("https://h/", "https://h", "wss://h/invocations-bidirectional-stream"),
        ("https://h/base/", "https://h/base", "wss://h/base/invocations-bidirectional-stream"),
        ("ws://h:1/", "http://h:1", "ws://h:1/invocations-bidirectional-stream"),
        (
            "wss://h/base/invocations-bidirectional-stream",
            "https://h/base",
            "wss://h/base/invocations-bidirectional-stream",
        ),
        ("ws://h:1/custom", "http://h:1/custom", "ws://h:1/custom"),  # a ws path is the session's own
    ],
)
def test_both_forms_map_to_both_addresses(url: str, http_base: str, session: str):
    assert server_urls(url) == ServerUrls(http_base, session)


@pytest.mark.parametrize("url", ["", "127.0.0.1:8080", "ftp://host", "http://", "http://:80", "javascript:alert(1)"])
def test_anything_else_is_refused_with_an_example(url: str):
    with pytest.raises(ServerUrlError, match="like http://127.0.0.1:8080"):
        server_urls(url)
