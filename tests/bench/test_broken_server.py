"""A model-server look-alike that is up (/ping 200) but breaks its session: one line and exit 2, no hang."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket
from typer.testing import CliRunner

from kokoro_bench.app import app
from kokoro_processes.servers import agent_server_thread
from speech_protocol.framing import SESSION_PATH


async def ping(request) -> JSONResponse:
    return JSONResponse({"status": "ready"})


async def garbage(websocket: WebSocket) -> None:
    await websocket.accept()
    await websocket.send_text("this is not the protocol\n")
    await websocket.receive()


async def wrong_first_event(websocket: WebSocket) -> None:
    await websocket.accept()
    await websocket.send_text(
        '{"type": "end", "id": "x", "audio_s": 0, "first_audio_s": 0, "synth_s": 0, "queued_s": 0}\n'
    )
    await websocket.receive()


async def refuse(websocket: WebSocket) -> None:
    await websocket.close(code=1011)


@contextlib.contextmanager
def look_alike(session) -> Iterator[str]:
    app = Starlette(routes=[Route("/ping", ping), WebSocketRoute(SESSION_PATH, session)])
    with agent_server_thread(app, graceful_s=1) as url:
        yield url


@pytest.mark.parametrize(
    "session, needle",
    [
        (garbage, "not the protocol"),
        (wrong_first_event, "not Ready"),
        (refuse, "cannot open a session"),
    ],
)
def test_a_broken_session_is_one_line_and_exit_2(session, needle) -> None:
    with look_alike(session) as url:
        result = CliRunner().invoke(app, ["--quick", "--server-url", url])
    assert result.exit_code == 2, result.output
    assert needle in result.output and "Traceback" not in result.output


def test_a_model_that_fails_to_load_ends_the_run_at_once(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """/ping answers 503 "failed" for good (the server stays up for SageMaker): the run must not wait out
    its 600 s start-up budget. Here: the torch engine on CUDA, which this machine lacks (on a GPU machine
    the weights file, which is not one, fails the load instead)."""
    weights = tmp_path / "not-weights.pth"
    weights.write_bytes(b"not a checkpoint")
    monkeypatch.setenv("KOKORO_TORCH_MODEL", str(weights))
    result = CliRunner().invoke(app, ["--quick", "--engine", "torch", "--device", "cuda"])
    assert result.exit_code == 2, result.output
    assert "did not become ready: its model failed to load" in result.output, result.output
