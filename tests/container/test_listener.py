"""The server against the network: a busy port, slow and too many clients, a client that hangs
up mid-request, and SIGTERM. One dedicated server for the module, started with a 2 s header timeout and a
cap of 24 connections so the limits show quickly; the last test stops it with SIGTERM."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

import httpx
import pytest
import websockets
from process_tree import wait_until_idle
from servers import QUICK_WARM_UP, free_port, wait_ready
from session_client import read_until, ws_url

from kokoro_server.text.normalize import normalize
from kokoro_server.text.slices import g2p_slices
from speech_protocol.client_messages import Synthesize, encode_client_message
from speech_protocol.http.server_status import read_status
from speech_protocol.server_events import Start, StreamDecoder

HEADER_TIMEOUT_S = 2
MAX_CONNECTIONS = 24
# A path the text normalizer leaves as it is (it reads URLs with a scheme itself): ~5,000 characters in one
# token, which G2P reads in linear time only because it is broken at its separators
# (docs/decisions/040-bounded-g2p.md): seconds of G2P, then minutes of audio.
HOSTILE_PATH = "/srv/" + "a/" * 2_400


@pytest.fixture(scope="module")
def server():
    """(base URL, process) of a model server of its own; the SIGTERM test ends it."""
    port = free_port()
    log = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kokoro_server",
            "--port",
            str(port),
            "--header-timeout",
            str(HEADER_TIMEOUT_S),
            "--max-connections",
            str(MAX_CONNECTIONS),
            *QUICK_WARM_UP,
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(f"{url}/ping", proc, timeout=400)
        proc.log = log  # type: ignore[attr-defined]  # the SIGTERM test reads how it ended
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        log.close()


def test_port_in_use_exits_at_once_with_the_fix(server):
    url, _proc = server
    port = url.rsplit(":", 1)[1]
    result = subprocess.run(
        [sys.executable, "-m", "kokoro_server", "--port", port], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr and "--port" in result.stderr
    assert "model ready" not in result.stderr  # it stopped before loading anything


async def _trickle_head(port: int, give_up_s: float) -> float | None:
    """Send a request head one byte every 0.5 s; seconds until the server closed, None if it never did. The
    clock starts before the connection does: the server's header deadline starts when it accepts, which is
    never earlier, whereas this loop may learn of the connection a second later on a loaded machine."""
    start = time.monotonic()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        for byte in b"GET /ping HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"y" * 1000:
            if time.monotonic() - start > give_up_s:
                return None
            writer.write(bytes([byte]))
            try:
                if await asyncio.wait_for(reader.read(1024), timeout=0.5) == b"":
                    return time.monotonic() - start
            except TimeoutError:
                continue
        return None
    except ConnectionError:
        return time.monotonic() - start
    finally:
        writer.close()


async def test_slow_request_heads_are_closed_while_others_are_served(server):
    url, _proc = server
    port = int(url.rsplit(":", 1)[1])
    slow = [asyncio.create_task(_trickle_head(port, give_up_s=20)) for _ in range(MAX_CONNECTIONS // 2)]
    async with httpx.AsyncClient() as client:
        while not all(task.done() for task in slow):
            assert (await client.get(f"{url}/ping", timeout=10)).status_code == 200
            await asyncio.sleep(0.5)
    closed_after = [task.result() for task in slow]
    assert None not in closed_after, closed_after
    assert min(closed_after) >= HEADER_TIMEOUT_S - 0.5


async def test_connections_over_the_cap_get_503_until_idle_ones_time_out(server):
    url, _proc = server
    port = int(url.rsplit(":", 1)[1])
    idle = [await asyncio.open_connection("127.0.0.1", port) for _ in range(MAX_CONNECTIONS)]
    try:
        async with httpx.AsyncClient() as client:
            assert (await client.get(f"{url}/ping", timeout=10)).status_code == 503
            # The idle connections sent no head: the server closes them after HEADER_TIMEOUT_S, and from then
            # on serves again. How soon after depends on the machine's load; the deadline only stops a hang.
            deadline = time.monotonic() + HEADER_TIMEOUT_S + 60
            while (status := (await client.get(f"{url}/ping", timeout=10)).status_code) == 503:
                assert time.monotonic() < deadline, "the idle connections were never closed"
                await asyncio.sleep(0.5)
            assert status == 200
    finally:
        for _reader, writer in idle:
            writer.close()


def test_work_stops_when_the_client_hangs_up(server):
    """A client that hangs up while its text is being read leaves the server at rest with none of that text
    rendered and the rest of it not read (this path once kept the model worker busy for many minutes after
    the client had gone). At rest is the whole process tree: G2P runs in the server's worker processes. The
    client hangs up once the server has read the text's first slice (its /ping counter), while G2P reads the
    rest: reading them all anyway, as a server that does not watch for the hang-up before audio streams does,
    fails the count."""
    url, proc = server
    before = read_status(url)
    body = json.dumps({"text": HOSTILE_PATH, "format": "pcm"}).encode()
    head = f"POST /invocations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    with socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])), timeout=60) as client:
        client.sendall(head.encode() + body)
        deadline = time.monotonic() + 300  # a bound against a hang only
        while read_status(url).g2p_slices == before.g2p_slices:
            assert time.monotonic() < deadline, "the server never began reading the text"
    # the client has hung up, while the text is being read
    wait_until_idle(proc.pid, timeout_s=300)  # the G2P call ends (seconds), then nothing runs
    after = read_status(url)
    assert after.renders == before.renders, "the hung-up text was rendered"
    read = after.g2p_slices - before.g2p_slices
    assert read < len(g2p_slices(normalize(HOSTILE_PATH).spoken)), f"all {read} slices of the hung-up text were read"


async def test_sigterm_ends_the_server_within_seconds_cancelling_queued_work(server):
    url, proc = server
    async with websockets.connect(ws_url(url)) as ws:
        for i in range(4):
            await ws.send(encode_client_message(Synthesize(f"Queued utterance {i}. " * 20, id=f"q{i}")))
        await ws.send(encode_client_message(Synthesize(HOSTILE_PATH, id="hostile")))
        await read_until(ws, StreamDecoder(), lambda events: any(isinstance(e, Start) for e in events))
        async with httpx.AsyncClient() as client:
            async with client.stream(
                "POST", f"{url}/invocations", timeout=60, json={"text": "A long answer. " * 40, "format": "pcm"}
            ) as r:
                await r.aiter_raw().__anext__()  # audio is streaming
                start = time.monotonic()
                proc.terminate()
                exit_code = await asyncio.to_thread(
                    proc.wait, 20
                )  # a bounded grace: 041-network-limits-and-shutdown.md
    print(f"SIGTERM to exit: {time.monotonic() - start:.1f} s")
    assert exit_code == 0  # a stop that was asked for (docs/decisions/110-a-requested-stop-exits-0.md)
    proc.log.seek(0)
    assert "Application shutdown complete" in proc.log.read()
