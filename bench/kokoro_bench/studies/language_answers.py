"""``python -m kokoro_bench language-answers``: first audio of the typical answer in each of Kokoro's
nine languages, through the agent's pipeline, against waiting for the whole answer.

The benchmark's typical answer (``kokoro_bench.texts.TYPICAL``, and as written in each other language in
``kokoro_bench/data/language_answers.json``) is streamed by the scripted LLM at the benchmark's speed and
spoken by the agent's own pipeline (``pipelined``: the segmenter sized from the server's advertised pace)
and by the whole-answer design (``whole``), on one real model server, alternating, ``--repeats`` times.
Each row is the median first audio and stall of each, their ratio, and the server's running real-time
factor from ``/ping`` after the language's runs.

:data:`BLOCK` is the table ``python -m kokoro_bench report`` writes into docs/model-server.md from the results file.
"""

from __future__ import annotations

import asyncio
import json
import statistics
from pathlib import Path
from typing import Annotated

import typer

from kokoro_bench.paths import DATA
from kokoro_server.settings import offline_environment

from ..measuring.machine import run_record
from ..measuring.server import check_ready, model_server, running_status
from ..measuring.timeline import play
from ..paths import REPO, RESULTS
from ..reporting.markers import Block, measured_at
from ..settings import TOKENS_PER_S
from ..texts import TYPICAL

ANSWERS = DATA / "language_answers.json"


def answers() -> dict[str, str]:
    """The typical answer by voice: English in af_heart and bf_emma, then each other language's."""
    written = {voice: text for voice, text in json.loads(ANSWERS.read_text()).items() if not voice.startswith("_")}
    return {"af_heart": TYPICAL, "bf_emma": TYPICAL, **written}


async def _measure(url: str, voice: str, text: str, repeats: int, say) -> dict:
    from ..measuring.strategies import Run, speak  # the agent's pipeline: only when the command runs

    runs: dict[str, list] = {"whole": [], "pipelined": []}
    for repeat in range(repeats):
        for strategy in runs:
            say(f"[{repeat + 1}/{repeats}] {voice}: {strategy}")
            trace = await speak(strategy, voice, Run(url, text, TOKENS_PER_S, voice))
            runs[strategy].append(play(trace.audio))
    row = {}
    for strategy, played in runs.items():
        row[f"{strategy}_first_audio_s"] = round(statistics.median(p.ttfa_s for p in played), 3)
        row[f"{strategy}_stall_s"] = round(statistics.median(p.stall_s for p in played), 3)
    row["audio_s"] = round(statistics.median(p.audio_s for p in runs["pipelined"]), 2)
    row["ratio"] = round(row["pipelined_first_audio_s"] / row["whole_first_audio_s"], 3)
    row["server_rtf"] = running_status(url).rtf
    return row


def measure(url: str, voices: list[str], repeats: int, say) -> dict:
    texts = answers()
    return {voice: asyncio.run(_measure(url, voice, texts[voice], repeats, say)) for voice in voices}


def language_answers(
    json_path: Annotated[Path, typer.Option("--json", help="Write the figures here.")] = Path(
        "bench/results/language_answers.json"
    ),
    repeats: Annotated[int, typer.Option(min=1, max=10, help="Runs of each strategy per language (medians).")] = 3,
    voice: Annotated[
        list[str] | None, typer.Option(help="Only these voices (repeatable); all nine languages by default.")
    ] = None,
    server_url: Annotated[str | None, typer.Option(help="Use this warm server instead of starting one.")] = None,
) -> None:
    """First audio of the typical answer in each language, the agent's pipeline against the whole answer."""
    offline_environment()
    voices = voice or list(answers())
    unknown = sorted(set(voices) - set(answers()))
    if unknown:
        raise typer.BadParameter(f"no answer written for {', '.join(unknown)}; use one of {', '.join(answers())}")

    def say(line: str) -> None:
        typer.echo(line, err=True)

    if server_url:
        check_ready(server_url)
        rows = measure(server_url, voices, repeats, say)
    else:
        with model_server("onnx", "cpu") as url:
            rows = measure(url, voices, repeats, say)
    figures = {
        "command": "python -m kokoro_bench language-answers",
        "repeats": repeats,
        "tokens_per_s": TOKENS_PER_S,
        "voices": rows,
        **run_record(),
    }
    for name, row in rows.items():
        typer.echo(
            f"{name:11s} first audio {row['pipelined_first_audio_s']:.2f} s pipelined, {row['whole_first_audio_s']:.2f}"
            f" s whole ({row['ratio']:.2f}x), stall {row['pipelined_stall_s']:.2f} s, {row['audio_s']:.1f} s of audio,"
            f" rtf {row['server_rtf']}"
        )
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n")
    say(f"wrote {json_path}")


def table(figures: dict) -> str:
    """One row per voice: first audio through the agent's pipeline and of the whole answer, with the rtf."""
    rtfs = sorted(row["server_rtf"] for row in figures["voices"].values())
    lines = [
        f"The typical answer in each language, streamed at {figures['tokens_per_s']:g} tokens/s by the scripted "
        f"LLM, medians of {figures['repeats']}, ONNX engine. "
        + measured_at(figures, figures["command"], f"{rtfs[0]} to {rtfs[-1]}")
        + ":",
        "",
        "| voice | audio | first audio, agent's pipeline | first audio, whole answer | ratio | stall | server rtf |",
        "|---|---|---|---|---|---|---|",
    ]
    for voice, row in figures["voices"].items():
        lines.append(
            f"| {voice} | {row['audio_s']:.1f} s | {row['pipelined_first_audio_s']:.2f} s | "
            f"{row['whole_first_audio_s']:.2f} s | {row['ratio']:.2f}x | {row['pipelined_stall_s']:.2f} s | "
            f"{row['server_rtf']} |"
        )
    return "\n".join(lines) + "\n"


BLOCK = Block("language", RESULTS / "language_answers.json", {REPO / "docs" / "model-server.md": table})
