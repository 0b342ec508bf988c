"""What a browser may do with ``deploy-agent local --web``'s servers, in headless Chromium: the page connects
only when opened from the printed URL (and keeps working in its tab after that), and neither another site
nor a site whose DNS name is rebound to 127.0.0.1 can open the agent's socket or reach the page's /connect.
Chromium's ``--host-resolver-rules`` plays the attacker's DNS: evil.example resolves to 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator

from browser import chromium_page
from scripted_model_server import scripted_model_server
from servers import free_port
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route
from test_app import agent_for
from word_server import WordServer

from kokoro_cli.local.local_settings import agent_access
from kokoro_cli.local.web_page import local_connect_url, new_token, page_app
from kokoro_processes.servers import agent_server_thread
from voice_agent.conversation.messages import SESSION_ID_HEADER

EVIL_DNS = "--host-resolver-rules=MAP evil.example 127.0.0.1"
READY = "window.talk && talk.events.some(e => e.type === 'ready')"
STATUS = "document.getElementById('status').textContent"


def opens(ws_url: str) -> str:
    """JavaScript: "open" if a WebSocket to ``ws_url`` opens, "refused" if it fails."""
    return (
        "new Promise(r => { const s = new WebSocket(" + json.dumps(ws_url) + ");"
        " s.onopen = () => { s.close(); r('open'); }; s.onerror = () => r('refused'); })"
    )


@contextlib.asynccontextmanager
async def local_web() -> AsyncIterator[tuple[str, str, str]]:
    """The agent and its page as ``deploy-agent local --web`` runs them: (agent URL, page URL, token)."""
    page_port, token = free_port(), new_token()
    access = agent_access("127.0.0.1", page_port, frozenset(), frozenset())
    async with scripted_model_server(WordServer(pace_s=0.0)) as model_url:
        with (
            agent_for(model_url, "Hello there.", tokens_per_s=200.0, access=access) as agent_url,
            agent_server_thread(page_app(local_connect_url(agent_url), token), port=page_port) as page_url,
        ):
            yield agent_url, page_url, token


async def test_the_page_connects_from_the_printed_url_and_keeps_its_token_in_the_tab() -> None:
    async with local_web() as (_agent, page_url, token):
        async with chromium_page(f"{page_url}/") as page:
            assert "open that URL" in await page.wait_for(f"{STATUS}.startsWith('error') && {STATUS}")
            assert not await page.js("talk.events.length")
            await page.call("Page.navigate", url=f"{page_url}/?token={token}")
            await page.wait_for(READY)
            await page.js("window.oldPage = true")
            await page.call("Page.navigate", url=f"{page_url}/")  # the token stays with the tab
            await page.wait_for(f"!window.oldPage && {READY}")


async def test_another_site_and_a_rebound_name_get_nothing() -> None:
    evil = Starlette(routes=[Route("/", lambda _: HTMLResponse("<!doctype html><title>cats</title>"))])
    async with local_web() as (agent_url, page_url, token):
        agent_port, page_port = agent_url.rsplit(":", 1)[1], page_url.rsplit(":", 1)[1]
        ws_path = f"/ws?{SESSION_ID_HEADER}=0b6f8a52-3c1e-4f7a-9d52-2c2f0e6a9b11"
        with agent_server_thread(evil) as evil_url:
            async with chromium_page(f"{page_url}/?token={token}", EVIL_DNS) as page:
                await page.wait_for(READY)
                assert await page.js(opens(f"ws://127.0.0.1:{agent_port}{ws_path}")) == "open"  # the page may

                evil_port = evil_url.rsplit(":", 1)[1]
                await page.call("Page.navigate", url=f"http://evil.example:{evil_port}/")
                await page.wait_for("document.title === 'cats'")
                assert await page.js(opens(f"ws://127.0.0.1:{agent_port}{ws_path}")) == "refused"

                # rebinding: the attacker's page at evil.example:PORT, its name now pointing at 127.0.0.1
                await page.call("Page.navigate", url=f"http://evil.example:{agent_port}/ping")
                await page.wait_for("document.readyState === 'complete' && !!document.body")
                assert "unknown_host" in await page.js("document.body.textContent")
                assert await page.js(opens(f"ws://evil.example:{agent_port}{ws_path}")) == "refused"

                await page.call("Page.navigate", url=f"http://evil.example:{page_port}/?token={token}")
                await page.wait_for("document.readyState === 'complete' && !!document.body")
                assert "unknown_host" in await page.js("document.body.textContent")
                connect = await page.js(
                    f"fetch('/connect?token={token}&session=0b6f8a52-3c1e-4f7a-9d52-2c2f0e6a9b11').then(r => r.status)"
                )
                assert connect == 421
