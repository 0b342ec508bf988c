"""``python -m kokoro_bench interrupt``: how fast barge-in silences the agent, and how soon it answers again.

One conversation socket on the real agent app (scripted LLM) and the real model server. Each round lets
the current answer play for a random time (0.2-3 s after its first audio), sends ``interrupt``, then a new
``prompt``: at once in odd rounds, after ``--settle-s`` seconds in even ones (a *fresh* turn: by then any
render the interrupt left running has ended, stopped or not). It measures:

* interrupt -> last audio frame of the interrupted turn (0 when none arrived after the interrupt); goal
  <= 100 ms at p95 (docs/decisions/071-what-was-heard.md);
* interrupt -> its ``turn_end``;
* prompt -> first audio of the next turn, right after an interrupt (its first piece is synthesised while the
  interrupted turn's session is being cancelled) and in a fresh turn, and their ratio (issue 21's goal:
  worst case <= 1.5x, p95 <= 1.2x the fresh turn's p50; docs/decisions/120-cancel-the-running-inference.md).

With ``--long-sentences`` the answer is sentences of nearly 300 characters with no clause mark: once the first
one is read, in the ramp's short pieces, each is a piece of its own, and an interrupt lands while one is being
rendered: the case where the interrupted turn's render holds the model worker. The run counts the renders the model server stopped for a
cancel meanwhile (``/ping``'s ``stopped``).

Figures are printed with the server's advertised real-time factor they were measured at; :data:`BLOCK` and
:data:`LONG_BLOCK` are the tables ``python -m kokoro_bench report`` writes into docs/conversation.md from the
results files.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from pathlib import Path
from typing import Annotated

import typer
from websockets.asyncio.client import connect

from kokoro_processes.servers import agent_server_thread
from kokoro_server.settings import offline_environment
from voice_agent.settings import AgentSettings, LlmSettings, TtsSettings

from ..errors import BenchError
from ..measuring.machine import run_record
from ..measuring.server import advertised_ready, check_ready, model_server, running_status
from ..paths import REPO, RESULTS
from ..reporting.markers import Block, measured_at
from ..settings import TOKENS_PER_S
from ..stats import percentile

REPLY = (
    "Here is a longer answer, so that there is always something left to interrupt. "
    * 3
    + "The river runs past the old mill, under two bridges and out to the sea. "
    "Walk it in the morning when the light is low, and bring water and a hat."
)
_LONG_SENTENCE = (
    "The {} runs past the old mill and under two stone bridges and then it winds through the fields and the village"
    " where the market is held every Saturday morning and at last it reaches the sea beyond the dunes where the"
    " fishing boats come in at dusk and the gulls follow them to the harbour wall. "
)
LONG_SENTENCES = "Yes. " + "".join(_LONG_SENTENCE.format(way) for way in ("river", "road", "path"))


async def _rounds(agent_url: str, rounds: int, rng: random.Random, settle_s: float) -> list[dict]:
    results = []
    url = agent_url.replace("http://", "ws://") + "/ws"
    async with connect(url, proxy=None, max_size=None) as socket:
        assert json.loads(await socket.recv())["type"] == "ready"
        await socket.send(json.dumps({"type": "prompt", "text": "Tell me about the river."}))
        prompt_at = time.monotonic()
        for turn in range(1, rounds + 1):
            first_audio = None
            while first_audio is None:
                if isinstance(frame := await asyncio.wait_for(socket.recv(), 120), bytes):
                    first_audio = time.monotonic() - prompt_at
                elif json.loads(frame)["type"] in ("turn_end", "error"):
                    raise BenchError(f"turn {turn} ended before any audio: {frame[:200]}")
            listen_s = rng.uniform(0.2, 3.0)
            audio_bytes, deadline = 0, time.monotonic() + listen_s
            while (left := deadline - time.monotonic()) > 0:
                try:
                    frame = await asyncio.wait_for(socket.recv(), left)
                except TimeoutError:
                    break
                audio_bytes += len(frame) if isinstance(frame, bytes) else 0
            interrupt_at = time.monotonic()
            await socket.send(json.dumps({"type": "interrupt", "played_s": round(listen_s, 3)}))
            last_audio = None
            while True:
                frame = await asyncio.wait_for(socket.recv(), 60)
                if isinstance(frame, bytes):
                    last_audio = time.monotonic()
                elif (end := json.loads(frame))["type"] == "turn_end" and end["turn"] == f"t{turn}":
                    break
            turn_end_s = time.monotonic() - interrupt_at
            fresh = turn % 2 == 0  # the next turn's first audio is measured from its prompt either way
            if fresh:
                await asyncio.sleep(settle_s)
            await socket.send(json.dumps({"type": "prompt", "text": f"And then? ({turn})"}))
            results.append(
                {
                    "next_turn": "fresh" if fresh else "after_interrupt",
                    "first_audio_s": round(first_audio, 4),
                    "listened_s": round(listen_s, 3),
                    "to_last_audio_s": round(max(0.0, (last_audio or interrupt_at) - interrupt_at), 4),
                    "to_turn_end_s": round(turn_end_s, 4),
                    "heard_text": end["heard_text"],
                }
            )
            prompt_at = time.monotonic()
    # Each round's first_audio_s is its own turn's, whose prompt the round before sent: shift them back so
    # that a round holds the first audio of the turn its own prompt started (the first answer's is dropped).
    for earlier, later in zip(results, results[1:]):
        earlier["next_first_audio_s"] = later["first_audio_s"]
    return [r for r in results if "next_first_audio_s" in r]


def summarize(results: list[dict], rtf: float | None) -> dict:
    def p(key: str, q: float) -> float:
        return percentile([r[key] for r in results], q)

    def next_turns(kind: str) -> list[float]:
        return [r["next_first_audio_s"] for r in results if r["next_turn"] == kind]

    after, fresh = next_turns("after_interrupt"), next_turns("fresh")
    figures = {
        "server_rtf_advertised": rtf,
        "rounds": len(results),
        "interrupt_to_last_audio_frame_s": {"p50": p("to_last_audio_s", 50), "p95": p("to_last_audio_s", 95)},
        "interrupt_to_turn_end_s": {"p50": p("to_turn_end_s", 50), "p95": p("to_turn_end_s", 95)},
    }
    for name, values in (("first_audio_after_interrupt_s", after), ("first_audio_fresh_turn_s", fresh)):
        if values:
            figures[name] = {
                "p50": percentile(values, 50),
                "p95": percentile(values, 95),
                "max": max(values),
                "turns": len(values),
            }
    if after and fresh:
        base = percentile(fresh, 50)
        figures["after_interrupt_over_fresh_p50"] = {
            "p95": round(percentile(after, 95) / base, 3),
            "max": round(max(after) / base, 3),
        }
    return figures


def _stopped(url: str) -> int:
    return running_status(url).stopped or 0


async def run(
    rounds: int, server_url: str | None, tokens_per_s: float, seed: int, settle_s: float = 8.0, reply: str = REPLY
) -> tuple[dict, list[dict]]:
    async def measure(url: str) -> tuple[dict, list[dict]]:
        rtf = (await advertised_ready(url)).rtf
        settings = AgentSettings(
            tts=TtsSettings(transport="websocket", url=url, timeout_s=120.0),
            llm=LlmSettings(provider="scripted", reply=reply, tokens_per_s=tokens_per_s),
        )
        from voice_agent.app import create_app  # Strands and AgentCore: only when the command runs

        stopped = await asyncio.to_thread(_stopped, url)
        with agent_server_thread(create_app(settings)) as agent_url:
            results = await _rounds(agent_url, rounds + 1, random.Random(seed), settle_s)
        figures = summarize(results, rtf)
        figures["renders_stopped"] = await asyncio.to_thread(_stopped, url) - stopped
        return figures, results

    if server_url:
        check_ready(server_url)
        return await measure(server_url)
    with model_server("onnx", "cpu") as url:
        return await measure(url)


def main(
    rounds: Annotated[int, typer.Option(help="Interrupts to measure.")] = 20,
    server_url: Annotated[str | None, typer.Option(help="Use this warm model server.")] = None,
    tokens_per_s: Annotated[float, typer.Option(help="Scripted LLM speed.")] = TOKENS_PER_S,
    seed: Annotated[int, typer.Option(help="Seed of the random interrupt points.")] = 1,
    settle_s: Annotated[
        float, typer.Option(help="Pause before a fresh turn's prompt: longer than any one piece's render.")
    ] = 8.0,
    json_path: Annotated[Path | None, typer.Option("--json", help="Write the figures and rounds here.")] = None,
    long_sentences: Annotated[
        bool, typer.Option(help="Answer in long sentences without clause marks: interrupts land in long renders.")
    ] = False,
) -> None:
    """Interrupt the agent at random points; print p50/p95 of the barge-in figures with the server's rtf."""
    offline_environment()
    if rounds < 1:
        typer.echo("bench: --rounds must be at least 1", err=True)
        raise typer.Exit(2)
    reply = LONG_SENTENCES if long_sentences else REPLY
    try:
        figures, results = asyncio.run(run(rounds, server_url, tokens_per_s, seed, settle_s, reply))
    except BenchError as err:
        typer.echo(f"bench: {err}", err=True)
        raise typer.Exit(2) from None
    typer.echo(json.dumps(figures, indent=2))
    if json_path:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        command = f"python -m kokoro_bench interrupt --rounds {rounds}" + " --long-sentences" * long_sentences
        record = {"command": command, **run_record(), "figures": figures, "rounds": results}
        json_path.write_text(json.dumps(record, indent=2) + "\n")
        typer.echo(f"wrote {json_path}", err=True)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def _p50_p95(figure: dict) -> tuple[str, str, str]:
    return _ms(figure["p50"]), _ms(figure["p95"]), ""


