"""``python -m kokoro_bench latecomer``: how long a short text waits when it arrives while others are being read.

"Hello." is posted to ``/invocations`` ``--delay`` seconds after 1, 2 or 4 other texts, each posted by a
listener of its own: hostile texts (a 4 KB URL-like token and a 3 KB alphanumeric code, taken in turn) or
long ordinary ones (the benchmark's long answer four times, 44 sentences). Its whole answer (from
posting it to its last byte) is set against the same request on the idle server, measured in the same run
before the loaded rounds and before each of them, on the same server. The other listeners hang up once "Hello." has its answer
(the server drops a hung-up text's work and stops its running render), and the next round waits until the
server serves no one. Every answer is checked: a refused request (anything but 200) is counted, not timed.
Each row also counts the renders the server stopped for a more pressing listener meanwhile (``/ping``).

This is the question of docs/decisions/130-fair-g2p-slices.md asked of a text that comes *while* others are
read rather than with them; :data:`BLOCK` is the table ``python -m kokoro_bench report`` writes into
docs/hardening.md from the results file.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Annotated

import httpx
import typer

from kokoro_server.settings import offline_environment

from ..errors import BenchError
from ..measuring.machine import run_record
from ..measuring.server import check_ready, model_server, running_status
from ..paths import REPO, RESULTS
from ..reporting.markers import Block, measured_at
from ..settings import int_list, name_list
from ..texts import LONG

LATECOMER = "Hello."
HOSTILE = (("https://example.com/" + "a/b-c_d?e=f&" * 400)[:4000], ("aB1x9Z" * 500)[:3000])
# The long answer has 11 sentences (its list's items and the line before them included): four times, one text of 44.
LONG_READ = " ".join([LONG.replace("\n", " ")] * 4)
KINDS = {"hostile": HOSTILE, "long": (LONG_READ,)}
ANSWER_TIMEOUT_S = 600.0  # a whole answer on a saturated 2-core machine
IDLE_TIMEOUT_S = 120.0  # the server's listeners to end after the others hung up
MAX_OTHERS = 16


async def _answer(client: httpx.AsyncClient, url: str, text: str) -> tuple[int, float]:
    """Post ``text``; its status and the seconds from posting it to the last byte of its answer."""
    start = time.perf_counter()
    async with client.stream("POST", f"{url}/invocations", json={"text": text, "format": "pcm"}) as reply:
        async for _chunk in reply.aiter_raw():
            pass
    return reply.status_code, time.perf_counter() - start


async def _listeners(url: str) -> int:
    return (await asyncio.to_thread(running_status, url)).listeners or 0


async def _preempted(url: str) -> int:
    """Renders the server has stopped for a more pressing listener so far (docs/decisions/168)."""
    return (await asyncio.to_thread(running_status, url)).preempted or 0


async def _idle(url: str, before: int) -> None:
    """Until the server serves no more listeners than ``before`` the run (a shared server may serve others):
    the hung-up texts' work is gone before the next round."""
    deadline = time.monotonic() + IDLE_TIMEOUT_S
    while await _listeners(url) > before:
        if time.monotonic() > deadline:
            raise BenchError(f"the server still served the others {IDLE_TIMEOUT_S:g} s after they hung up")
        await asyncio.sleep(0.1)


async def _round(
    client: httpx.AsyncClient, url: str, others: list[str], delay_s: float, before: int
) -> tuple[int, float, int]:
    """One latecomer after ``others``: its status and seconds, and how many of the others were refused."""
    readers = [asyncio.create_task(_answer(client, url, text)) for text in others]
    await asyncio.sleep(delay_s)
    status, seconds = await _answer(client, url, LATECOMER)
    refused = sum(1 for task in readers if task.done() and not task.exception() and task.result()[0] != 200)
    for task in readers:
        task.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    await _idle(url, before)
    return status, seconds, refused


async def _measure(url: str, kinds: list[str], counts: list[int], repeats: int, delay_s: float, say) -> dict:
    timeout = httpx.Timeout(ANSWER_TIMEOUT_S, connect=30.0)
    limits = httpx.Limits(max_connections=max(counts) + 2)
    before = await _listeners(url)
    async with httpx.AsyncClient(timeout=timeout, limits=limits, trust_env=False) as client:

        async def alone() -> float:
            status, seconds = await _answer(client, url, LATECOMER)
            if status != 200:
                raise BenchError(f"{LATECOMER!r} alone was refused ({status})")
            return seconds

        say(f'"{LATECOMER}" alone, its first answer: {await alone():.2f} s (what the warm-up left cold)')
        # Alone before each loaded round as well, so that its median spans the same minutes of a shared machine.
        alone_runs = [await alone() for _ in range(repeats)]
        loaded = []
        for kind in kinds:
            for count in counts:
                others = [KINDS[kind][i % len(KINDS[kind])] for i in range(count)]
                preempted = await _preempted(url)
                runs = []
                for _ in range(repeats):
                    alone_runs.append(await alone())
                    runs.append(await _round(client, url, others, delay_s, before))
                loaded.append((kind, count, runs, await _preempted(url) - preempted))
                say(f"{count} {kind} being read: {_seconds(runs)}")  # progress, minutes apart
        alone_s = statistics.median(alone_runs)
        say(f'"{LATECOMER}" alone: {alone_s:.2f} s, median of {len(alone_runs)}')
        rows = [
            {"kind": kind, "others": count, **_figures(runs, alone_s), "preempted": preempted}
            for kind, count, runs, preempted in loaded
        ]
    return {"alone_s": round(alone_s, 3), "alone_runs": len(alone_runs), "rows": rows}


