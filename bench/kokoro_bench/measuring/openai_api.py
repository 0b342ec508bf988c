"""``python -m kokoro_bench openai-api``: what the OpenAI speech route costs over ``/invocations``.

Two figures, in about two minutes on a 2-core CPU (most of it the server's start):

* **time to first byte**: the same two sentences sent to ``POST /invocations`` (raw PCM) and to
  ``POST /v1/audio/speech`` in several formats and as SSE, on one warm server, one request at a time and
  each read to its end (a client that hangs up early can leave a piece rendering, which would delay the
  next request). Medians over ``--repeats`` rounds of the requests in turn, with the time to the last
  byte beside; the server's running real-time factor is read from ``/ping``.
* **encoding cost**: each format's encoder (kokoro_server.encoders, in this process) over real speech
  from the server, fed in two pieces as a streamed answer is: milliseconds per second of audio, wall
  clock and CPU time (the thread's own, which other load on the machine does not inflate), and bytes
  sent per second of audio.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import httpx
import numpy as np
import typer

from kokoro_server.encoders import FORMATS, open_encoder
from kokoro_server.settings import offline_environment
from speech_protocol.framing import SAMPLE_RATE
from speech_protocol.voices import DEFAULT_VOICE

from .machine import run_record
from .server import check_ready, model_server, running_status

TEXT = "The museum opens at nine every morning. Tickets are sold at the door and online."
PIECES = 2  # the two sentences
# (label, path, body): the requests a round makes, in turn.
REQUESTS: list[tuple[str, str, dict]] = [
    ("/invocations pcm", "/invocations", {"text": TEXT, "voice": DEFAULT_VOICE, "format": "pcm"}),
    *(
        (f"/v1/audio/speech {fmt}", "/v1/audio/speech", {"input": TEXT, "voice": DEFAULT_VOICE, "response_format": fmt})
        for fmt in ("pcm", "mp3", "opus", "aac", "flac")
    ),
    (
        "/v1/audio/speech pcm sse",
        "/v1/audio/speech",
        {"input": TEXT, "voice": DEFAULT_VOICE, "response_format": "pcm", "stream_format": "sse"},
    ),
]


def byte_times(client: httpx.Client, url: str, body: dict) -> tuple[float, float]:
    """Seconds from sending ``body`` to the first and to the last byte of the answer's body."""
    start = time.perf_counter()
    first = None
    with client.stream("POST", url, json=body) as r:
        r.raise_for_status()
        for part in r.iter_raw():
            if part and first is None:
                first = time.perf_counter() - start
    if first is None:
        raise RuntimeError(f"{url} answered no body")
    return first, time.perf_counter() - start


def time_to_first_byte(url: str, repeats: int, say: Callable[[str], None]) -> dict:
    samples: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in REQUESTS}
    with httpx.Client(timeout=300) as client:
        for round_ in range(repeats):
            for label, path, body in REQUESTS:
                samples[label].append(byte_times(client, url + path, body))
            say(f"round {round_ + 1}/{repeats}: " + ", ".join(f"{k} {v[-1][0]:.2f} s" for k, v in samples.items()))
        rtf = running_status(url).rtf
    medians = {
        label: {
            "first_byte_s": round(statistics.median(first for first, _ in values), 3),
            "last_byte_s": round(statistics.median(last for _, last in values), 3),
        }
        for label, values in samples.items()
    }
    return {"text": TEXT, "repeats": repeats, "server_rtf": rtf, "median": medians, "samples_s": samples}


def speech_pieces(url: str) -> list[np.ndarray]:
    """The server's audio for ``TEXT`` in ``PIECES`` pieces (about one per clause, as the server cuts)."""
    body = {"text": TEXT, "voice": DEFAULT_VOICE, "format": "pcm"}
    r = httpx.post(f"{url}/invocations", json=body, timeout=300)
    r.raise_for_status()
    audio = np.frombuffer(r.content, dtype="<i2").astype(np.float32) / 32767.0
    return np.array_split(audio, PIECES)


def encoding_cost(pieces: list[np.ndarray], repeats: int) -> dict:
    audio_s = sum(len(p) for p in pieces) / SAMPLE_RATE
    out = {}
    for fmt in FORMATS:
        times, cpu, size = [], [], 0
        for _ in range(repeats):
            encoder = open_encoder(fmt)
            start, start_cpu = time.perf_counter(), time.thread_time()
            size = sum(len(encoder.encode(piece)) for piece in pieces) + len(encoder.finish())
            times.append(time.perf_counter() - start)
            cpu.append(time.thread_time() - start_cpu)
            encoder.close()
        out[fmt] = {
            "ms_per_audio_s": round(1000 * statistics.median(times) / audio_s, 2),
            "cpu_ms_per_audio_s": round(1000 * statistics.median(cpu) / audio_s, 2),
            "bytes_per_audio_s": round(size / audio_s),
        }
    return {"audio_s": round(audio_s, 2), "pieces": len(pieces), "repeats": repeats, "formats": out}


def openai_api(
    json_path: Annotated[Path, typer.Option("--json", help="Write the figures here.")] = Path(
        "bench/results/openai_api.json"
    ),
    repeats: Annotated[int, typer.Option(help="Rounds of requests, and encodings per format.")] = 3,
    server_url: Annotated[str | None, typer.Option(help="Use this warm server instead of starting one.")] = None,
) -> None:
    """Time to first byte on /v1/audio/speech against /invocations, and each format's encoding cost."""
    offline_environment()

    def say(line: str) -> None:
        typer.echo(line, err=True)

    def measure(url: str) -> dict:
        return {"time_to_first_byte": time_to_first_byte(url, repeats, say), "pieces": speech_pieces(url)}

    if server_url:
        check_ready(server_url)
        measured = measure(server_url)
    else:
        with model_server("onnx", "cpu") as url:
            measured = measure(url)
    figures = {
        "time_to_first_byte": measured["time_to_first_byte"],
        "encoding": encoding_cost(measured["pieces"], repeats),
        **run_record(),
    }
    for label, times in figures["time_to_first_byte"]["median"].items():
        typer.echo(f"{label:28s} first byte {times['first_byte_s']:.3f} s, last byte {times['last_byte_s']:.3f} s")
    for fmt, cost in figures["encoding"]["formats"].items():
        typer.echo(
            f"encoding {fmt:5s} {cost['ms_per_audio_s']:6.2f} ms ({cost['cpu_ms_per_audio_s']:5.2f} ms CPU) "
            f"per audio s, {cost['bytes_per_audio_s']} B/s"
        )
    typer.echo(f"server rtf {figures['time_to_first_byte']['server_rtf']}")
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(figures, indent=2) + "\n")
    say(f"wrote {json_path}")
