"""The AgentCore data-plane emulator, driven by the real boto3 client and by ``deploy-agent invoke <ARN>``.

Its checks (SigV4 against its credentials, the ARN, the runtime, the session id, the rate) each answer the
service's error code, which botocore raises as a ``ClientError``; the agent behind it failing in each way is
a one-line error from the CLI; and after every refusal the emulator still serves a good call.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import socket
import subprocess
import sys
import urllib.parse
import uuid
import wave
from collections.abc import Iterator
from pathlib import Path

import boto3
import botocore.auth
import httpx
import pytest
from agentcore_web import DEPLOY_AGENT, web_turn
from botocore import UNSIGNED
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ClientError
from emulator import agentcore_caller_env, agentcore_emulator
from speech import assert_heard
from starlette.applications import Starlette
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from kokoro_cli.local.agent_web import EndpointPresigner, presigner
from kokoro_processes.servers import agent_server_thread, free_port
from voice_agent.app import create_app
from voice_agent.settings import AgentSettings, LlmSettings, TtsSettings

ARN = "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/kokoro_voice_agent-AbCdEf1234"
REPLY = "Good evening. Your table by the window is ready"
SESSION_HEADER = "X-Amzn-Bedrock-AgentCore-Runtime-Session-Id"
NO_RETRIES = Config(retries={"max_attempts": 1, "mode": "standard"})


def session_id() -> str:
    return f"test-session-{uuid.uuid4().hex}"


def client(endpoint: str, secret: str = "test", config: Config = NO_RETRIES):
    return boto3.client(
        "bedrock-agentcore",
        region_name="us-east-1",
        endpoint_url=endpoint,
        aws_access_key_id="test",
        aws_secret_access_key=secret,
        config=config,
    )


def answer(endpoint: str, arn: str = ARN, **client_options) -> bytes:
    reply = client(endpoint, **client_options).invoke_agent_runtime(
        agentRuntimeArn=arn, runtimeSessionId=session_id(), payload=b'{"prompt": "Hi"}', accept="text/event-stream"
    )
    return reply["response"].read()


def error_code(call) -> tuple[str, int]:
    with pytest.raises(ClientError) as caught:
        call()
    return caught.value.response["Error"]["Code"], caught.value.response["ResponseMetadata"]["HTTPStatusCode"]


async def one_event(request) -> Response:
    return Response('data: {"type": "done"}\n\n', media_type="text/event-stream")


async def breaks_off(request) -> StreamingResponse:
    async def events():
        yield b'data: {"type": "text", "text": "Hello"}\n\n'
        raise RuntimeError("the agent's process died")

    return StreamingResponse(events(), media_type="text/event-stream")


async def first_event_then_silence(request) -> StreamingResponse:
    async def events():
        yield b'data: {"type": "text", "text": "Hello"}\n\n'
        await asyncio.sleep(3600)

    return StreamingResponse(events(), media_type="text/event-stream")


async def never_answers(request) -> Response:
    await asyncio.sleep(3600)
    return Response()


async def fails(request) -> Response:
    return Response("boom", status_code=500)


async def echo(websocket: WebSocket) -> None:
    """A stand-in agent's /ws: names the session it was given, then echoes each frame."""
    await websocket.accept()
    await websocket.send_text(f"session {websocket.headers.get(SESSION_HEADER)}")
    while (message := await websocket.receive())["type"] != "websocket.disconnect":
        if message.get("bytes") is not None:
            await websocket.send_bytes(message["bytes"])
        else:
            await websocket.send_text(message["text"])


def agent_with(handler) -> Starlette:
    return Starlette(routes=[Route("/invocations", handler, methods=["POST"]), WebSocketRoute("/ws", echo)])


@pytest.fixture(scope="module")
def stub_agents() -> Iterator[dict[str, str]]:
    """Runtime ARN -> URL of a tiny agent that answers, breaks off, stays silent or fails; one that is unreachable."""
    handlers = {
        "ok": one_event,
        "broken": breaks_off,
        "silent": never_answers,
        "failing": fails,
        "pausing": first_event_then_silence,
    }
    with contextlib.ExitStack() as stack:
        urls = {
            name: stack.enter_context(agent_server_thread(agent_with(h), graceful_s=1)) for name, h in handlers.items()
        }
        urls["unreachable"] = f"http://127.0.0.1:{free_port()}"
        yield {runtime(name): url for name, url in urls.items()}


@pytest.fixture(scope="module")
def stub_endpoint(stub_agents) -> Iterator[str]:
    with agentcore_emulator(stub_agents) as endpoint:  # AgentCore's 15 minutes: no answer is ever cut short
        yield endpoint


