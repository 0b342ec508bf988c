"""``python -m kokoro_bench``: the benchmark's one command line.

With no subcommand it runs the benchmark, prints the tables and writes the PNG timelines and the JSON.
Exit codes: 0 after a complete run (whether or not every target is met: the figures are the product),
2 when an option is wrong or a figure could not be produced (one line on stderr says which), 130 when
stopped by Ctrl-C or SIGTERM (the model server it started is stopped too: :mod:`kokoro_bench.interruption`).

Its subcommands are defined beside what they run. The product, which backs the project's claims: the run
itself, ``soak`` (the endurance run) and ``report`` (every page's figures from the results files). The
studies, each a question and a results file whose figures a page or a decision record shows: ``policy``
(the first-piece policy, computed), ``interrupt`` (barge-in), ``languages``,
``language-answers``, ``normalization``, ``batching``, ``frameworks`` (first and last audio inside LiveKit
Agents and pipecat), ``images`` (building and starting the two images) and ``latecomer`` (a short text that
arrives while others are read). A finished before/after study's
figures are frozen as text in its decision record and its command is removed. Each takes ``--help``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from kokoro_server.settings import offline_environment
from speech_protocol.voices import DEFAULT_VOICE

from .errors import BenchError
from .interruption import interruptible_command
from .measuring import policy_sweep, soak_command
from .report_command import report
from .settings import TOKENS_PER_S, int_list, name_list, preset, with_options
from .studies import (
    batching,
    frameworks,
    images,
    interrupt,
    language_answers,
    languages,
    latecomer,
    normalization,
)

app = typer.Typer(add_completion=False, help=__doc__)


def bench(
    ctx: typer.Context,
    quick: Annotated[bool, typer.Option(help="One short text, 1 and 2 sessions, no sweep: about a minute.")] = False,
    json_path: Annotated[Path | None, typer.Option("--json", help="Write every figure to this JSON file.")] = None,
    plots: Annotated[Path | None, typer.Option(help="Write one timeline PNG per text into this folder.")] = None,
    tokens_per_s: Annotated[float | None, typer.Option(help=f"Scripted LLM speed (default {TOKENS_PER_S:g}).")] = None,
    texts: Annotated[str | None, typer.Option(help="Comma-separated: short,typical,long.")] = None,
    concurrency: Annotated[str | None, typer.Option(help="Session counts, e.g. 1,2,4,8.")] = None,
    sweep_words: Annotated[str | None, typer.Option(help="Fixed first-piece lengths to compare; '' for none.")] = None,
    repeats: Annotated[int | None, typer.Option(help="Runs per text and strategy (medians).")] = None,
    voice: Annotated[str | None, typer.Option(help=f"Kokoro voice (default {DEFAULT_VOICE}).")] = None,
    engine: Annotated[str | None, typer.Option(help="onnx or torch.")] = None,
    device: Annotated[str | None, typer.Option(help="cpu or cuda.")] = None,
    server_url: Annotated[str | None, typer.Option(help="Use this warm server instead of starting one.")] = None,
    simulate_rtf: Annotated[
        float | None, typer.Option(help="Start the server with synthesis slowed to this real-time factor (0 = off).")
    ] = None,
) -> None:
    """Measure first audio, audible audio, stalls, server overhead and concurrency on the real server."""
    if ctx.invoked_subcommand is not None:
        return  # a subcommand runs instead, with its own options
    offline_environment()
    from .reporting.run_tables import run_markdown
    from .run import run_bench, write_outputs  # the run's libraries (matplotlib, the engine) load only now

    try:
        settings = with_options(
            preset(quick),
            json_path=json_path,
            plots_dir=plots,
            tokens_per_s=tokens_per_s,
            texts=None if texts is None else name_list("--texts", texts),
            concurrency=None if concurrency is None else int_list("--concurrency", concurrency),
            sweep_words=None if sweep_words is None else int_list("--sweep-words", sweep_words),
            repeats=repeats,
            voice=voice,
            engine=engine,
            device=device,
            server_url=server_url,
            simulate_rtf=simulate_rtf,
        )
        report, traces = run_bench(settings, lambda line: typer.echo(line, err=True))
        typer.echo(run_markdown(asdict(report)))
        for path in write_outputs(report, traces, settings):
            typer.echo(f"wrote {path}", err=True)
    except BenchError as err:
        typer.echo(f"bench: {err}", err=True)
        raise typer.Exit(2) from None


PRODUCT: dict[str, Callable[..., None]] = {"soak": soak_command.run, "report": report}
STUDIES: dict[str, Callable[..., None]] = {
    "policy": policy_sweep.run,
    "interrupt": interrupt.main,
    "languages": languages.languages,
    "language-answers": language_answers.language_answers,
    "normalization": normalization.main,
    "batching": batching.batching,
    "frameworks": frameworks.frameworks,
    "images": images.images,
    "latecomer": latecomer.latecomer,
}
app.callback(invoke_without_command=True)(interruptible_command("bench", bench))
for _name, _command in (PRODUCT | STUDIES).items():
    app.command(_name)(interruptible_command(f"bench {_name}", _command))
