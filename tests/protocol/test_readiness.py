"""The one readiness check and wait, against a real HTTP server on a free loopback port."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest
from servers import free_port

from speech_protocol.http.readiness import ServerGone, ServerNotReady, status, wait_ready


class _Ping(http.server.BaseHTTPRequestHandler):
    """``/ping`` answers 503 for its first ``loading`` requests, as a server loading its model does, then 200."""

    loading = 2

    def do_GET(self) -> None:  # noqa: N802 - http.server's handler name
        code = 503 if type(self).loading > 0 else 200
        type(self).loading -= 1
        self.send_response(code if self.path == "/ping" else 404)
        self.end_headers()

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[str]:
    _Ping.loading = 2
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), _Ping)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_the_status_is_what_the_server_answers_or_none(server: str) -> None:
    assert status(f"{server}/ping") == 503
    assert status(f"{server}/elsewhere") == 404
    assert status(f"http://127.0.0.1:{free_port()}/ping") is None  # nothing listens there


def test_the_wait_returns_once_the_server_turns_green(server: str) -> None:
    wait_ready(f"{server}/ping", timeout_s=600)
    assert status(f"{server}/ping") == 200


def test_a_server_that_stops_is_reported_at_once(server: str) -> None:
    with pytest.raises(ServerGone, match="stopped before"):
        wait_ready(f"{server}/ping", timeout_s=600, alive=lambda: False)


def test_a_server_that_never_turns_green_is_a_timeout(server: str) -> None:
    with pytest.raises(ServerNotReady, match="did not answer 200 within 0 s"):
        wait_ready(f"{server}/elsewhere", timeout_s=0)
