"""Fair G2P on a real server: "Hello." beside two hostile texts is answered before either long text's
audio, a killed G2P process is replaced and the server keeps serving, and SIGTERM leaves no G2P process
behind (docs/decisions/130-fair-g2p-slices.md). One server of its own, with ONE G2P process, so that what
is tested is the slicing and its order, not spare processes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

import httpx
import pytest
import websockets
from servers import QUICK_WARM_UP, SERVER_START_S, model_server_child
from session_client import read_until, ws_url

from speech_protocol.client_messages import Synthesize, encode_client_message
from speech_protocol.http.server_status import ServerStatus, read_status
from speech_protocol.server_events import Audio, End, Error, Start, StreamDecoder

# A 4 KB URL-like text and a 3 KB alphanumeric code, as in issue 20 (docs/decisions/130-fair-g2p-slices.md).
URL_TEXT = ("https://example.com/" + "a/b-c_d?e=f&" * 400)[:4000]
CODE_TEXT = ("aB1x9Z" * 500)[:3000]


def g2p_pids(server_pid: int) -> set[int]:
    """The server's G2P worker processes (spawned children), from /proc."""
    pids = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (stat.parent / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
        if ppid == server_pid and b"spawn_main" in cmdline:
            pids.add(int(stat.parent.name))
    return pids


@pytest.fixture(scope="module")
def server():
    with model_server_child(
        "onnx", "--g2p-workers", "1", "--max-sessions", "4", *QUICK_WARM_UP, timeout_s=SERVER_START_S
    ) as (url, proc):
        yield url, proc


async def until_reading(pid: int) -> None:
    """Return once the G2P process ``pid`` is working (runnable: on a CPU or waiting for one), not before: a
    kill then lands while it reads, whatever the machine's load (a fixed sleep let it land before the read)."""
    state = Path(f"/proc/{pid}/stat")
    async with asyncio.timeout(600):
        while state.read_text().rsplit(")", 1)[1].split()[0] != "R":
            await asyncio.sleep(0.005)


def ping(url: str) -> ServerStatus:
    found = read_status(url)
    assert found is not None, f"nothing answers at {url}"
    return found


async def _listen(name: str, ws, log: list[tuple[str, object]], until) -> None:
    """Every event of one open session into ``log`` (arrival order over all sessions) as it arrives, until
    ``until(log)`` holds."""
    decoder = StreamDecoder()
    while not until(log):
        try:
            frame = await asyncio.wait_for(ws.recv(), timeout=2)
        except TimeoutError:
            continue
        log.extend((name, event) for event in decoder.feed(frame))


def _first(log: list[tuple[str, object]], name: str, kind: type) -> int | None:
    return next((i for i, (who, event) in enumerate(log) if who == name and isinstance(event, kind)), None)


async def test_hello_beside_hostile_texts_is_answered_before_their_audio(server) -> None:
    url, _proc = server
    log: list[tuple[str, object]] = []
    texts = {"url": URL_TEXT, "code": CODE_TEXT, "hello": "Hello."}

    def settled(log) -> bool:  # Hello done, and both long texts read (or failed)
        return _first(log, "hello", End) is not None and all(
            _first(log, name, Start) is not None or _first(log, name, Error) is not None for name in ("url", "code")
        )

    async with contextlib.AsyncExitStack() as stack:
        # The three sessions are open before any text is sent, and "Hello." is sent right after the long
        # texts: it reaches the server while they are being read, however slow a loaded machine makes
        # the handshakes (a sleep between them let the short code text be read, and its first piece
        # queued, before "Hello." arrived: a verdict that depended on the load).
        sockets = {
            name: await stack.enter_async_context(websockets.connect(ws_url(url), max_size=None)) for name in texts
        }
        for name, text in texts.items():
            await sockets[name].send(encode_client_message(Synthesize(text, id=name)))
        await asyncio.wait_for(asyncio.gather(*(_listen(name, ws, log, settled) for name, ws in sockets.items())), 600)
    hello_end = _first(log, "hello", End)
    assert hello_end is not None and log[hello_end][1].audio_s > 0.2
    assert all(_first(log, name, Error) is None for name in ("url", "code")), log
    for name in ("url", "code"):  # read in full, but heard only after "Hello." was answered
        audio = _first(log, name, Audio)
        assert audio is None or audio > hello_end, (name, audio, hello_end)


async def test_a_killed_g2p_process_is_replaced_and_the_next_text_is_served(server) -> None:
    url, proc = server
    before = g2p_pids(proc.pid)
    replaced = ping(url).g2p_replaced
    assert len(before) == 1
    (worker,) = before
    async with websockets.connect(ws_url(url), max_size=None) as ws:
        await ws.send(encode_client_message(Synthesize(URL_TEXT, id="long")))
        await until_reading(worker)
        os.kill(worker, signal.SIGKILL)  # while it reads the long text
        events = await read_until(
            ws, StreamDecoder(), lambda ev: any(isinstance(e, (Start, Error)) for e in ev), timeout=600
        )
    # Its slice is read again by the replacement, and the text is spoken: no error reaches the listener.
    assert isinstance(events[-1], Start), events[-1]
    async with httpx.AsyncClient() as client:  # and the next text, from another listener, is served
        answer = await client.post(f"{url}/invocations", json={"text": "Still here.", "format": "pcm"}, timeout=600)
    assert answer.status_code == 200 and len(answer.content) > 0
    after = g2p_pids(proc.pid)
    assert len(after) == 1 and not after & before
    assert ping(url).g2p_replaced == replaced + 1


def test_sigterm_leaves_no_g2p_process(server) -> None:
    _url, proc = server
    workers = g2p_pids(proc.pid)
    assert workers
    proc.terminate()
    assert proc.wait(60) == 0  # a clean stop on SIGTERM (docs/decisions/110-a-requested-stop-exits-0.md)
    assert not {pid for pid in workers if Path(f"/proc/{pid}").exists()}
