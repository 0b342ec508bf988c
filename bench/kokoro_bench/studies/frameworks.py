"""``python -m kokoro_bench frameworks``: first and last audio of a streamed answer, and what it cost the
server, inside LiveKit Agents and inside pipecat: this project's plugin for each framework
(``plugins/livekit-plugins-kokoro``, ``plugins/pipecat-kokoro-server``) against the framework's own OpenAI TTS
on the server's OpenAI route, on one model server, in one run.

The frameworks run in their own environment (``.venv-clients``, made by set-up, as an agent built on one is its
own process), so each measurement is a script run there (``kokoro_bench/frameworks/*_first_audio.py``), given
the server's process to read its CPU time from; this command starts the model server, runs both and writes
what they printed with the server's rtf.

:data:`BLOCK` is the table ``python -m kokoro_bench report`` writes into docs/livekit.md and docs/pipecat.md from the results file.
"""

from __future__ import annotations

import json
import statistics
import subprocess
from functools import partial
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

import typer

from kokoro_processes.tree import descendants
from kokoro_server.settings import offline_environment

from ..errors import BenchError
from ..measuring.machine import run_record
from ..measuring.process_stats import listening_pid
from ..measuring.server import check_ready, model_server, running_status
from ..paths import PACKAGE, REPO, RESULTS
from ..reporting.markers import Block, measured_at
from ..settings import TOKENS_PER_S
from ..texts import TYPICAL

CLIENTS = REPO / ".venv-clients" / "bin" / "python"
SCRIPTS = {
    "livekit": PACKAGE / "frameworks" / "livekit_first_audio.py",
    "pipecat": PACKAGE / "frameworks" / "pipecat_first_audio.py",
}
NAMES = {"livekit": "LiveKit", "pipecat": "pipecat"}
# The plugin's figure over the OpenAI route's, for each of an answer's figures (the goals are these ratios).
RATIOS = {"first_audio": "first_audio_s", "last_audio": "last_audio_s", "server_cpu": "server_cpu_s"}


def run_script(framework: str, url: str, repeats: int) -> dict[str, list[dict]]:
    """Each TTS's answers, alternating, as the framework's script printed them."""
    server = listening_pid(urlsplit(url).port or 80)
    pids = ",".join(map(str, sorted({server, *descendants(server)})))  # its G2P workers live as long as it
    done = subprocess.run(
        [str(CLIENTS), str(SCRIPTS[framework]), url, pids, TYPICAL] + [str(TOKENS_PER_S), str(repeats)],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if done.returncode != 0:
        raise BenchError(f"the {NAMES[framework]} run failed: {done.stderr[-2000:]}")
    runs: dict[str, list[dict]] = json.loads(done.stdout.strip().splitlines()[-1])
    return runs


def measure(url: str, repeats: int) -> dict:
    if not CLIENTS.is_file():
        raise BenchError(f"{CLIENTS} is missing: run ./setup.sh, which makes the frameworks' environment")
    figures: dict = {"runs": {}}
    for framework in SCRIPTS:
        runs = run_script(framework, url, repeats)
        rows = {
            name: {key: round(statistics.median(r[key] for r in got), 3) for key in got[0]}
            for name, got in runs.items()
        }
        figures[framework] = rows
        figures.setdefault("plugin_over_openai_route", {})[framework] = {
            ratio: round(rows["plugin"][key] / rows["openai_route"][key], 3) for ratio, key in RATIOS.items()
        }
        figures["runs"][framework] = runs
    figures["server_rtf"] = running_status(url).rtf
    return figures


def frameworks(
    json_path: Annotated[Path, typer.Option("--json", help="Write the figures here.")] = Path(
        "bench/results/frameworks.json"
    ),
    repeats: Annotated[int, typer.Option(min=1, max=10, help="Runs of each TTS, alternating (medians).")] = 5,
    server_url: Annotated[str | None, typer.Option(help="Use this warm server instead of starting one.")] = None,
) -> None:
    """First and last audio of the typical answer, and the server's CPU for it, through LiveKit and pipecat: each
    plugin against the framework's OpenAI TTS on the OpenAI route."""
    offline_environment()
    try:
        if server_url:
            check_ready(server_url)
            figures = measure(server_url, repeats)
        else:
            with model_server("onnx", "cpu") as url:
                figures = measure(url, repeats)
    except BenchError as err:
        typer.echo(f"bench frameworks: {err}", err=True)
        raise typer.Exit(2) from None
    figures = {
        "command": "python -m kokoro_bench frameworks",
        "repeats": repeats,
        "tokens_per_s": TOKENS_PER_S,
        **figures,
        **run_record(),
    }
    for framework, label in NAMES.items():
        for name, row in figures[framework].items():
            typer.echo(
                f"{label}, {name:12s} first audio {row['first_audio_s']:.2f} s, last {row['last_audio_s']:.2f} s,"
                f" {row['audio_s']:.1f} s of audio, server CPU {row['server_cpu_s']:.2f} s"
            )
        ratios = figures["plugin_over_openai_route"][framework]
        typer.echo(
            f"{label}, plugin / OpenAI route: first audio {ratios['first_audio']:.2f}x,"
            f" last audio {ratios['last_audio']:.2f}x, server CPU {ratios['server_cpu']:.2f}x"
        )
    typer.echo(f"server rtf after the run: {figures['server_rtf']}")
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(figures, indent=2) + "\n")
    typer.echo(f"wrote {json_path}", err=True)


FRAMEWORK_NAMES = {"livekit": "LiveKit Agents", "pipecat": "pipecat"}
LABELS = {
    "livekit": {
        "plugin": "this plugin",
        "openai_route": "LiveKit's OpenAI TTS on the OpenAI route, through `StreamAdapter`",
    },
    "pipecat": {"plugin": "this service", "openai_route": "pipecat's `OpenAITTSService` on the OpenAI route"},
}


def table(framework: str, figures: dict) -> str:
    ratios = figures["plugin_over_openai_route"][framework]
    lines = [
        f"The benchmark's typical answer streamed token by token at {figures['tokens_per_s']:g} tokens/s, medians "
        f"of {figures['repeats']}, alternating, one model server; the server's CPU is its process and its G2P "
        "workers', per answer. "
        + measured_at(figures, figures["command"], f"{figures['server_rtf']} (the server's, after the run)")
        + ":",
        "",
        f"| TTS in {FRAMEWORK_NAMES[framework]} | first audio | last audio | audio | server CPU |",
        "|---|---|---|---|---|",
    ]
    for name, row in figures[framework].items():
        lines.append(
            f"| {LABELS[framework][name]} | {row['first_audio_s']:.2f} s | {row['last_audio_s']:.2f} s "
            f"| {row['audio_s']:.1f} s | {row['server_cpu_s']:.2f} s |"
        )
    lines += [
        "",
        f"Against the OpenAI route: first audio **{ratios['first_audio']:.2f}x**, last audio "
        f"**{ratios['last_audio']:.2f}x**, server CPU **{ratios['server_cpu']:.2f}x**.",
    ]
    return "\n".join(lines) + "\n"


BLOCK = Block(
    "framework",
    RESULTS / "frameworks.json",
    {REPO / "docs" / f"{name}.md": partial(table, name) for name in FRAMEWORK_NAMES},
)
