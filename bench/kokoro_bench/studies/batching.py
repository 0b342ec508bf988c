"""``python -m kokoro_bench batching``: the torch engine's throughput with each piece alone against pieces batched.

``--pieces`` pieces (sentences of mixed length, voices and speeds, as concurrent sessions would send them)
are spoken once per ``--max-batch`` value, in the model's own process: with 1 each is its own forward pass
(today's server), with more they go in batches of that many, grouped by length as the server groups them
(the scheduler's token buckets, the engine's frame buckets). Aggregate audio-seconds per wall second and
the real-time factor (wall seconds per audio second) are printed for each and written as JSON
(docs/decisions/125-batched-synthesis.md). G2P is done before the clock starts.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kokoro_server import assets as model_assets
from kokoro_server.engine.batch import BatchRow, token_bucket
from kokoro_server.engine.registry import load_backend
from kokoro_server.settings import offline_environment
from speech_protocol.framing import SAMPLE_RATE

from ..errors import BenchError
from ..measuring.machine import run_record
from ..settings import int_list

if TYPE_CHECKING:
    from kokoro_server.engine.torch_backend import TorchBackend

SENTENCES = (
    "Sure, I can help with that.",
    "The train leaves at half past nine from the second platform.",
    "Thanks for asking!",
    "Your order has shipped and should arrive on Thursday, weather permitting.",
    "Let me check the calendar for you.",
    "We looked at three options, and the second one costs the least over a year.",
    "Of course.",
    "The museum has twelve rooms and forty paintings on show.",
)
VOICES = (("af_heart", "a"), ("am_adam", "a"), ("bf_emma", "b"))
SPEEDS = (1.0, 1.2, 0.9)


def pieces(count: int, assets: model_assets.ModelAssets) -> list[BatchRow]:
    """``count`` rows cycling through the sentences, voices and speeds."""
    from kokoro_server.text.phonemes import Phonemizer  # misaki, spaCy, torch: only when the command runs

    g2p = Phonemizer()
    rows = []
    for i in range(count):
        voice, lang = VOICES[i % len(VOICES)]
        phonemes, _ = g2p.phonemize(SENTENCES[i % len(SENTENCES)], lang)
        rows.append(BatchRow(phonemes, assets.load_voice(voice)[len(phonemes)], SPEEDS[i % len(SPEEDS)]))
    return rows


def batches(rows: list[BatchRow], max_batch: int) -> list[list[BatchRow]]:
    """The rows in batches of at most ``max_batch``, each of one token bucket (as the scheduler forms them)."""
    by_bucket: dict[int, list[BatchRow]] = {}
    for row in rows:
        by_bucket.setdefault(token_bucket(len(row.phonemes)), []).append(row)
    return [group[i : i + max_batch] for group in by_bucket.values() for i in range(0, len(group), max_batch)]


def speak(backend: TorchBackend, rows: list[BatchRow], max_batch: int) -> dict:
    """Wall time and audio for all ``rows``, each alone (``max_batch`` 1, :meth:`TorchBackend.infer`) or in
    batches (:meth:`TorchBackend.infer_batch`)."""
    samples = 0
    grouped = batches(rows, max_batch)
    start = time.perf_counter()
    for batch in grouped:
        if max_batch == 1:
            samples += len(backend.infer(batch[0].phonemes, batch[0].style, batch[0].speed).audio)
        else:
            outs = backend.infer_batch(batch, [None] * len(batch))
            samples += sum(len(out.audio) for out in outs if not isinstance(out, Exception))
    wall_s = time.perf_counter() - start
    audio_s = samples / SAMPLE_RATE
    return {
        "max_batch": max_batch,
        "pieces": len(rows),
        "batches": len(grouped),
        "audio_s": round(audio_s, 2),
        "wall_s": round(wall_s, 3),
        "audio_s_per_s": round(audio_s / wall_s, 3),
        "rtf": round(wall_s / audio_s, 4),
    }


def _weights(torch_model: Path | None, folder: Path) -> Path:
    """The given weights, or Kokoro's rebuilt from the offline ONNX export (086-torch-weights-from-onnx.md)."""
    if torch_model is not None:
        return torch_model
    import torch

    from kokoro_devtools.torch_weights.__main__ import convert

    path = folder / "kokoro-v1_0.pth"
    torch.save(
        convert(
            model_assets.REPO_ASSETS / model_assets.ONNX_FILE, model_assets.PACKAGE_DATA / "kokoro-82m-config.json"
        ),
        path,
    )
    return path


def batching(
    json_path: Annotated[
        Path | None,
        typer.Option("--json", help="Also write the figures here (bench/results/batching.json is the record)."),
    ] = None,
    pieces_n: Annotated[int, typer.Option("--pieces", help="Pieces spoken per setting (concurrent sessions).")] = 8,
    max_batch: Annotated[str, typer.Option(help="Batch sizes to compare, e.g. 1,8 (1 = each alone).")] = "1,8",
    device: Annotated[str, typer.Option(help="cpu or cuda.")] = "cpu",
    threads: Annotated[int, typer.Option(help="Threads per inference, 0 = all cores.")] = 0,
    rounds: Annotated[int, typer.Option(help="Rounds of every setting, interleaved; the best round counts.")] = 1,
    torch_model: Annotated[
        Path | None, typer.Option(help="Kokoro's .pth; default: rebuilt from the ONNX export.")
    ] = None,
) -> None:
    """Time the torch engine on the same pieces alone and batched, and write the figures."""
    offline_environment()
    try:
        sizes = int_list("--max-batch", max_batch)
    except BenchError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    if not sizes or min(sizes) < 1 or pieces_n < 1 or rounds < 1:
        typer.echo("error: --max-batch needs sizes >= 1, --pieces and --rounds at least 1", err=True)
        raise typer.Exit(2)
    with tempfile.TemporaryDirectory() as folder:
        assets = model_assets.resolve("torch", torch_model=_weights(torch_model, Path(folder)))
        backend = load_backend("torch", assets, device, threads)
        from kokoro_server.engine.torch_backend import TorchBackend  # loaded by load_backend by now

        assert isinstance(backend, TorchBackend)
        rows = pieces(pieces_n, assets)
        speak(backend, rows[:2], 2)  # first calls are slower: warm both paths
        speak(backend, rows[:1], 1)
        runs: dict[int, dict] = {}
        for _ in range(rounds):
            for size in sizes:  # interleaved, so that a change in the machine's load hits every setting
                figure = speak(backend, rows, size)
                if size not in runs or figure["wall_s"] < runs[size]["wall_s"]:
                    runs[size] = figure
    for size in sizes:
        f = runs[size]
        typer.echo(
            f"max_batch {size:3}: {f['pieces']} pieces in {f['batches']} batches, {f['audio_s']:.1f} s of audio in "
            f"{f['wall_s']:.2f} s: "
            f"{f['audio_s_per_s']:.2f} audio-s/s, rtf {f['rtf']:.3f}"
        )
    figures = {**run_record(), "device": device, "threads": threads, "runs": [runs[size] for size in sizes]}
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(figures, indent=2) + "\n")
        typer.echo(f"wrote {json_path}", err=True)
