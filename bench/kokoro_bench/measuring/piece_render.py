"""``python -m kokoro_bench pieces``: how long the engine takes to render a piece of 1, 3, 12 and 19 words, and how
much of what it decoded nobody hears.

The engine is loaded in this process the way the server loads it (:func:`kokoro_bench.measuring.overhead.load_engine`) and
each piece is rendered ``--repeats`` times in turn (medians), one piece after the other, so they meet the
same machine. A render is what the server's worker does for a piece: the model call, then the trim of the
edge silence (docs/decisions/088-piece-overhead.md). *Decoded* is the audio the model produced, *heard*
what the trim keeps and the server sends; their difference is the edge silence the engine decodes for
nothing (docs/decisions/122-the-edge-silence-is-decoded.md). The rtf is render seconds per heard second.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kokoro_server.audio import speech_bounds
from kokoro_server.text.reading import Reading
from speech_protocol.framing import SAMPLE_RATE
from speech_protocol.voices import DEFAULT_VOICE

from ..errors import BenchError
from .machine import run_record
from .process_stats import load_average

if TYPE_CHECKING:
    from kokoro_server.engine.synthesizer import Synthesizer
    from kokoro_server.text.phonemes import ReadSlice

# As the agent cuts them: a one-word reply, an eager first piece, a sentence, a long sentence.
PIECES = (
    "Sure.",
    "Thanks for asking,",
    "Of course, the museum is open every day from nine until five.",
    "Here is a plan for your first day in the city, starting with a walk along the old river.",
)


def render_once(synth: Synthesizer, read: ReadSlice, text: str, voice: str) -> tuple[float, int, int]:
    """(render seconds, decoded samples, heard samples) of one piece: every chunk of its plan."""
    start = time.perf_counter()
    decoded = heard = 0
    for chunk in Reading(text, synth.voice(voice), 1.0, read).whole():
        out = synth.backend.infer(chunk.phonemes, synth.style(chunk), chunk.speed)
        first, stop = speech_bounds(out.audio)
        decoded += len(out.audio)
        heard += stop - first
    return time.perf_counter() - start, decoded, heard


def measure(synth: Synthesizer, read: ReadSlice, voice: str, repeats: int) -> list[dict[str, Any]]:
    rows = []
    for text in PIECES:
        runs = [render_once(synth, read, text, voice) for _ in range(repeats)]
        render_s = statistics.median(r[0] for r in runs)
        _, decoded, heard = runs[-1]  # the model is deterministic: the same samples every run
        rows.append(
            {
                "text": text,
                "words": len(text.split()),
                "render_s": round(render_s, 4),
                "decoded_s": round(decoded / SAMPLE_RATE, 3),
                "heard_s": round(heard / SAMPLE_RATE, 3),
                "unheard_share": round(1 - heard / decoded, 3),
                "rtf": round(render_s / (heard / SAMPLE_RATE), 3),
            }
        )
    return rows


def _run(engine: str, voice: str, repeats: int) -> dict[str, Any]:
    """Loads the engine as the server does (a coroutine), then renders on this thread, outside the event
    loop: under ``asyncio.run`` a Ctrl-C only cancels the main task, and a render loop that never awaits
    never sees it, so the command went on rendering for minutes."""
    from .overhead import load_engine  # the engine's libraries: only when the command runs

    runtime = asyncio.run(load_engine(engine, "cpu", voice))
    try:
        if runtime.synthesizer is None or runtime.g2p_pool is None:
            raise BenchError("the in-process engine is not loaded")
        start_load = load_average()
        typer.echo(f"{engine} engine loaded; rendering {len(PIECES)} pieces {repeats} times each", err=True)
        rows = measure(runtime.synthesizer, runtime.g2p_pool.read, voice, repeats)
    finally:
        runtime.close()
    return {
        "command": f"python -m kokoro_bench pieces --engine {engine} --repeats {repeats}",
        "engine": engine,
        "voice": voice,
        "repeats": repeats,
        **run_record(),
        "load_average_start": start_load,
        "load_average_end": load_average(),
        "rows": rows,
    }


def pieces(
    engine: Annotated[str, typer.Option(help="onnx or torch.")] = "onnx",
    voice: Annotated[str, typer.Option(help="Kokoro voice.")] = DEFAULT_VOICE,
    repeats: Annotated[int, typer.Option(min=1, help="Renders of each piece (medians).")] = 5,
    json_path: Annotated[
        Path | None,
        typer.Option("--json", help="Also write the figures here (bench/results/piece_render.json is the record)."),
    ] = None,
) -> None:
    """The render time of a 1-, 3-, 12- and 19-word piece, and the share of its decoded audio nobody hears."""
    try:
        report = _run(engine, voice, repeats)
    except BenchError as err:
        typer.echo(f"bench pieces: {err}", err=True)
        raise typer.Exit(2) from None
    for row in report["rows"]:
        typer.echo(
            f"{row['words']:>2} words: render {row['render_s']:.3f} s, decoded {row['decoded_s']:.2f} s, heard "
            f"{row['heard_s']:.2f} s, unheard {row['unheard_share']:.0%}, rtf {row['rtf']:.3f}"
        )
    if json_path is not None:
        json_path.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        typer.echo(f"wrote {json_path}", err=True)
