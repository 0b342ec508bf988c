"""One turn through ``deploy-agent web <ARN>``, as the page takes it: the page server asked for a ``/connect`` URL,
the presigned WebSocket to the runtime's ``/ws`` opened from the page's origin, a prompt sent, the answer read."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import httpx
from emulator import agentcore_caller_env
from servers import SERVER_START_S
from websockets.asyncio.client import connect

from kokoro_processes import children
from kokoro_processes.servers import free_port
from voice_agent.conversation.events import Ready, TurnEnd, from_frame

DEPLOY_AGENT = str(Path(sys.executable).parent / "deploy-agent")
PAGE_URL = re.compile(r"http://127\.0\.0\.1:\d+/\?token=[\w-]+")  # the page URL deploy-agent web prints


async def web_turn(endpoint: str, arn: str, session: str, prompt: str) -> tuple[TurnEnd, bytes]:
    """The turn's end event and its audio, through the AgentCore emulator at ``endpoint``."""
    web_port = free_port()
    command = [DEPLOY_AGENT, "web", arn, "--port", str(web_port)]
    env = agentcore_caller_env(endpoint)
    with children.running(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as page:
        page_url = next(m[0] for line in iter(page.stdout.readline, "") if (m := PAGE_URL.search(line)))
        token = urllib.parse.parse_qs(urllib.parse.urlsplit(page_url).query)["token"][0]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{web_port}") as client:
            connect_url = await answered(client, "/connect", {"session": session, "token": token})
        assert connect_url.startswith(f"{endpoint.replace('http', 'ws', 1)}/runtimes/")
        audio, end = bytearray(), None
        async with connect(connect_url, proxy=None, origin=f"http://127.0.0.1:{web_port}") as socket:
            ready = from_frame(await socket.recv())
            assert isinstance(ready, Ready) and ready.session == session
            await socket.send(json.dumps({"type": "prompt", "text": prompt}))
            while not isinstance(end, TurnEnd):
                frame = await asyncio.wait_for(socket.recv(), 120)
                if isinstance(frame, bytes):
                    audio.extend(frame)
                else:
                    end = from_frame(frame)
    return end, bytes(audio)


async def answered(client: httpx.AsyncClient, path: str, params: dict) -> str:
    """The page server's /connect URL, once the page server answers (however long its start takes)."""
    deadline = time.monotonic() + SERVER_START_S  # the suite's bound on any server's start, not a verdict
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            reply = await client.get(path, params=params)
            assert reply.status_code == 200, reply.text
            return reply.json()["url"]
        await asyncio.sleep(0.1)
    raise AssertionError("the page server never answered")