def _seconds(runs: list[tuple[int, float, int]]) -> str:
    """The latecomer's whole answer in each round, as printed while the run goes on."""
    return ", ".join(f"{seconds:.2f} s" if status == 200 else f"refused ({status})" for status, seconds, _ in runs)


def _figures(runs: list[tuple[int, float, int]], alone_s: float) -> dict:
    """The latecomer's median and worst whole answer over its answered rounds, their ratio to it alone, and
    every refusal (its own and the others')."""
    timed = [seconds for status, seconds, _ in runs if status == 200]
    refused = sum(status != 200 for status, _, _ in runs) + sum(others for _, _, others in runs)
    if not timed:
        return {"latecomer_s": None, "latecomer_max_s": None, "ratio": None, "refused": refused}
    median = statistics.median(timed)
    return {
        "latecomer_s": round(median, 3),
        "latecomer_max_s": round(max(timed), 3),
        "ratio": round(median / alone_s, 2),
        "refused": refused,
    }


def _kinds(raw: str) -> list[str]:
    chosen = list(name_list("--kinds", raw))
    unknown = sorted(set(chosen) - set(KINDS))
    if not chosen or unknown:
        raise BenchError(f"--kinds: use {' and/or '.join(KINDS)}, got {raw[:60]!r}")
    return chosen


def _counts(raw: str) -> list[int]:
    counts = list(int_list("--others", raw))
    if not counts or not all(1 <= count <= MAX_OTHERS for count in counts):
        raise BenchError(f"--others: whole numbers from 1 to {MAX_OTHERS}, got {raw[:60]!r}")
    return counts


def latecomer(
    json_path: Annotated[Path, typer.Option("--json", help="Write the figures here.")] = Path(
        "bench/results/latecomer.json"
    ),
    kinds: Annotated[str, typer.Option(help="Comma-separated: hostile,long.")] = "hostile,long",
    others: Annotated[str, typer.Option(help="How many texts are being read when it arrives, e.g. 1,2,4.")] = "1,2,4",
    repeats: Annotated[int, typer.Option(min=1, max=10, help="Rounds of each (medians).")] = 3,
    delay: Annotated[float, typer.Option(min=0.0, max=60.0, help="Seconds between the others and it.")] = 2.0,
    engine: Annotated[str, typer.Option(help="onnx or torch, for the server this starts.")] = "onnx",
    device: Annotated[str, typer.Option(help="cpu or cuda, for the server this starts.")] = "cpu",
    server_url: Annotated[str | None, typer.Option(help="Use this warm server instead of starting one.")] = None,
) -> None:
    """How long "Hello." waits for its whole answer when it arrives while hostile or long texts are being read."""
    offline_environment()

    def say(line: str) -> None:
        typer.echo(line, err=True)

    try:
        chosen, counts = _kinds(kinds), _counts(others)

        def measure(url: str) -> dict:
            figures = asyncio.run(_measure(url, chosen, counts, repeats, delay, say))
            status = running_status(url)
            return figures | {"rtf": status.rtf, "engine": status.engine}

        if server_url:
            check_ready(server_url)
            figures = measure(server_url)
        else:
            with model_server(engine, device) as url:
                figures = measure(url)
    except (BenchError, httpx.HTTPError) as err:  # a server that died or hung mid-run: one line, not a traceback
        typer.echo(f"bench latecomer: {err}", err=True)
        raise typer.Exit(2) from None
    figures = {
        "command": "python -m kokoro_bench latecomer",
        "repeats": repeats,
        "delay_s": delay,
        **figures,
        **run_record(),
    }
    typer.echo(table(figures))
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(figures, indent=2) + "\n")
    say(f"wrote {json_path}")


def table(figures: dict) -> str:
    """One row per kind and number of texts being read: the latecomer's whole answer against it alone."""
    lines = [
        f'"{LATECOMER}" posted {figures["delay_s"]:g} s after the other texts, each its own listener, '
        f"{figures['engine']} engine, medians of {figures['repeats']}; alone it took {figures['alone_s']:.2f} s "
        f"(median of {figures['alone_runs']}, before the loaded rounds and between them). "
        + measured_at(figures, figures["command"], figures["rtf"])
        + ":",
        "",
        "| being read when it arrives | its whole answer | worst | vs alone | refused | renders preempted |",
        "|---|---|---|---|---|---|",
    ]
    for row in figures["rows"]:
        what = f"{row['others']} {row['kind']} text{'s' if row['others'] > 1 else ''}"
        if row["latecomer_s"] is None:
            lines.append(f"| {what} | refused | | | {row['refused']} | {row['preempted']} |")
            continue
        lines.append(
            f"| {what} | {row['latecomer_s']:.2f} s | {row['latecomer_max_s']:.2f} s | {row['ratio']:.2f}x "
            f"| {row['refused']} | {row['preempted']} |"
        )
    return "\n".join(lines) + "\n"


BLOCK = Block("latecomer", RESULTS / "latecomer.json", {REPO / "docs" / "hardening.md": table})