@pytest.fixture(scope="module")
def silent_endpoint(stub_agents) -> Iterator[str]:
    """The same runtimes, waiting 1 s for an agent's answer: only for the agent that never answers, so that no
    verdict depends on how fast an answering agent is under load."""
    with agentcore_emulator(stub_agents, "--timeout-s", "1") as endpoint:
        yield endpoint


@pytest.fixture
def endpoint_for(stub_endpoint, silent_endpoint):
    return lambda agent: silent_endpoint if agent == "silent" else stub_endpoint


def runtime(name: str) -> str:
    """The ARN of the stand-in runtime ``name``, shaped as AgentCore makes them."""
    return f"{ARN[: ARN.rindex('/') + 1]}{name}-AbCdEf1234"


def test_a_signed_call_reaches_the_runtimes_agent_and_streams_its_answer(stub_endpoint) -> None:
    assert answer(stub_endpoint, runtime("ok")) == b'data: {"type": "done"}\n\n'


@pytest.mark.parametrize(
    ("how", "options"),
    [
        ("another secret", {"secret": "not-the-secret"}),
        ("no signature", {"config": Config(signature_version=UNSIGNED, retries={"max_attempts": 1})}),
    ],
)
def test_a_call_not_signed_by_the_configured_credentials_is_access_denied(stub_endpoint, how, options) -> None:
    assert error_code(lambda: answer(stub_endpoint, runtime("ok"), **options)) == ("AccessDeniedException", 403)
    assert answer(stub_endpoint, runtime("ok"))  # and the emulator serves the next caller


def test_a_body_changed_after_signing_is_access_denied(stub_endpoint) -> None:
    url = f"{stub_endpoint}/runtimes/{urllib.parse.quote(runtime('ok'), safe='')}/invocations"
    headers = {"Content-Type": "application/json", "X-Amzn-Bedrock-AgentCore-Runtime-Session-Id": session_id()}
    signed = AWSRequest(method="POST", url=url, data=b'{"prompt": "Hi"}', headers=headers)
    SigV4Auth(Credentials("test", "test"), "bedrock-agentcore", "us-east-1").add_auth(signed)
    as_signed = httpx.post(url, content=signed.body, headers=dict(signed.headers))
    altered = httpx.post(url, content=b'{"prompt": "Bye"}', headers=dict(signed.headers))
    assert as_signed.status_code == 200, as_signed.text  # the negative control: the same signature, the same body
    assert (altered.status_code, altered.headers["x-amzn-ErrorType"]) == (403, "AccessDeniedException")


def test_a_payload_over_the_services_limit_is_refused_before_it_is_read(stub_endpoint) -> None:
    host, port = urllib.parse.urlsplit(stub_endpoint).netloc.split(":")
    path = f"/runtimes/{urllib.parse.quote(runtime('ok'), safe='')}/invocations"
    with socket.create_connection((host, int(port)), timeout=60) as conn:  # says 200 MB, sends none of it
        conn.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Length: 200000000\r\n\r\n".encode())
        head = conn.recv(65536).decode("latin-1")
    assert head.startswith("HTTP/1.1 400") and "x-amzn-errortype: validationexception" in head.lower(), head
    assert answer(stub_endpoint, runtime("ok"))


@pytest.mark.parametrize("bad", ["not-an-arn=http://127.0.0.1:1", f"{ARN}=ftp://host", ARN, ""])
def test_the_emulator_refuses_a_runtime_that_is_not_arn_equals_url(bad) -> None:
    command = [sys.executable, "-m", "kokoro_devtools.agentcore_emulator", "--port", "0", "--runtime", bad]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 2 and "not ARN=URL" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_a_signature_from_twenty_minutes_ago_has_expired(stub_endpoint, monkeypatch) -> None:
    past = datetime.datetime.now(datetime.UTC).replace(tzinfo=None) - datetime.timedelta(minutes=20)
    monkeypatch.setattr(botocore.auth, "get_current_datetime", lambda: past)
    with pytest.raises(ClientError, match="Signature expired") as caught:
        answer(stub_endpoint, runtime("ok"))
    assert caught.value.response["Error"]["Code"] == "AccessDeniedException"


@pytest.mark.parametrize(
    ("arn", "expected"),
    [
        (runtime("no_such_runtime"), ("ResourceNotFoundException", 404)),
        ("arn:aws:s3:::a-bucket", ("ValidationException", 400)),
    ],
)
def test_an_unknown_or_malformed_runtime_arn_is_refused(stub_endpoint, arn, expected) -> None:
    assert error_code(lambda: answer(stub_endpoint, arn)) == expected


