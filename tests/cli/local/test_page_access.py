"""The conversation page's server on a real socket: ``/connect`` answers only with this run's token, and no
name but the loopback ones (a DNS-rebound page says its own) is answered at all."""

from __future__ import annotations

import httpx
import pytest

from kokoro_cli.local.web_page import local_connect_url, new_token, page_app
from kokoro_processes.servers import agent_server_thread
from speech_protocol.http.browser_access import LOOPBACK_NAMES

SESSION = "0b6f8a52-3c1e-4f7a-9d52-2c2f0e6a9b11"
AGENT = "http://127.0.0.1:9"  # where /connect points; nothing connects to it here


@pytest.fixture(scope="module")
def token() -> str:
    return new_token()


@pytest.fixture(scope="module")
def page_url(token: str):
    with agent_server_thread(page_app(local_connect_url(AGENT), token)) as url:
        yield url


async def test_connect_needs_this_runs_token(page_url: str, token: str) -> None:
    async with httpx.AsyncClient(base_url=page_url) as client:
        good = await client.get("/connect", params={"session": SESSION, "token": token})
        assert good.status_code == 200 and good.json()["url"].startswith("ws://127.0.0.1:9/ws?")
        for wrong in [None, "", token[:-1], token + "x", new_token(), "é" * len(token)]:
            params = {"session": SESSION} | ({} if wrong is None else {"token": wrong})
            reply = await client.get("/connect", params=params)
            assert (reply.status_code, reply.json()["error"]["code"]) == (403, "bad_token"), wrong
            assert "open that URL" in reply.json()["error"]["message"]
        # the page itself holds no secret: it loads without the token, then asks /connect with it
        assert (await client.get("/")).status_code == 200
        assert (await client.get("/conversation.js")).status_code == 200


async def test_a_rebound_name_gets_nothing(page_url: str, token: str) -> None:
    port = page_url.rsplit(":", 1)[1]
    async with httpx.AsyncClient(base_url=page_url) as client:
        for path, params in [("/", {}), ("/conversation.js", {}), ("/connect", {"session": SESSION, "token": token})]:
            reply = await client.get(path, params=params, headers={"host": f"evil.example:{port}"})
            assert (reply.status_code, reply.json()["error"]["code"]) == (421, "unknown_host"), path
        for name in [f"localhost:{port}", f"[::1]:{port}"]:
            assert (await client.get("/", headers={"host": name})).status_code == 200


async def test_an_allowed_name_is_answered(token: str) -> None:
    app = page_app(local_connect_url(AGENT), token, LOOPBACK_NAMES | {"box.lan"})
    with agent_server_thread(app) as url:
        async with httpx.AsyncClient(base_url=url) as client:
            assert (await client.get("/", headers={"host": "box.lan:8000"})).status_code == 200
            assert (await client.get("/", headers={"host": "other.lan:8000"})).status_code == 421
