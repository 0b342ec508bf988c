"""Which pages and names reach the agent, on a real socket: ``deploy-agent local``'s agent answers only its
loopback names and the conversation page; as deployed on AgentCore it checks nothing unless the operator
names origins; ``/invocations`` reads only bodies declared as JSON, so a cross-site form never starts a turn."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from browser_requests import handshake, refusal_code
from scripted_model_server import scripted_model_server
from servers import free_port
from test_app import agent_for
from websockets.asyncio.client import connect
from word_server import WordServer

from kokoro_cli.common.errors import UsageError
from kokoro_cli.local.local_settings import agent_access, allowed_extras
from kokoro_cli.local.web_page import page_origins
from kokoro_processes.servers import agent_server_thread
from speech_protocol.http.browser_access import LOOPBACK_NAMES
from voice_agent.app import create_app
from voice_agent.conversation.messages import SESSION_ID_HEADER
from voice_agent.settings import settings_from_env

REPLY = "Hello there. Nice to meet you"
PAGE_PORT = 8000
PAGE = f"http://127.0.0.1:{PAGE_PORT}"
EVIL = "http://evil.example"
WS = f"/ws?{SESSION_ID_HEADER}=0b6f8a52-3c1e-4f7a-9d52-2c2f0e6a9b11"
# What a page can send cross-site without asking the server first (the "simple" requests), and JSON in it.
SIMPLE_TYPES = ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data"]
PROMPT = json.dumps({"prompt": "Hi"})


@contextlib.asynccontextmanager
async def model_url() -> AsyncIterator[str]:
    async with scripted_model_server(WordServer(pace_s=0.0)) as url:
        yield url


@contextlib.contextmanager
def local_agent(url: str) -> Iterator[str]:
    """As ``deploy-agent local --web`` runs it: bound to 127.0.0.1, its page on PAGE_PORT."""
    with agent_for(url, REPLY, 200.0, agent_access("127.0.0.1", PAGE_PORT, frozenset(), frozenset())) as agent:
        yield agent


async def post(
    url: str, content_type: str | None, origin: str | None = None, host: str | None = None
) -> httpx.Response:
    headers = {
        key: value for key, value in [("content-type", content_type), ("origin", origin), ("host", host)] if value
    }
    async with httpx.AsyncClient(timeout=60) as client:
        return await client.post(f"{url}/invocations", content=PROMPT, headers=headers)


async def ready(url: str, origin: str | None = None) -> dict:
    async with connect(url.replace("http://", "ws://") + WS, origin=origin, proxy=None) as socket:
        return json.loads(await socket.recv())


async def test_the_local_agent_talks_to_its_page_and_to_programs_only() -> None:
    async with model_url() as tts:
        with local_agent(tts) as agent:
            port = agent.rsplit(":", 1)[1]
            assert (await ready(agent, origin=PAGE))["type"] == "ready"
            assert (await ready(agent, origin=f"http://localhost:{PAGE_PORT}"))["type"] == "ready"
            assert (await ready(agent))["type"] == "ready"  # a program sends no Origin
            for foreign in [EVIL, "http://127.0.0.1:8001", "null"]:
                status, body = await handshake(agent, WS, origin=foreign)
                assert (status, refusal_code(body)) == (403, "origin_not_allowed"), foreign
            for rebound in [f"evil.example:{port}", "evil.example"]:  # DNS rebinding: the page's own name
                status, body = await handshake(agent, WS, host=rebound, origin=f"http://{rebound}")
                assert (status, refusal_code(body)) == (421, "unknown_host")
                reply = await post(agent, "application/json", host=rebound)
                assert (reply.status_code, reply.json()["error"]["code"]) == (421, "unknown_host")
            assert (await handshake(agent, WS, host=f"localhost:{port}"))[0] == 101
            assert (await handshake(agent, WS, host=f"[::1]:{port}"))[0] == 101


async def test_no_cross_site_post_starts_a_turn() -> None:
    async with model_url() as tts:
        with local_agent(tts) as agent:
            for content_type in [*SIMPLE_TYPES, "application/json"]:
                reply = await post(agent, content_type, origin=EVIL)
                assert (reply.status_code, reply.json()["error"]["code"]) == (403, "origin_not_allowed")
            for content_type in SIMPLE_TYPES:  # without Origin too: a form is never a prompt
                reply = await post(agent, content_type)
                assert (reply.status_code, reply.json()["error"]["code"]) == (415, "unsupported_media_type")
            reply = await post(agent, "application/json; charset=utf-8")
            assert reply.status_code == 200 and '"type": "summary"' in reply.text


async def test_as_deployed_it_checks_no_origin_or_host_but_reads_only_json() -> None:
    """AgentCore authenticates every call and chooses the Host: today's behaviour, but for the body type."""
    async with model_url() as tts:
        with agent_for(tts, REPLY, 200.0) as agent:
            assert (await ready(agent, origin=EVIL))["type"] == "ready"
            assert (await handshake(agent, WS, host="runtime.internal:8080"))[0] == 101
            for content_type in [None, "application/json"]:  # AgentCore's contract; a caller may omit the type
                reply = await post(agent, content_type, origin=EVIL, host="runtime.internal")
                assert reply.status_code == 200 and '"type": "summary"' in reply.text
            for content_type in SIMPLE_TYPES:
                reply = await post(agent, content_type)
                assert (reply.status_code, reply.json()["error"]["code"]) == (415, "unsupported_media_type")


async def test_an_operator_list_of_origins_from_the_environment() -> None:
    app_origin = "https://app.example"
    async with model_url() as tts:
        env = {"TTS_URL": tts, "LLM_PROVIDER": "scripted", "LLM_REPLY": REPLY, "AGENT_ALLOWED_ORIGINS": app_origin}
        with agent_server_thread(create_app(settings_from_env(env))) as agent:
            assert (await ready(agent, origin=app_origin))["type"] == "ready"
            assert (await ready(agent))["type"] == "ready"
            status, body = await handshake(agent, WS, origin=EVIL, host="runtime.internal")
            assert (status, refusal_code(body)) == (403, "origin_not_allowed")


@pytest.mark.parametrize("extra", [["*"], ["box.lan", "other.lan"]])
def test_allow_host_adds_names_or_turns_the_check_off(extra: list[str]) -> None:
    hosts, origins = allowed_extras(extra, ["http://localhost:5173"])
    page_port = free_port()
    access = agent_access("127.0.0.1", page_port, hosts, origins)
    assert access.hosts == (None if extra == ["*"] else LOOPBACK_NAMES | set(extra))
    assert access.origins == page_origins(page_port) | {"http://localhost:5173"}


def test_bad_allow_values_are_usage_errors() -> None:
    for hosts, origins in [(["box.lan:8080"], []), ([], ["localhost:5173"])]:
        with pytest.raises(UsageError, match="--allow-host/--allow-origin"):
            allowed_extras(hosts, origins)
