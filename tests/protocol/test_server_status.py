"""The model server's ``/ping`` body as one type: encoded by the server, decoded by every reader; a body that is
not a status is a clear StatusError, never another exception; read from a real HTTP server on a free port."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st
from servers import free_port

from speech_protocol.http.server_status import (
    FAILED,
    LOADING,
    READY,
    ServerStatus,
    StatusError,
    decode,
    read_status,
)

READY_STATUS = ServerStatus(READY, "onnx", 1, 4, 0.31, 12, 3, 1, 5, 2, 0, 40)


def test_a_ready_status_round_trips_with_every_field() -> None:
    body = READY_STATUS.encode()
    assert body["status"] == "ready" and body["rtf"] == 0.31 and len(body) == 12
    assert decode(json.loads(json.dumps(body))) == READY_STATUS
    unmeasured = ServerStatus(READY, "torch", 0, 4, None, 0, 0, 0, 0, 2, 0, 0)
    assert unmeasured.encode()["rtf"] is None and decode(unmeasured.encode()) == unmeasured


@pytest.mark.parametrize("state", [LOADING, FAILED])
def test_a_server_that_is_not_ready_says_only_its_state(state: str) -> None:
    assert ServerStatus(state).encode() == {"status": state}
    assert decode({"status": state}) == ServerStatus(state) and not decode({"status": state}).ready


def test_a_field_this_reader_does_not_know_is_left_out() -> None:
    assert decode({**READY_STATUS.encode(), "gpu_memory_mb": 512}) == READY_STATUS


@pytest.mark.parametrize(
    ("body", "what"),
    [
        ([], "a JSON object"),
        ("ready", "a JSON object"),
        ({}, "status must be one of"),
        ({"status": "READY"}, "status must be one of"),
        ({"status": "ready", "listeners": -1}, "listeners must be a count"),
        ({"status": "ready", "capacity": True}, "capacity must be a count"),
        ({"status": "ready", "renders": 1.5}, "renders must be a count"),
        ({"status": "ready", "batched": -2}, "batched must be a count"),
        ({"status": "ready", "preempted": "3"}, "preempted must be a count"),
        ({"status": "ready", "stopped": -5}, "stopped must be a count"),
        ({"status": "ready", "rtf": "0.3"}, "rtf must be a non-negative number"),
        ({"status": "ready", "rtf": -0.1}, "rtf must be a non-negative number"),
        ({"status": "ready", "engine": 5}, "engine must be a string"),
    ],
)
def test_a_body_that_is_not_a_status_is_refused_naming_what_is_wrong(body: object, what: str) -> None:
    with pytest.raises(StatusError, match=what):
        decode(body)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=6),
    max_leaves=12,
)
KNOWN = st.sampled_from(["status", "engine", "listeners", "capacity", "rtf", "renders", "g2p_slices"])


@given(st.one_of(JSON, st.dictionaries(KNOWN, JSON, max_size=7)))
def test_any_json_is_a_status_or_a_status_error(body: object) -> None:
    try:
        found = decode(body)
    except StatusError:
        return
    assert found.status in (READY, LOADING, FAILED)


class _Page(http.server.BaseHTTPRequestHandler):
    """``/ping`` with whatever body the test sets: a model server's, or another service's."""

    code, body = 200, b""

    def do_GET(self) -> None:  # noqa: N802 - http.server's handler name
        self.send_response(type(self).code)
        self.end_headers()
        self.wfile.write(type(self).body)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture()
def page() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), _Page)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


def test_read_status_reads_a_ready_and_a_loading_server_and_refuses_another_service(page: str) -> None:
    _Page.code, _Page.body = 200, json.dumps(READY_STATUS.encode()).encode()
    assert read_status(page) == READY_STATUS
    _Page.code, _Page.body = 503, b'{"status": "loading"}'
    assert read_status(page) == ServerStatus(LOADING)
    _Page.code, _Page.body = 200, b"<html>a router's page</html>"
    with pytest.raises(StatusError, match="answered no server status"):
        read_status(page)


def test_read_status_is_none_where_nothing_answers() -> None:
    assert read_status(f"http://127.0.0.1:{free_port()}") is None
