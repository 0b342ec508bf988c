"""``python -m kokoro_bench frameworks``: first audio of a streamed answer inside LiveKit Agents, this
project's plugin (``plugins/livekit-plugins-kokoro``) against LiveKit's OpenAI TTS on the server's OpenAI
route, on one model server, in one run.

LiveKit Agents runs in its own environment (``.venv-clients``, made by set-up, as an agent built on it is
its own process), so the measurement is a script run there (``kokoro_bench/frameworks/livekit_first_audio.py``);
this command starts the model server, runs it and writes what it printed with the server's rtf.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
from pathlib import Path
from typing import Annotated

import httpx
import typer

from kokoro_server.settings import offline_environment

from ..errors import BenchError
from ..paths import PACKAGE, REPO
from ..texts import TYPICAL
from .policy_sweep import TOKENS_PER_S
from .server import check_ready, model_server

CLIENTS = REPO / ".venv-clients" / "bin" / "python"
SCRIPT = PACKAGE / "frameworks" / "livekit_first_audio.py"


def measure(url: str, repeats: int) -> dict:
    if not CLIENTS.is_file():
        raise BenchError(f"{CLIENTS} is missing: run ./setup.sh, which makes the frameworks' environment")
    done = subprocess.run(
        [str(CLIENTS), str(SCRIPT), url, TYPICAL, str(TOKENS_PER_S), str(repeats)],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if done.returncode != 0:
        raise BenchError(f"the LiveKit run failed: {done.stderr[-2000:]}")
    runs = json.loads(done.stdout.strip().splitlines()[-1])
    rows = {
        name: {key: round(statistics.median(r[key] for r in got), 3) for key in got[0]} for name, got in runs.items()
    }
    return {
        "livekit": rows,
        "plugin_over_openai_route": round(rows["plugin"]["first_audio_s"] / rows["openai_route"]["first_audio_s"], 3),
        "server_rtf": httpx.get(f"{url}/ping", timeout=10).json().get("rtf"),
        "runs": runs,
    }


def frameworks(
    json_path: Annotated[Path, typer.Option("--json", help="Write the figures here.")] = Path(
        "bench/results/frameworks.json"
    ),
    repeats: Annotated[int, typer.Option(min=1, max=10, help="Runs of each TTS, alternating (medians).")] = 5,
    server_url: Annotated[str | None, typer.Option(help="Use this warm server instead of starting one.")] = None,
) -> None:
    """First audio of the typical answer through LiveKit: the plugin against the OpenAI route."""
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
        "machine": {"cpus": os.cpu_count(), "load_average_1m": round(os.getloadavg()[0], 2)},
    }
    for name, row in figures["livekit"].items():
        typer.echo(
            f"LiveKit, {name:12s} first audio {row['first_audio_s']:.2f} s, last {row['last_audio_s']:.2f} s,"
            f" {row['audio_s']:.1f} s of audio"
        )
    typer.echo(f"plugin / OpenAI route: {figures['plugin_over_openai_route']:.2f}x, rtf {figures['server_rtf']}")
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(figures, indent=2) + "\n")
    typer.echo(f"wrote {json_path}", err=True)
