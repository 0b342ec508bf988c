"""One benchmark run, step by step, on one server:

1. start the model server (or use ``--server-url``) and read the rtf its Ready event advertises: the
   pipelined strategy sizes its pieces from it, as the agent does;
2. server overhead: each sentence of one text timed in-process and on the server (and the rtf on
   sentences, to check the advertised one against);
3. every text with every strategy (interleaved across repeats, so load changes hit all of them alike);
4. the first-piece sweep: fixed lengths against the adaptive one, on one text;
5. 1, 2, 4, 8 concurrent sessions.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import os
import platform
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from speech_protocol.pace import WORD, usable_overhead, usable_rtf, word_count
from speech_protocol.pieces.cuts import natural_cut_after
from speech_protocol.pieces.first_piece import adaptive_policy
from speech_protocol.pieces.segmenter import Segmenter, SegmentPolicy

from .measuring.concurrency import against_one, concurrent_sessions
from .measuring.lower_bound import against_bound, fit_speech_model
from .measuring.machine import commit
from .measuring.overhead import measure_overhead
from .measuring.process_stats import load_average
from .measuring.server import advertised_ready, check_ready, check_voice, model_server
from .measuring.strategies import SENTENCES, STRATEGIES, Run, Trace, speak
from .measuring.timeline import play
from .reporting.cost import MeasuredRun, at_ladder_top, capacity, cost_rows, load_prices, machine_label
from .reporting.plots import plot_text
from .reporting.results import BenchReport, SweepResult, summarize, write_json
from .reporting.targets import evaluate, ratios
from .settings import BenchSettings
from .stats import median, median_of
from .texts import TEXTS


@contextlib.contextmanager
def _server(settings: BenchSettings) -> Iterator[str]:
    if settings.server_url:
        check_ready(settings.server_url)
        yield settings.server_url.rstrip("/")
    else:
        with model_server(settings.engine, settings.device, settings.simulate_rtf) as url:
            yield url


def sentences(text: str) -> list[str]:
    segmenter = Segmenter(SENTENCES)
    return segmenter.feed(text) + segmenter.flush()


def openings(pieces: list[str], words: int = 3) -> tuple[str, ...]:
    """Each piece's opening up to the first natural cut after ``words`` words: the cost per piece only
    shows against short pieces, so the speech model is fitted on both lengths."""
    found = []
    for piece in pieces:
        split = list(WORD.finditer(piece))
        cut = next((k for k in range(words, len(split)) if natural_cut_after(split[k - 1][0], split[k][0])), None)
        if cut is not None:
            found.append(piece[: split[cut - 1].end()])
    return tuple(found)


def run_bench(settings: BenchSettings, say: Callable[[str], None]) -> tuple[BenchReport, dict[str, list[Trace]]]:
    """All the figures, and the last trace of each text and strategy (for the plots).

    The server starts outside the event loop: its start waits on the model's warm-up, and under
    ``asyncio.run`` a Ctrl-C only cancels the main task, which a blocking wait never yields to (the run
    went on until the server was warm, seconds later); here the Ctrl-C stops the start at once."""
    started = time.perf_counter()
    meta = _machine(settings)
    with _server(settings) as url:
        return asyncio.run(_measure(settings, url, say, started, meta))


async def _measure(
    settings: BenchSettings, url: str, say: Callable[[str], None], started: float, meta: dict
) -> tuple[BenchReport, dict[str, list[Trace]]]:
    collected: dict[tuple[str, str], list[Trace]] = {}
    ready = await advertised_ready(url)
    meta["server_rtf_advertised"] = ready.rtf
    meta["server_piece_overhead_advertised_s"] = ready.piece_overhead_s
    await check_voice(url, settings.voice)
    say(f"server ready at {url} (advertised rtf {meta['server_rtf_advertised']}); timing the overhead")
    timed = sentences(TEXTS[settings.overhead_text])
    overhead = await measure_overhead(
        url, timed, openings=openings(timed), engine=settings.engine, device=settings.device, voice=settings.voice
    )
    # What the agent picks from Ready:
    policy = adaptive_policy(usable_rtf(ready.rtf), piece_overhead_s=usable_overhead(ready.piece_overhead_s))
    meta["rtf_measured"] = overhead.rtf
    meta["first_piece_min_words"] = policy.first_piece_min_words
    meta["ramp_words"] = policy.ramp_words

    def run_of(text: str, piece_policy: SegmentPolicy | None = None) -> Run:
        return Run(url, TEXTS[text], settings.tokens_per_s, settings.voice, piece_policy)

    for repeat in range(settings.repeats):
        for text in settings.texts:
            for strategy in STRATEGIES:
                say(f"[{repeat + 1}/{settings.repeats}] {text}: {strategy}")
                collected.setdefault((text, strategy), []).append(await speak(strategy, text, run_of(text)))
    results = [summarize(traces) for traces in collected.values()]

    sweep = []
    for words in settings.sweep_words:
        fixed = run_of(settings.sweep_text, SegmentPolicy(first_piece_min_words=words))
        traces = []
        for repeat in range(settings.repeats):
            say(f"[{repeat + 1}/{settings.repeats}] first-piece sweep: {words} words")
            traces.append(await speak("pipelined", settings.sweep_text, fixed))
        sweep.append(_sweep_point(f"{words} words", words, traces))
    if settings.sweep_words:
        adaptive = collected.get((settings.sweep_text, "pipelined")) or [
            await speak("pipelined", settings.sweep_text, run_of(settings.sweep_text))
        ]
        sweep.append(_sweep_point("adaptive", policy.first_piece_min_words, adaptive))

    concurrency = []
    for sessions in settings.concurrency:
        say(f"{sessions} concurrent session(s) on {settings.concurrency_text}")
        concurrency.append(
            await concurrent_sessions(
                sessions, settings.concurrency_text, run_of(settings.concurrency_text), settings.stagger_s
            )
        )
    concurrency = against_one(concurrency)
    meta["speech_words_per_s"] = median(
        [word_count(TEXTS[r.text]) / r.audio_s for r in results if r.strategy == "pipelined" and r.audio_s]
    )
    meta["simulate_rtf"] = settings.simulate_rtf or None
    model = fit_speech_model(
        [p.server_synth_s for p in overhead.pieces], [p.audio_s for p in overhead.pieces], meta["speech_words_per_s"]
    )
    bounds = [
        against_bound(text, collected[(text, "pipelined")], model)
        for text in settings.texts
        if (text, "pipelined") in collected
    ]
    meta["load_average_end"] = load_average()
    meta["wall_s"] = round(time.perf_counter() - started, 1)
    cap = capacity(concurrency, meta["rtf_measured"])
    report = BenchReport(
        meta,
        results,
        ratios(results),
        overhead,
        sweep,
        concurrency,
        evaluate(results, overhead, concurrency, bounds),
        bounds,
        cap,
        cost_rows(
            [MeasuredRun(cap, settings.engine, settings.device, machine_label(meta), at_ladder_top(cap, concurrency))],
            load_prices(),
        ),
    )
    last: dict[str, list[Trace]] = {}
    for (text, _strategy), traces in collected.items():
        last.setdefault(text, []).append(traces[-1])
    return report, last


def _sweep_point(name: str, words: int, traces: list[Trace]) -> SweepResult:
    playbacks = [play(t.audio) for t in traces]
    return SweepResult(
        policy=name,
        first_piece_min_words=words,
        ttfa_s=median_of([p.ttfa_s for p in playbacks], "ttfa_s"),
        audible_s=median([p.audible_s for p in playbacks]),
        stall_s=median_of([p.stall_s for p in playbacks], "stall_s"),
        first_piece=traces[0].pieces[0][1],
    )


def write_outputs(report: BenchReport, traces: dict[str, list[Trace]], settings: BenchSettings) -> list[Path]:
    written = []
    if settings.plots_dir is not None:
        for text, text_traces in traces.items():
            written.append(plot_text(text_traces, settings.plots_dir / f"timeline_{text}.png"))
    if settings.json_path is not None:
        write_json(report, settings.json_path)
        written.append(settings.json_path)
    return written


def _gpu_name() -> str:
    """The accelerator's own name (``nvidia-smi``), so a GPU figure says which GPU it was taken on."""
    try:
        smi = subprocess.run(
            ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return "cuda (nvidia-smi not found)"
    return ", ".join(line.strip() for line in smi.stdout.splitlines() if line.strip()) or "cuda"


def _machine(settings: BenchSettings) -> dict:
    """Where and how the figures were taken: without this a latency figure means little."""
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": commit(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores, {platform.processor() or 'cpu'}",
        "python": platform.python_version(),
        "engine": settings.engine,
        "device": settings.device,
        "gpu": None if settings.device == "cpu" else _gpu_name(),
        "tokens_per_s": settings.tokens_per_s,
        "voice": settings.voice,
        "texts": {name: word_count(TEXTS[name]) for name in settings.texts},
        "repeats": settings.repeats,
        "load_average_start": load_average(),
    }
