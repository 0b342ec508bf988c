"""The model server on loopback answers only its own names and no web page, before any work: the real
server on a real socket. Bound to all interfaces (SageMaker's 0.0.0.0) with no names given it checks
neither (docs/decisions/100-browser-reachable-servers.md)."""

from __future__ import annotations

import subprocess
import sys

import httpx
import pytest
from browser_requests import handshake, refusal_code

from kokoro_server.settings import ServerSettings
from speech_protocol.framing import SESSION_PATH
from speech_protocol.http.browser_access import LOOPBACK_NAMES, BrowserAccess

SPEAK = {"text": "Hi.", "format": "pcm"}


async def test_a_rebound_name_is_refused_on_every_route(model_server_url: str) -> None:
    port = model_server_url.rsplit(":", 1)[1]
    async with httpx.AsyncClient(base_url=model_server_url, timeout=60) as client:
        for rebound in [f"evil.example:{port}", "evil.example", f"127.0.0.1.nip.io:{port}"]:
            ping = await client.get("/ping", headers={"host": rebound})
            speech = await client.post("/invocations", json=SPEAK, headers={"host": rebound})
            status, body = await handshake(model_server_url, SESSION_PATH, host=rebound)
            for reply in (ping, speech):
                assert (reply.status_code, reply.json()["error"]["code"]) == (421, "unknown_host"), rebound
                assert rebound in reply.json()["error"]["message"]
            assert (status, refusal_code(body)) == (421, "unknown_host")


async def test_no_web_page_may_post_or_open_a_session(model_server_url: str) -> None:
    async with httpx.AsyncClient(base_url=model_server_url, timeout=60) as client:
        for page in ["http://evil.example", "http://localhost:8000", "null"]:
            speech = await client.post("/invocations", json=SPEAK, headers={"origin": page})
            assert (speech.status_code, speech.json()["error"]["code"]) == (403, "origin_not_allowed")
            status, body = await handshake(model_server_url, SESSION_PATH, origin=page)
            assert (status, refusal_code(body)) == (403, "origin_not_allowed")
        assert (await client.get("/ping", headers={"origin": "http://evil.example"})).status_code == 200


async def test_programs_by_any_loopback_name_are_served(model_server_url: str) -> None:
    port = model_server_url.rsplit(":", 1)[1]
    async with httpx.AsyncClient(base_url=model_server_url, timeout=120) as client:
        for name in [f"localhost:{port}", f"[::1]:{port}", "127.0.0.1", "LOCALHOST"]:
            assert (await client.get("/ping", headers={"host": name})).status_code == 200
            assert (await handshake(model_server_url, SESSION_PATH, host=name))[0] == 101
        speech = await client.post("/invocations", json=SPEAK, headers={"host": f"localhost:{port}"})
    assert speech.status_code == 200 and len(speech.content) > 4800


@pytest.mark.parametrize(
    ("settings", "access"),
    [
        (ServerSettings(), BrowserAccess(hosts=LOOPBACK_NAMES, origins=frozenset())),
        (ServerSettings(host="0.0.0.0"), BrowserAccess()),  # SageMaker: its own Host, callers send no Origin
        (
            ServerSettings(allowed_hosts=("box.lan, [::1]",), allowed_origins=("http://localhost:5173",)),
            BrowserAccess(hosts=LOOPBACK_NAMES | {"box.lan"}, origins=frozenset({"http://localhost:5173"})),
        ),
        (
            ServerSettings(host="0.0.0.0", allowed_hosts=("box.lan",), allowed_origins=("https://app.example",)),
            BrowserAccess(hosts=LOOPBACK_NAMES | {"box.lan"}, origins=frozenset({"https://app.example"})),
        ),
        (ServerSettings(allowed_hosts=("*",), allowed_origins=("*",)), BrowserAccess()),
    ],
)
def test_settings_give_the_lists(settings: ServerSettings, access: BrowserAccess) -> None:
    assert settings.access == access


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--allow-host", "box.lan:8080"], "not a host name or address (without a port): 'box.lan:8080'"),
        (["--allow-origin", "localhost:5173"], "not an origin such as http://127.0.0.1:8000: 'localhost:5173'"),
    ],
)
def test_bad_allow_lists_stop_kokoro_serve_at_once(args: list[str], message: str) -> None:
    result = subprocess.run([sys.executable, "-m", "kokoro_server", *args], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr
