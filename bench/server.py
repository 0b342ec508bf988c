"""The real model server, started as a subprocess on a free loopback port for the length of one run.

Its log goes to a temporary file that is quoted in the error if it dies or never becomes ready, so a
broken server is reported with its own words rather than as a timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from kokoro_server.protocol import Ready, StreamDecoder
from voice_agent.tts_client import TtsError, TtsServerError, TtsSession
from voice_agent.tts_client.websocket import WebSocketConnector, session_url

from .errors import BenchError

READY_TIMEOUT_S = 300.0  # model load and warm-up; minutes on a busy 2-core machine
READY_EVENT_TIMEOUT_S = 10.0  # a warm server sends Ready as it accepts the session
REPO = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _ping(url: str) -> int | None:
    try:
        with urllib.request.urlopen(f"{url}/ping", timeout=2) as reply:  # noqa: S310 - loopback URL we built
            return reply.status
    except urllib.error.HTTPError as err:
        return err.code
    except (urllib.error.URLError, OSError):
        return None


@contextlib.contextmanager
def model_server(engine: str, device: str) -> Iterator[str]:
    """``python -m kokoro_server`` on a free port, warm; yields its base URL and stops it afterwards."""
    port = _free_port()
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kokoro_server", "--port", str(port), "--engine", engine, "--device", device,
             "--log-level", "warning"],
            cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_ready(url, proc, log)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_ready(url: str, proc: subprocess.Popen, log) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise BenchError(f"the model server exited with {proc.returncode}: {_tail(log)}")
        if _ping(url) == 200:
            return
        time.sleep(0.25)
    raise BenchError(f"the model server was not ready after {READY_TIMEOUT_S:.0f} s: {_tail(log)}")


def _tail(log, chars: int = 1500) -> str:
    log.flush()
    log.seek(0)
    return log.read()[-chars:].strip() or "(no output)"


def check_ready(url: str) -> None:
    """For ``--server-url``: a server that is not there, or not warm, is refused before any figure."""
    status = _ping(url)
    if status != 200:
        raise BenchError(f"no warm model server at {url} (/ping answered {status or 'nothing'})")


async def advertised_rtf(url: str) -> float | None:
    """The real-time factor the server's Ready event advertises (measured at its warm-up)."""
    try:
        return await asyncio.wait_for(_first_ready(url), READY_EVENT_TIMEOUT_S)
    except TimeoutError:
        raise BenchError(f"no Ready event from {url} within {READY_EVENT_TIMEOUT_S:g} s") from None
    except (OSError, InvalidHandshake, ConnectionClosed) as err:
        raise BenchError(f"cannot open a session at {url}: {err}") from err
    except ValueError as err:  # undecodable bytes, incl. ProtocolError
        raise BenchError(f"the server's session stream is not the protocol: {str(err)[:200]}") from err


async def check_voice(url: str, voice: str) -> None:
    """Speak one word with ``voice``: a voice the server lacks is refused before any figure is taken."""
    try:
        async with TtsSession(WebSocketConnector(url), timeout_s=60) as session:
            await session.synthesize("voice-check", "Hi.", voice, 1.0)
            await session.finish()
            async for _event in session.events():
                pass
    except TtsServerError as err:
        raise BenchError(f"--voice {voice[:40]!r}: {err.message}") from err
    except TtsError as err:
        raise BenchError(f"cannot speak on {url}: {err.code}: {err.message}") from err


async def _first_ready(url: str) -> float | None:
    async with connect(session_url(url), open_timeout=READY_EVENT_TIMEOUT_S, proxy=None) as ws:
        decoder = StreamDecoder()
        while True:
            for event in decoder.feed(await ws.recv()):
                if isinstance(event, Ready):
                    return event.rtf
                raise BenchError(f"the server opened its session with {type(event).__name__}, not Ready")