def test_a_session_id_shorter_than_33_characters_is_a_validation_error(stub_endpoint) -> None:
    unchecked = client(stub_endpoint, config=Config(parameter_validation=False, retries={"max_attempts": 1}))

    def call():
        return unchecked.invoke_agent_runtime(agentRuntimeArn=runtime("ok"), runtimeSessionId="short", payload=b"{}")

    assert error_code(call) == ("ValidationException", 400)


@pytest.mark.parametrize("agent", ["failing", "silent", "unreachable"])
def test_an_agent_that_fails_stays_silent_or_is_gone_is_a_runtime_client_error(
    endpoint_for, stub_endpoint, agent
) -> None:
    assert error_code(lambda: answer(endpoint_for(agent), runtime(agent))) == ("RuntimeClientError", 424)
    assert answer(stub_endpoint, runtime("ok"))


def test_past_its_rate_a_runtime_is_throttled(stub_agents) -> None:
    with agentcore_emulator(stub_agents, "--max-per-s", "0.001") as endpoint:  # one call, then none for 1,000 s
        assert answer(endpoint, runtime("ok"))
        assert error_code(lambda: answer(endpoint, runtime("ok"))) == ("ThrottlingException", 429)
        # another runtime has a bucket of its own: its call passes the rate and reaches its (failing) agent
        assert error_code(lambda: answer(endpoint, runtime("failing"))) == ("RuntimeClientError", 424)


def test_stopping_a_session_the_runtime_never_had_is_not_found(stub_endpoint) -> None:
    def call():
        return client(stub_endpoint).stop_runtime_session(agentRuntimeArn=runtime("ok"), runtimeSessionId=session_id())

    assert error_code(call) == ("ResourceNotFoundException", 404)


def test_stopping_a_session_it_had_succeeds(stub_endpoint) -> None:
    session = session_id()
    agentcore = client(stub_endpoint)
    agentcore.invoke_agent_runtime(agentRuntimeArn=runtime("ok"), runtimeSessionId=session, payload=b"{}")[
        "response"
    ].read()
    reply = agentcore.stop_runtime_session(agentRuntimeArn=runtime("ok"), runtimeSessionId=session)
    assert reply["runtimeSessionId"] == session and reply["statusCode"] == 200


def test_stopping_a_session_ends_its_answer_in_flight(stub_agents) -> None:
    with agentcore_emulator(stub_agents) as endpoint:  # no timeout of its own: only the stop can end the answer
        session = session_id()
        reply = client(endpoint).invoke_agent_runtime(
            agentRuntimeArn=runtime("pausing"), runtimeSessionId=session, payload=b"{}"
        )
        first = b'data: {"type": "text", "text": "Hello"}\n\n'
        assert reply["response"].read(len(first)) == first  # the agent is now silent, for an hour
        client(endpoint).stop_runtime_session(agentRuntimeArn=runtime("pausing"), runtimeSessionId=session)
        assert reply["response"].read() == b""  # the stream has ended


def smoke_by_arn(endpoint: str, arn: str) -> subprocess.CompletedProcess:
    command = [DEPLOY_AGENT, "smoke", "--runtime-arn", arn]
    env = agentcore_caller_env(endpoint)
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, stdin=subprocess.DEVNULL)


def invoke_by_arn(endpoint: str, arn: str, out: Path) -> subprocess.CompletedProcess:
    command = [DEPLOY_AGENT, "invoke", arn, "--prompt", "Is my table ready?", "--out", str(out)]
    env = agentcore_caller_env(endpoint)
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("agent", ["broken", "silent", "failing"])
def test_deploy_agent_invoke_reports_a_failing_runtime_in_one_line(endpoint_for, agent, tmp_path) -> None:
    result = invoke_by_arn(endpoint_for(agent), runtime(agent), tmp_path)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and result.stderr.count("error:") == 1, result.stderr


@pytest.mark.parametrize("agent", ["ok", "broken", "failing"])  # "ok" answers without speech: a failed smoke
def test_deploy_agent_smoke_of_a_runtime_without_speech_fails_with_the_reason(stub_endpoint, agent) -> None:
    result = smoke_by_arn(stub_endpoint, runtime(agent))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "error: smoke check failed against" in result.stderr and "Traceback" not in result.stderr


def test_deploy_agent_invoke_and_smoke_by_arn_speak_through_the_emulator(model_server_url, tmp_path) -> None:
    settings = AgentSettings(
        tts=TtsSettings(transport="websocket", url=model_server_url, timeout_s=60.0),
        llm=LlmSettings(provider="scripted", reply=REPLY, tokens_per_s=40.0),
    )
    with agent_server_thread(create_app(settings)) as url, agentcore_emulator({ARN: url}) as endpoint:
        result = invoke_by_arn(endpoint, ARN, tmp_path)
        smoke = smoke_by_arn(endpoint, ARN)
    assert result.returncode == 0, result.stdout + result.stderr
    assert smoke.returncode == 0 and "PASSED" in smoke.stdout + smoke.stderr, smoke.stdout + smoke.stderr
    with wave.open(str(tmp_path / "answer.wav")) as wav:
        assert_heard(wav.readframes(wav.getnframes()), wav.getframerate(), REPLY)