def table(record: dict) -> str:
    """The run's figures, with the rtf it ran at."""
    figures = record["figures"]
    after, fresh = figures["first_audio_after_interrupt_s"], figures["first_audio_fresh_turn_s"]
    ratio = figures["after_interrupt_over_fresh_p50"]
    rows = [
        (
            "interrupt -> last audio frame of the interrupted turn",
            *_p50_p95(figures["interrupt_to_last_audio_frame_s"]),
        ),
        ("interrupt -> its `turn_end`", *_p50_p95(figures["interrupt_to_turn_end_s"])),
        (
            "prompt right after the interrupt -> first audio of the new turn",
            *(f"{after[k]:.2f} s" for k in ("p50", "p95", "max")),
        ),
        ("prompt of a fresh turn -> its first audio", *(f"{fresh[k]:.2f} s" for k in ("p50", "p95", "max"))),
        ("right after an interrupt, over the fresh turns' p50", "", f"{ratio['p95']:.2f}x", f"{ratio['max']:.2f}x"),
    ]
    if "renders_stopped" in figures:  # counted since the model server said it (/ping's ``stopped``)
        rows.append(("renders the model server stopped for the interrupts", str(figures["renders_stopped"]), "", ""))
    lines = [
        measured_at(record, record["command"], f"**{figures['server_rtf_advertised']}** (the server's, advertised)")
        + f": {figures['rounds']} rounds ({after['turns']} turns right after an interrupt, {fresh['turns']} fresh).",
        "",
        "| figure | p50 | p95 | worst |",
        "|---|---|---|---|",
    ]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows]) + "\n"


BLOCK = Block("interrupt", RESULTS / "interrupt.json", {REPO / "docs" / "conversation.md": table})
LONG_BLOCK = Block(
    "interrupt-long-sentences", RESULTS / "interrupt-long-sentences.json", {REPO / "docs" / "conversation.md": table}
)
