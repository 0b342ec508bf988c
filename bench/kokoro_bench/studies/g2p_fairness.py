"""``python -m kokoro_bench g2p-fairness``: how long "Hello." takes beside two hostile texts, before and after.

Issue 20: with ``--max-sessions 4``, "Hello." sent beside a 4 KB URL-like text and a 3 KB alphanumeric
code took 25.7 s to answer (about 1 s alone), because G2P read both long texts whole first and their first
pieces then went to the model before it. This starts two servers one after the other, on the same machine
in the same run: *before* from the git ref ``--before`` names (its ``container/`` and ``speech_protocol/``
unpacked into a temporary folder) and *after* from this tree, with the same options and assets. On each it times
"Hello." alone, then beside the two hostile texts (each in a session of its own, sent just before it), and
prints the medians, each server's real-time factor, and whether "beside" is within 2x "alone" (the goal,
docs/decisions/130-fair-g2p-slices.md). Writes the figures as JSON.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Annotated

import typer
import websockets

from kokoro_processes.servers import free_port, ready_process
from kokoro_server.assets import REPO_ASSETS
from speech_protocol.client_messages import Synthesize, encode_client_message
from speech_protocol.server_events import Audio, End, Error, StreamDecoder
from speech_protocol.transports.websocket import session_url

from ..measuring.machine import run_record
from ..measuring.server import running_status
from ..paths import REPO
from ..texts import HOSTILE_CODE, HOSTILE_URL

HELLO = "Hello."
SERVER_ARGS = ("--max-sessions", "4")
GOAL_RATIO = 2.0
WAIT_S = 600.0


def unpack(ref: str, dest: Path) -> str:
    """The ref's server and protocol package under ``dest``; returns its commit."""
    commit = subprocess.run(["git", "rev-parse", ref], cwd=REPO, capture_output=True, text=True, check=True)
    archive = dest / "ref.tar"
    subprocess.run(["git", "archive", "-o", str(archive), ref, "container", "speech_protocol"], cwd=REPO, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    return commit.stdout.strip()


async def hello(url: str) -> dict[str, float]:
    """One "Hello." in a session of its own: seconds to its first audio and to its ``end``."""
    async with websockets.connect(session_url(url), max_size=None) as ws:
        decoder, first = StreamDecoder(), None
        start = time.perf_counter()
        await ws.send(encode_client_message(Synthesize(HELLO, id="hello")))
        while True:
            for event in decoder.feed(await asyncio.wait_for(ws.recv(), WAIT_S)):
                if isinstance(event, Audio) and first is None:
                    first = time.perf_counter() - start
                if isinstance(event, Error):
                    raise RuntimeError(f"Hello. failed: {event.code} {event.message}")
                if isinstance(event, End):
                    return {"first_audio_s": first or 0.0, "answer_s": time.perf_counter() - start}


async def _idle(url: str) -> None:
    """Wait until no session is open, then a little more for a G2P call that cannot be stopped."""
    while (await asyncio.to_thread(running_status, url)).listeners:
        await asyncio.sleep(0.2)
    await asyncio.sleep(2.0)


async def beside(url: str) -> dict[str, float]:
    """ "Hello." sent just after the two hostile texts, each in its own session (closed once it is heard)."""
    try:
        async with contextlib.AsyncExitStack() as stack:
            for text in (HOSTILE_URL, HOSTILE_CODE):
                ws = await stack.enter_async_context(websockets.connect(session_url(url), max_size=None))
                await ws.send(encode_client_message(Synthesize(text, id="hostile")))
            await asyncio.sleep(0.1)
            return await hello(url)
    finally:
        await _idle(url)


async def measure_server(url: str, rounds: int) -> dict:
    await hello(url)  # a first request warms what the warm-up did not
    alone = [await hello(url) for _ in range(rounds)]
    beside_ = [await beside(url) for _ in range(rounds)]
    rtf = running_status(url).rtf

    def medians(runs: list[dict[str, float]]) -> dict[str, float]:
        return {key: round(statistics.median(r[key] for r in runs), 3) for key in runs[0]}

    return {"alone": medians(alone), "beside": medians(beside_), "rtf": rtf, "runs": rounds}


def run_server(python_path: str, rounds: int) -> dict:
    port = free_port()
    command = [sys.executable, "-m", "kokoro_server", "--port", str(port), "--assets-dir", str(REPO_ASSETS)]
    command += SERVER_ARGS
    env = {**os.environ, "PYTHONPATH": python_path, "HF_HUB_OFFLINE": "1"}
    url = f"http://127.0.0.1:{port}"
    with ready_process(command, url, env=env, timeout_s=WAIT_S, what="the model server"):
        return asyncio.run(measure_server(url, rounds))


def _paths(root: Path) -> str:
    return os.pathsep.join(str(root / p) for p in ("container", "speech_protocol"))


def main(
    # Required, no default: a default ref goes stale unseen as the tree moves on.
    before: Annotated[
        str,
        typer.Option(
            help="The git ref measured as 'before': e3fdd10 is the last commit before the G2P slices"
            " (docs/decisions/130-fair-g2p-slices.md)."
        ),
    ],
    rounds: Annotated[int, typer.Option(min=1, max=20, help="Runs of each measurement (medians).")] = 3,
    json_path: Annotated[
        Path | None,
        typer.Option("--json", help="Also write the figures here (bench/results/g2p_fairness.json is the record)."),
    ] = None,
) -> None:
    """Time "Hello." alone and beside the hostile texts on the 'before' ref's server, then on this tree's."""
    figures: dict = {
        "command": " ".join(["python -m kokoro_bench g2p-fairness", *sys.argv[1:]]),
        "server_args": list(SERVER_ARGS),
        "hostile_chars": [len(HOSTILE_URL), len(HOSTILE_CODE)],
    }
    with tempfile.TemporaryDirectory() as tmp:
        commit = unpack(before, Path(tmp))
        typer.echo(f"before: {before} ({commit[:10]})", err=True)
        figures["before"] = {"ref": before, "commit": commit, **run_server(_paths(Path(tmp)), rounds)}
    typer.echo("after: this tree", err=True)
    figures["after"] = {"ref": "this tree", **run_server(_paths(REPO), rounds)}
    figures = {**run_record(), **figures}  # read at the end: the load both runs ran under
    for side in ("before", "after"):
        f = figures[side]
        f["ratio"] = round(f["beside"]["answer_s"] / f["alone"]["answer_s"], 2)
        typer.echo(
            f"{side:6}  Hello. alone {f['alone']['answer_s']:6.2f} s   beside hostile {f['beside']['answer_s']:6.2f} s"
            f"   ({f['ratio']:.1f}x; first audio {f['alone']['first_audio_s']:.2f} / {f['beside']['first_audio_s']:.2f} s)"
            f"   rtf {f['rtf']}"
        )
    figures["goal_met"] = figures["after"]["ratio"] <= GOAL_RATIO
    if json_path is not None:
        json_path.write_text(json.dumps(figures, indent=1) + "\n")
        typer.echo(f"wrote {json_path}", err=True)
