"""Each fix ``kokoro-serve`` and the model server print, followed literally: the server then starts, or the
request then succeeds.

A start counts once ``/ping`` answers (503 while the model loads is enough: the assets and options were
accepted); the server is then stopped with Ctrl-C and must exit 0 (docs/decisions/110-a-requested-stop-exits-0.md).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest
import websockets
from servers import REPO, free_port
from session_client import ends, read_until, ws_url

from kokoro_server import assets as model_assets
from speech_protocol.server_events import End, Error, StreamDecoder

START_S = 600.0


def serve(*args: str, cwd: Path = REPO, **env: str) -> tuple[int, str]:
    """``kokoro-serve ARGS``: (0, log) when it started and then stopped on Ctrl-C, else its exit code and log."""
    if "--port" not in args:
        args = (*args, "--port", str(free_port()))
    port = args[args.index("--port") + 1]
    with tempfile.TemporaryFile(mode="w+") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kokoro_server", *args],
            cwd=cwd,
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=log,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal starts it
        )
        deadline = time.monotonic() + START_S
        while proc.poll() is None and not _answers(port) and time.monotonic() < deadline:
            time.sleep(0.2)
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=120)
        log.seek(0)
        return proc.returncode, log.read()


def _answers(port: str) -> bool:
    try:
        httpx.get(f"http://127.0.0.1:{port}/ping", timeout=2)
    except httpx.HTTPError:
        return False
    return True


def fix_of(stderr: str) -> str:
    """The one error line's fix (``... Fix: <what to do>``)."""
    (line,) = stderr.strip().splitlines()
    assert line.startswith("error: ") and ". Fix: " in line, line
    return line.split(". Fix: ", 1)[1]


def run_fix(command: str, cwd: Path) -> None:
    """Run a fix that starts with ``.venv/bin/python`` from ``cwd`` (the repository's environment)."""
    argv = shlex.split(command)
    assert argv[0] == ".venv/bin/python", command
    done = subprocess.run([sys.executable, *argv[1:]], cwd=cwd, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr


def test_a_voices_dir_that_holds_none_and_its_fix() -> None:
    code, err = serve(KOKORO_VOICES_DIR="voices")  # what docs/capacity.md once said
    assert code == 2
    assert fix_of(err).startswith("correct --voices-dir (KOKORO_VOICES_DIR), or leave it unset")
    assert serve()[0] == 0  # left unset


def test_a_bad_engine_and_a_port_in_use_and_their_fixes() -> None:
    code, err = serve("--engine", "tensorflow")
    assert code == 2 and "engine: 'tensorflow' is not one of onnx, torch" in err
    assert serve("--engine", "onnx")[0] == 0
    port = free_port()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen()
        code, err = serve("--port", str(port))
        assert code == 2 and "stop whatever uses that port, or choose another with --port" in err
        assert serve("--port", str(free_port()))[0] == 0  # "choose another with --port"
    assert serve("--port", str(port))[0] == 0  # "stop whatever uses that port"


@pytest.mark.slow
def test_an_assets_dir_without_weights_is_rebuilt_where_the_fix_says(tmp_path: Path) -> None:
    assets_dir = tmp_path / "assets"
    shutil.copytree(model_assets.REPO_ASSETS / "voices", assets_dir / "voices")
    code, err = serve("--assets-dir", str(assets_dir))
    assert code == 2 and model_assets.TIMED_ONNX_FILE in err
    run_fix(fix_of(err), REPO)  # .venv/bin/python -m kokoro_server.offline_assets build --dest <that folder>
    assert serve("--assets-dir", str(assets_dir))[0] == 0


@pytest.mark.slow
def test_torch_without_its_weights_and_the_rebuild_step(tmp_path: Path) -> None:
    code, err = serve("--engine", "torch")
    assert code == 2 and model_assets.TORCH_FILE in err
    build, use = fix_of(err).split(", then pass ")
    run_fix(build, tmp_path)  # .venv/bin/python -m kokoro_devtools.torch_weights --out kokoro-v1_0.pth
    option = use.split(" (or ")[0].split()  # --torch-model kokoro-v1_0.pth
    assert serve("--engine", "torch", *option, cwd=tmp_path)[0] == 0


async def test_the_wrong_content_type_and_its_fix(model_server_url: str) -> None:
    body = json.dumps({"text": "Hi."})
    async with httpx.AsyncClient(base_url=model_server_url, timeout=120) as client:
        refused = await client.post("/invocations", content=body, headers={"content-type": "text/plain"})
        assert (
            refused.status_code == 415 and refused.json()["error"]["message"] == "send the request as application/json"
        )
        followed = await client.post("/invocations", content=body, headers={"content-type": "application/json"})
    assert followed.status_code == 200 and followed.content[:4] == b"RIFF"


async def test_a_closing_session_and_its_fix(model_server_url: str) -> None:
    async with websockets.connect(ws_url(model_server_url)) as ws:
        # An utterance in progress keeps the closing session open while the late one is read: with nothing
        # left to say, the server may end the session before it reads another message.
        speech = "This sentence keeps the session speaking while the next messages arrive."
        await ws.send(json.dumps({"type": "synthesize", "id": "first", "text": speech}))
        await ws.send(json.dumps({"type": "close"}))
        await ws.send(json.dumps({"type": "synthesize", "id": "late", "text": "Too late."}))
        events = await read_until(ws, StreamDecoder(), lambda ev: any(isinstance(e, Error) for e in ev))
    refused = next(e for e in events if isinstance(e, Error))
    assert refused.code == "session_closing" and "open a new session for more speech" in refused.message
    async with websockets.connect(ws_url(model_server_url)) as ws:  # a new session
        await ws.send(json.dumps({"type": "synthesize", "id": "again", "text": "Not too late."}))
        events = await read_until(ws, StreamDecoder(), ends(1))
    assert any(isinstance(e, End) and e.id == "again" and e.audio_s > 0 for e in events)
