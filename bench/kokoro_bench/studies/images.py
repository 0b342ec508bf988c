"""``python -m kokoro_bench images``: what building and starting the two images costs on this machine.

A cold build in a throwaway image storage (what a fresh machine pays: the stand-in base images, then each
image from nothing), an unchanged rebuild in the kept storage, each image's start-up from ``buildah run`` to
``/ping`` 200 (median of three), the model image's speed on one sentence (real-time factor), and each image's
size (kokoro_devtools.images). The figures go to ``bench/results/images.json``; ``kokoro_bench report`` puts them
in docs/deploy.md (:data:`BLOCK`).
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Annotated

import httpx
import typer

from kokoro_devtools.images.bases import base_names
from kokoro_devtools.images.buildah import Buildah, ImageError, storage_root
from kokoro_devtools.images.services import SERVICES, Service, build, serving
from kokoro_devtools.images.sizes import sizes
from kokoro_processes.errors import ServerFailed
from kokoro_processes.servers import free_port

from ..measuring.machine import run_record
from ..paths import REPO, RESULTS
from ..reporting.markers import Block, measured_at

SENTENCE = "The weather in Lisbon is sunny today, with a light breeze from the sea."
AGENT_SETTINGS = ("LLM_PROVIDER=scripted", "TTS_TRANSPORT=websocket", "TTS_URL=http://127.0.0.1:9")  # starts; no call


def timed_build(buildah: Buildah, service: Service) -> float:
    started = time.monotonic()
    build(buildah, service)
    return round(time.monotonic() - started, 1)


def start_up_s(buildah: Buildah, service: Service, env: tuple[str, ...]) -> float:
    started = time.monotonic()
    with serving(buildah, service.tag("onnx"), service, free_port(), env):
        return time.monotonic() - started


def model_rtf(buildah: Buildah) -> float:
    """Seconds to synthesize :data:`SENTENCE` over its audio's seconds, on the model image (once warm)."""
    service = SERVICES["model"]
    with serving(buildah, service.tag("onnx"), service, free_port()) as url:
        httpx.post(f"{url}/invocations", json={"text": "Warm up.", "format": "pcm"}, timeout=120)
        started = time.monotonic()
        reply = httpx.post(f"{url}/invocations", json={"text": SENTENCE, "format": "pcm"}, timeout=120)
        reply.raise_for_status()
        return (time.monotonic() - started) / (len(reply.content) / 2 / 24000)


def images(
    json_path: Annotated[Path, typer.Option("--json", help="Write the figures here.")] = RESULTS / "images.json",
) -> None:
    """Cold and cached build times, start-up and size of the model image (onnx) and the agent image."""
    try:
        with tempfile.TemporaryDirectory(prefix="kokoro-images-cold-") as folder:
            cold = Buildah(Path(folder))
            started = time.monotonic()
            cold_s = {name: timed_build(cold, service) for name, service in SERVICES.items()}
            cold_total = round(time.monotonic() - started, 1)
        kept = Buildah(storage_root())
        for service in SERVICES.values():
            build(kept, service)  # the kept storage up to date, so that the next build is the unchanged one
        cached_s = {name: timed_build(kept, service) for name, service in SERVICES.items()}
        envs = {"model": (), "agent": AGENT_SETTINGS}
        start_s = {
            name: round(statistics.median(start_up_s(kept, service, envs[name]) for _ in range(3)), 1)
            for name, service in SERVICES.items()
        }
        rtf = round(model_rtf(kept), 3)
        size = {
            name: dataclasses.asdict(sizes(kept, service.tag("onnx"), base_names(service.dockerfile)))
            for name, service in SERVICES.items()
        }
    except (ImageError, ServerFailed, httpx.HTTPError) as err:
        typer.echo(f"bench images: {err}", err=True)
        raise typer.Exit(2) from None
    figures = {
        "command": "python -m kokoro_bench images",
        **run_record(),
        "cold_build_s": {**cold_s, "total_with_bases": cold_total},
        "unchanged_rebuild_s": cached_s,
        "start_up_s": start_s,
        "model_rtf": rtf,
        "sizes": size,
    }
    for name in SERVICES:
        typer.echo(
            f"{name}: cold build {cold_s[name]} s, unchanged rebuild {cached_s[name]} s, start-up {start_s[name]} s, "
            f"{size[name]['bytes'] / 1e9:.2f} GB ({size[name]['own_bytes'] / 1e9:.2f} GB its own); model rtf {rtf}"
        )
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(figures, indent=2) + "\n")
    typer.echo(f"wrote {json_path}", err=True)


NAMES = {"model": "model (`ENGINE=onnx`)", "agent": "agent"}


def table(figures: dict) -> str:
    lines = [
        measured_at(figures, figures["command"], f"{figures['model_rtf']} (the model image's, once started)") + ":",
        "",
        "| image | cold build | unchanged rebuild | start-up to `/ping` 200 | size | its own part |",
        "|---|---|---|---|---|---|",
    ]
    for name, label in NAMES.items():
        size = figures["sizes"][name]
        lines.append(
            f"| {label} | {figures['cold_build_s'][name]:.0f} s | {figures['unchanged_rebuild_s'][name]:.1f} s | "
            f"{figures['start_up_s'][name]:.1f} s | {size['bytes'] / 1e9:.2f} GB | {size['own_bytes'] / 1e9:.2f} GB |"
        )
    lines += [
        "",
        "A cold build starts from an empty image storage and includes the stand-in bases it is the first to need "
        "(the model image's: the Debian root, Node.js and Python 3.11; the agent image's: Python 3.12) and its "
        f"downloads from PyPI, npm and Debian: {figures['cold_build_s']['total_with_bases']:.0f} s for both. "
        "Its own part is what the Dockerfile adds to its base image; sizes are of uncompressed layers.",
    ]
    return "\n".join(lines) + "\n"


BLOCK = Block("image", RESULTS / "images.json", {REPO / "docs" / "deploy.md": table})
