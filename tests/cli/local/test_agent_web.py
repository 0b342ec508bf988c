"""The conversation page's server: ``deploy-agent local --web`` end to end, and the presigned URL a
deployed runtime's page connects with (its shape, signed offline with throwaway credentials)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from urllib.parse import parse_qs, quote, urlsplit

import httpx
import pytest
from browser_requests import handshake, refusal_code
from servers import REPO, SERVER_START_S, free_port, wait_ready
from websockets.asyncio.client import connect

from kokoro_cli.common.errors import UsageError
from kokoro_cli.local.agent_web import presigner, region_of
from kokoro_cli.local.web_page import page_app, runtime_connect_url
from kokoro_processes.servers import agent_server_thread
from voice_agent.conversation.events import Ready, TurnEnd, from_frame
from voice_agent.conversation.messages import SESSION_ID_HEADER

ARN = "arn:aws:bedrock-agentcore:us-west-2:123456789012:runtime/voice_agent-AbCdEf1234"
SESSION = "0b6f8a52-3c1e-4f7a-9d52-2c2f0e6a9b11"
TOKEN = "a-per-run-token"
# The page URL deploy-agent prints: its per-run token lets the page's /connect answer.
PAGE_URL = re.compile(r"http://127\.0\.0\.1:\d+/\?token=[\w-]+")


@pytest.fixture
def fake_credentials(no_aws: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")


def test_presigned_url_has_agentcores_shape(fake_credentials: None) -> None:
    url = runtime_connect_url(presigner(region_of(ARN), None), ARN)(SESSION)
    parts = urlsplit(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    assert parts.scheme == "wss" and parts.netloc == "bedrock-agentcore.us-west-2.amazonaws.com"
    assert parts.path == f"/runtimes/{quote(ARN, safe='')}/ws"
    assert query[SESSION_ID_HEADER] == SESSION
    assert query["X-Amz-Algorithm"] == "AWS4-HMAC-SHA256" and query["X-Amz-Expires"] == "300"
    assert query["X-Amz-Credential"].startswith("AKIDEXAMPLE/")
    assert query["X-Amz-Credential"].endswith("/us-west-2/bedrock-agentcore/aws4_request")
    assert query["X-Amz-SignedHeaders"] == "host" and len(query["X-Amz-Signature"]) == 64


async def test_page_server_hands_out_a_fresh_url_per_connection(fake_credentials: None) -> None:
    app = page_app(runtime_connect_url(presigner("us-west-2", None), ARN), TOKEN)
    with agent_server_thread(app) as page_url:
        async with httpx.AsyncClient(base_url=page_url) as client:
            page = await client.get("/")
            script = await client.get("/conversation.js")
            good = await client.get("/connect", params={"session": SESSION, "token": TOKEN})
            bad = await client.get("/connect", params={"session": "short", "token": TOKEN})
    assert page.status_code == 200 and "conversation.js" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")
    assert good.json()["url"].startswith("wss://bedrock-agentcore.us-west-2.amazonaws.com/runtimes/")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_session"


async def test_page_server_reports_missing_credentials(no_aws: None) -> None:
    app = page_app(runtime_connect_url(presigner("us-west-2", None), ARN), TOKEN)
    with agent_server_thread(app) as page_url:
        async with httpx.AsyncClient(base_url=page_url) as client:
            reply = await client.get("/connect", params={"session": SESSION, "token": TOKEN})
    assert reply.status_code == 502 and "credentials" in reply.json()["error"]["message"]


@pytest.mark.parametrize(
    "arn",
    [
        "arn:aws:s3:::bucket",
        "runtime/abc",
        "arn:aws:bedrock-agentcore::1:runtime/x",
        "arn:aws:bedrock-agentcore:REGION:ACCOUNT:runtime/ID",  # the placeholder docs/conversation.md shows
        "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/ID",
        "arn:aws:bedrock-agentcore:us-east-1:12345:runtime/voice_agent-AbCdEf1234",
    ],
)
def test_region_of_refuses_what_is_not_a_runtime_arn(arn: str) -> None:
    with pytest.raises(UsageError):
        region_of(arn)


async def test_local_web_serves_the_page_and_its_agent_talks(model_server_url: str) -> None:
    agent_port, web_port = free_port(), free_port()
    command = [
        sys.executable,
        "-c",
        "from kokoro_cli.deploy_agent import app; app()",
        "local",
        "--web",
        "--model-url",
        model_server_url,
        "--reply",
        "Hello there. Nice to meet you",
        "--port",
        str(agent_port),
        "--web-port",
        str(web_port),
    ]
    proc = subprocess.Popen(
        command, cwd=REPO, env=os.environ.copy(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        page_url = next(m[0] for line in iter(proc.stdout.readline, "") if (m := PAGE_URL.search(line)))
        token = parse_qs(urlsplit(page_url).query)["token"][0]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{web_port}") as client:
            # ready when the page answers, however long a loaded machine takes to import the CLI
            deadline = time.monotonic() + SERVER_START_S
            while not await _answers(client, "/"):
                assert proc.poll() is None, "deploy-agent local --web exited before its page answered"
                assert time.monotonic() < deadline, "the page server never answered"
                await asyncio.sleep(0.1)
            url = (await client.get("/connect", params={"session": SESSION, "token": token})).json()["url"]
            tokenless = await client.get("/connect", params={"session": SESSION})
        assert (tokenless.status_code, tokenless.json()["error"]["code"]) == (403, "bad_token")
        assert url == f"ws://127.0.0.1:{agent_port}/ws?{SESSION_ID_HEADER}={SESSION}"
        agent = f"http://127.0.0.1:{agent_port}"
        status, body = await handshake(agent, f"/ws?{SESSION_ID_HEADER}={SESSION}", origin="http://evil.example")
        assert (status, refusal_code(body)) == (403, "origin_not_allowed")  # only the page may open it
        async with connect(url, proxy=None, origin=f"http://127.0.0.1:{web_port}") as socket:
            ready = from_frame(await socket.recv())
            assert isinstance(ready, Ready) and ready.session == SESSION
            await socket.send(json.dumps({"type": "prompt", "text": "Hi"}))
            audio, end = 0, None
            while not isinstance(end, TurnEnd):
                frame = await asyncio.wait_for(socket.recv(), 60)
                if isinstance(frame, bytes):
                    audio += len(frame)
                else:
                    end = from_frame(frame)
        assert end.heard_text == "Hello there. Nice to meet you" and end.audio_s == pytest.approx(audio / 48_000)
        assert audio > 24_000  # more than half a second of speech
    finally:
        proc.terminate()
        proc.communicate(timeout=15)


async def _answers(client: httpx.AsyncClient, path: str) -> bool:
    try:
        return (await client.get(path)).status_code == 200
    except httpx.HTTPError:
        return False


def test_local_refuses_web_with_a_prompt() -> None:
    from typer.testing import CliRunner

    from kokoro_cli.deploy_agent import app

    result = CliRunner().invoke(app, ["local", "--web", "--prompt", "hi", "--model-url", "http://127.0.0.1:9"])
    assert result.exit_code == 2 and "--web serves the conversation page" in result.output


def run_web(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from kokoro_cli.deploy_agent import app; app()", "web", *args],
        cwd=REPO,
        env={**os.environ, **env},  # under the no_aws fixture
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_web_with_the_placeholder_arn_is_one_usage_error(no_aws: None) -> None:
    result = run_web("arn:aws:bedrock-agentcore:REGION:ACCOUNT:runtime/ID", "--port", str(free_port()))
    assert result.returncode == 2, result.stderr
    first, fix = result.stderr.splitlines()
    assert first.startswith("error: not an AgentCore runtime ARN ('REGION' is not an AWS Region")
    assert fix.startswith("fix: give arn:aws:bedrock-agentcore:REGION:ACCOUNT:runtime/ID")


def test_web_without_credentials_stops_before_serving_and_its_fix_works(no_aws: None) -> None:
    port = free_port()
    result = run_web(ARN, "--port", str(port))
    assert result.returncode == 3, result.stderr
    assert result.stderr.splitlines()[0] == "error: no AWS credentials found to sign the page's connections"
    assert "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY" in result.stderr
    # the fix's last form, followed: with keys in the environment the page is served
    keys = {"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret"}
    proc = subprocess.Popen(
        [sys.executable, "-c", "from kokoro_cli.deploy_agent import app; app()", "web", ARN, "--port", str(port)],
        cwd=REPO,
        env={**os.environ, **keys},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    try:
        wait_ready(f"http://127.0.0.1:{port}/", proc, timeout=120)
    finally:
        proc.terminate()
        proc.communicate(timeout=15)