def presigned(endpoint: str, arn: str, session: str, secret: str = "test") -> str:
    session_creds = boto3.Session(aws_access_key_id="test", aws_secret_access_key=secret, region_name="us-east-1")
    return EndpointPresigner(session_creds, "us-east-1", endpoint).generate_presigned_url(arn, session_id=session)


async def test_a_presigned_websocket_reaches_the_runtimes_agent_with_its_session(stub_endpoint) -> None:
    session = session_id()
    async with connect(presigned(stub_endpoint, runtime("ok"), session), proxy=None) as socket:
        assert await socket.recv() == f"session {session}"
        await socket.send(b"\x00\x01 audio")
        assert await socket.recv() == b"\x00\x01 audio"
        await socket.send("text")
        assert await socket.recv() == "text"


async def test_a_websocket_signed_in_its_headers_is_accepted_too(stub_endpoint) -> None:
    session = session_id()
    path = f"/runtimes/{urllib.parse.quote(runtime('ok'), safe='')}/ws"
    host = urllib.parse.urlsplit(stub_endpoint).netloc
    signed = AWSRequest(method="GET", url=f"https://{host}{path}", headers={"host": host, SESSION_HEADER: session})
    SigV4Auth(Credentials("test", "test"), "bedrock-agentcore", "us-east-1").add_auth(signed)
    async with connect(f"ws://{host}{path}", additional_headers=dict(signed.headers), proxy=None) as socket:
        assert await socket.recv() == f"session {session}"


def refusal(url: str) -> tuple[int, str]:
    async def opening() -> tuple[int, str]:
        with pytest.raises(InvalidStatus) as caught:
            async with connect(url, proxy=None):
                pass
        return caught.value.response.status_code, caught.value.response.headers.get("x-amzn-ErrorType", "")

    return asyncio.run(opening())


def test_a_websocket_without_a_valid_presigned_url_is_refused_at_the_upgrade(stub_endpoint, monkeypatch) -> None:
    session = session_id()
    good = presigned(stub_endpoint, runtime("ok"), session)
    unsigned = good.split("&X-Amz-Algorithm")[0]
    tampered = good.replace(session, session_id())  # another session than the one signed for
    wrong_secret = presigned(stub_endpoint, runtime("ok"), session, secret="not-the-secret")
    unknown = presigned(stub_endpoint, runtime("no_such_runtime"), session)
    past = datetime.datetime.now(datetime.UTC).replace(tzinfo=None) - datetime.timedelta(seconds=301)
    monkeypatch.setattr(botocore.auth, "get_current_datetime", lambda: past)
    expired = presigned(stub_endpoint, runtime("ok"), session)  # its 300 s are over
    monkeypatch.undo()
    for url in (unsigned, tampered, wrong_secret, expired):
        assert refusal(url) == (403, "AccessDeniedException"), url
    assert refusal(unknown) == (404, "ResourceNotFoundException")
    assert refusal(presigned(stub_endpoint, runtime("unreachable"), session)) == (424, "RuntimeClientError")
    asyncio.run(open_and_close(good))  # and the emulator still serves a good one


async def open_and_close(url: str) -> None:
    async with connect(url, proxy=None) as socket:
        assert (await socket.recv()).startswith("session ")


def test_the_cli_presigns_for_the_emulator_when_boto3_is_pointed_at_it(monkeypatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_AGENTCORE", "http://127.0.0.1:8500")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    assert isinstance(presigner("us-east-1", None), EndpointPresigner)
    monkeypatch.delenv("AWS_ENDPOINT_URL_BEDROCK_AGENTCORE")
    assert not isinstance(presigner("us-east-1", None), EndpointPresigner)  # AWS's own: the SDK's client


async def test_deploy_agent_web_by_arn_talks_through_the_emulator(model_server_url) -> None:
    settings = AgentSettings(
        tts=TtsSettings(transport="websocket", url=model_server_url, timeout_s=60.0),
        llm=LlmSettings(provider="scripted", reply=REPLY, tokens_per_s=40.0),
    )
    session = session_id()
    with agent_server_thread(create_app(settings)) as url, agentcore_emulator({ARN: url}) as endpoint:
        end, audio = await web_turn(endpoint, ARN, session, "Is my table ready?")
    assert end.heard_text == REPLY
    assert_heard(audio, 24000, REPLY)
