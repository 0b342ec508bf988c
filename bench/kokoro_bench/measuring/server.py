"""The real model server, started as a subprocess on a free loopback port for the length of one run.

Its log goes to a temporary file that is quoted in the error if it dies or never becomes ready, so a
broken server is reported with its own words rather than as a timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from kokoro_processes.errors import ServerFailed
from kokoro_processes.servers import model_server_process
from speech_protocol.errors import TtsError, TtsServerError
from speech_protocol.http.readiness import status as http_status
from speech_protocol.http.server_status import ServerStatus, StatusError, read_status
from speech_protocol.server_events import Ready, StreamDecoder
from speech_protocol.transports.websocket import WebSocketConnector, session_url
from speech_protocol.tts_session import TtsSession

from ..errors import BenchError

READY_TIMEOUT_S = 600.0  # model load and warm-up: up to 10 minutes on a saturated 2-core machine
READY_EVENT_TIMEOUT_S = 10.0  # a warm server sends Ready as it accepts the session


UNLIMITED_SESSIONS = 1000


@contextlib.contextmanager
def model_server(engine: str, device: str, simulate_rtf: float = 0.0) -> Iterator[str]:
    """``python -m kokoro_server`` on a free port, warm (the launcher ``deploy-agent local`` uses);
    yields its base URL and stops it afterwards. A server that dies or never warms up is a BenchError
    quoting its own log.

    Its listener limit is lifted (``--max-sessions``): the benchmark measures what happens past capacity,
    which is how the capacity is found (docs/decisions/080-admission-control.md)."""
    try:
        with model_server_process(
            engine,
            "--device",
            device,
            "--log-level",
            "warning",
            "--max-sessions",
            str(UNLIMITED_SESSIONS),
            "--simulate-rtf",
            str(simulate_rtf),
            timeout_s=READY_TIMEOUT_S,
        ) as url:
            yield url
    except ServerFailed as err:
        raise BenchError(f"{err.message}: {' | '.join(err.details) or '(no output)'}") from err


def running_status(url: str) -> ServerStatus:
    """What the server at ``url`` says of itself now (its running rtf, listeners, renders); a BenchError when
    nothing, or no model server, answers."""
    try:
        found = read_status(url)
    except StatusError as err:
        raise BenchError(str(err)) from None
    if found is None:
        raise BenchError(f"no model server answers at {url}")
    return found


def check_ready(url: str) -> None:
    """For ``--server-url``: a server that is not there, or not warm, is refused before any figure."""
    status = http_status(f"{url}/ping")
    if status != 200:
        raise BenchError(f"no warm model server at {url} (/ping answered {status or 'nothing'})")


async def advertised_ready(url: str) -> Ready:
    """The server's Ready event: its real-time factor and cost per piece, measured at its warm-up."""
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


async def _first_ready(url: str) -> Ready:
    async with connect(session_url(url), open_timeout=READY_EVENT_TIMEOUT_S, proxy=None) as ws:
        decoder = StreamDecoder()
        while True:
            for event in decoder.feed(await ws.recv()):
                if isinstance(event, Ready):
                    return event
                raise BenchError(f"the server opened its session with {type(event).__name__}, not Ready")
