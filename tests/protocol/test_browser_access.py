"""The Host and Origin allow-lists' rules (the servers that apply them are tested on real sockets in
tests/container/test_server_browser_access.py, tests/agent/test_agent_browser_access.py, tests/cli/local)."""

from __future__ import annotations

import pytest

from speech_protocol.http.browser_access import (
    LOOPBACK_NAMES,
    AccessListError,
    BrowserAccess,
    access_list,
    host_name,
    is_loopback,
    origin,
    server_hosts,
)

PAGE = "http://127.0.0.1:8000"
LOCAL = BrowserAccess(hosts=LOOPBACK_NAMES, origins=frozenset({PAGE}))


@pytest.mark.parametrize(
    ("given", "normalized"),
    [
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("HTTP://LocalHost:8000/", "http://localhost:8000"),
        ("http://example.com:80", "http://example.com"),
        ("https://example.com:443", "https://example.com"),
        ("https://example.com:8443", "https://example.com:8443"),
        ("http://[::1]:8000", "http://[::1]:8000"),
        ("chrome-extension://abcdef", "chrome-extension://abcdef"),
    ],
)
def test_origins_are_compared_as_browsers_send_them(given: str, normalized: str) -> None:
    assert origin(given) == normalized


@pytest.mark.parametrize(
    "bad", ["null", "", "127.0.0.1:8000", "http://", "http://a/path", "http://a?q", "http://u@a", "http://a:99999"]
)
def test_what_is_not_an_origin_is_refused_with_the_value(bad: str) -> None:
    with pytest.raises(AccessListError, match="not an origin"):
        origin(bad)


@pytest.mark.parametrize(
    ("given", "normalized"),
    [("MyHost.LAN.", "myhost.lan"), ("10.0.0.5", "10.0.0.5"), ("::1", "::1"), ("[::1]", "::1"), ("[0::1]", "::1")],
)
def test_host_names_are_compared_in_lower_case_without_brackets(given: str, normalized: str) -> None:
    assert host_name(given) == normalized


@pytest.mark.parametrize("bad", ["", "myhost:8080", "[::1]:8080", "a b", "...", "ev!l", "http://a"])
def test_a_host_with_a_port_or_junk_is_refused(bad: str) -> None:
    with pytest.raises(AccessListError, match="not a host name"):
        host_name(bad)


def test_lists_split_on_commas_and_spaces_and_a_star_turns_the_check_off() -> None:
    assert access_list(["a.lan, b.lan", "C.lan"], host_name) == {"a.lan", "b.lan", "c.lan"}
    assert access_list([], origin) == frozenset()
    assert access_list(["http://a:1", "*"], origin) is None


@pytest.mark.parametrize(
    ("bound", "loopback"),
    [("127.0.0.1", True), ("127.0.0.2", True), ("localhost", True), ("::1", True), ("0.0.0.0", False), ("::", False)],
)
def test_loopback_bindings(bound: str, loopback: bool) -> None:
    assert is_loopback(bound) is loopback


def test_a_server_answers_its_loopback_names_unless_bound_to_all_interfaces_without_a_list() -> None:
    assert server_hosts("127.0.0.1", frozenset()) == LOOPBACK_NAMES
    assert server_hosts("127.0.0.2", frozenset({"box.lan"})) == LOOPBACK_NAMES | {"127.0.0.2", "box.lan"}
    assert server_hosts("0.0.0.0", frozenset()) is None  # SageMaker and AgentCore: their Host, unchecked
    assert server_hosts("0.0.0.0", frozenset({"box.lan"})) == LOOPBACK_NAMES | {"box.lan"}
    assert server_hosts("127.0.0.1", None) is None  # --allow-host '*'


@pytest.mark.parametrize(
    "host", ["127.0.0.1:8080", "127.0.0.1", "localhost:1", "LOCALHOST", "localhost.:8080", "[::1]:8080", "[::1]"]
)
def test_loopback_hosts_with_any_port_pass(host: str) -> None:
    assert LOCAL.refusal("GET", host, None) is None


@pytest.mark.parametrize(
    "host", [None, "", "evil.example:8080", "evil.example", "127.0.0.1.evil.example", "localhost@evil", "[::2]", "0"]
)
def test_other_hosts_get_421_before_anything_else(host: str | None) -> None:
    status, code, message = LOCAL.refusal("POST", host, PAGE) or (0, "", "")
    assert (status, code) == (421, "unknown_host") and "--allow-host" in message


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "OPTIONS", None])  # None: a WebSocket handshake
def test_a_foreign_origin_is_refused_on_anything_but_get_and_head(method: str | None) -> None:
    for foreign in ["http://evil.example", "http://127.0.0.1:8001", "https://127.0.0.1:8000", "null", "garbage"]:
        status, code, _ = LOCAL.refusal(method, "127.0.0.1:8080", foreign) or (0, "", "")
        assert (status, code) == (403, "origin_not_allowed"), foreign
    assert LOCAL.refusal(method, "127.0.0.1:8080", "HTTP://127.0.0.1:8000") is None
    assert LOCAL.refusal(method, "127.0.0.1:8080", None) is None  # a program, not a page


def test_get_and_head_are_left_to_the_same_origin_policy() -> None:
    assert LOCAL.refusal("GET", "localhost", "http://evil.example") is None
    assert LOCAL.refusal("HEAD", "localhost", "http://evil.example") is None


def test_no_lists_check_nothing() -> None:
    assert not BrowserAccess().checks_anything
    assert BrowserAccess().refusal(None, "agentcore.internal", "http://evil.example") is None
