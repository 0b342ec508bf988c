"""A session tells its client the server's running pace in Ready, then in an ``end`` only when it changed, and a
new session starts from the latest (docs/decisions/121-first-piece-from-the-running-pace.md).

The real server in this process, on a real socket, with the real model, and the one thing a test cannot make
happen on cue scripted: the running pace the runtime reports at each ask (on a real server it moves with every
render, by amounts no test controls, so a test of "only when it changed" could see no change and check nothing).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
import uvicorn
import websockets
from servers import SERVER_START_S, free_port
from session_client import ends, read_until, ws_url

from kokoro_server import assets as model_assets
from kokoro_server.runtime import SpeechRuntime
from kokoro_server.server import create_app
from kokoro_server.settings import ServerSettings
from speech_protocol.client_messages import Synthesize, encode_client_message
from speech_protocol.http import readiness
from speech_protocol.pace import SpeechModel
from speech_protocol.server_events import End, Ready, StreamDecoder

pytestmark = pytest.mark.slow

# Lifted listener limit, as the suite's shared server has: a closed session's share is released a moment after
# its socket closes, and the next session may come sooner (capacity is tests/container/test_admission.py's).
SETTINGS = ServerSettings(max_sessions=64)
SLOW, FAST = SpeechModel(rtf=0.5, overhead_s=0.2), SpeechModel(rtf=0.25, overhead_s=0.1)


class ScriptedPace:
    """The paces the runtime reports, one per ask, in order (the last one from then on), and how many were asked."""

    def __init__(self, *paces: SpeechModel) -> None:
        self.paces, self.asked = list(paces), 0

    def __call__(self, runtime: SpeechRuntime) -> SpeechModel:
        pace = self.paces[min(self.asked, len(self.paces) - 1)]
        self.asked += 1
        return pace


@pytest.fixture(scope="module")
def scripted() -> Iterator[tuple[str, ScriptedPace]]:
    pace = ScriptedPace()
    patch = pytest.MonkeyPatch()
    patch.setattr(SpeechRuntime, "running_pace", lambda runtime: pace(runtime))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(SETTINGS, model_assets.resolve("onnx")), port=port))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    try:
        readiness.wait_ready(f"{url}/ping", timeout_s=SERVER_START_S, alive=thread.is_alive)
        yield url, pace
    finally:
        server.should_exit = True
        thread.join(60)
        patch.undo()


async def _session(url: str, texts: list[str]) -> tuple[Ready, list[End]]:
    async with websockets.connect(ws_url(url)) as ws:
        for i, text in enumerate(texts):
            await ws.send(encode_client_message(Synthesize(text, id=f"p{i}")))
        events = await read_until(ws, StreamDecoder(), ends(len(texts)))
    ready = events[0]
    assert isinstance(ready, Ready)
    return ready, [e for e in events if isinstance(e, End)]


def _told(pace: SpeechModel | None) -> tuple[float | None, float | None]:
    return (pace.rtf, pace.overhead_s) if pace else (None, None)


async def test_the_pace_is_told_in_ready_then_only_when_it_changed(scripted) -> None:
    url, pace = scripted
    # Asked once for Ready, then once per end: unchanged, changed, unchanged.
    pace.paces, pace.asked = [SLOW, SLOW, FAST, FAST], 0
    ready, ends_ = await _session(url, ["One.", "A second piece.", "And a third."])
    assert pace.asked == 4
    assert (ready.rtf, ready.piece_overhead_s) == _told(SLOW)
    assert [(end.rtf, end.piece_overhead_s) for end in ends_] == [_told(None), _told(FAST), _told(None)]
    # A new session is told the latest pace in its Ready, whatever the last session was told.
    ready, _ = await _session(url, ["Again."])
    assert (ready.rtf, ready.piece_overhead_s) == _told(FAST)
