"""``kokoro-serve``: start the model server (the container's ``serve`` runs the same code).

Asset problems are found before the socket opens and reported as one line with the fix; the model itself
loads in the background while ``/ping`` answers 503.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from kokoro_server import assets as model_assets
from kokoro_server import listener
from kokoro_server.settings import DEFAULT_VOICE, WARM_UP_TEXT, ServerSettings, offline_environment

cli = typer.Typer(add_completion=False, help=__doc__)
PathOpt = Path | None


@cli.command()
def serve(
    host: Annotated[str, typer.Option(envvar="KOKORO_HOST", help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(envvar="KOKORO_PORT", help="Port (SageMaker uses 8080).")] = 8080,
    engine: Annotated[str, typer.Option(envvar="KOKORO_ENGINE", help="onnx (CPU) or torch.")] = "onnx",
    device: Annotated[str, typer.Option(envvar="KOKORO_DEVICE", help="cpu or cuda.")] = "cpu",
    threads: Annotated[int, typer.Option(envvar="KOKORO_THREADS", help="Threads per inference, 0 = all cores.")] = 0,
    workers: Annotated[int, typer.Option(envvar="KOKORO_WORKERS", help="Concurrent inferences.")] = 1,
    g2p_workers: Annotated[
        int, typer.Option(envvar="KOKORO_G2P_WORKERS", help="G2P processes; 0 = half the cores, 1 to 4.")
    ] = 0,
    max_batch: Annotated[
        int, typer.Option(envvar="KOKORO_MAX_BATCH", help="Pieces per forward pass (torch engine); 1 = off.")
    ] = 1,
    batch_wait_ms: Annotated[
        float, typer.Option(envvar="KOKORO_BATCH_WAIT_MS", help="Milliseconds a batch waits to fill.")
    ] = 2.0,
    voice: Annotated[str, typer.Option(envvar="KOKORO_VOICE", help="Default voice.")] = DEFAULT_VOICE,
    trim: Annotated[bool, typer.Option(envvar="KOKORO_TRIM", help="Trim silence at piece edges.")] = True,
    onnx_model: Annotated[PathOpt, typer.Option(envvar="KOKORO_ONNX_MODEL")] = None,
    torch_model: Annotated[PathOpt, typer.Option(envvar="KOKORO_TORCH_MODEL")] = None,
    voices_dir: Annotated[PathOpt, typer.Option(envvar="KOKORO_VOICES_DIR")] = None,
    config: Annotated[PathOpt, typer.Option(envvar="KOKORO_CONFIG", help="Kokoro config.json.")] = None,
    assets_dir: Annotated[PathOpt, typer.Option(envvar="KOKORO_ASSETS_DIR")] = None,
    warm_up_text: Annotated[
        str, typer.Option(envvar="KOKORO_WARM_UP_TEXT", help="Spoken at start-up to warm and time the model.")
    ] = WARM_UP_TEXT,
    max_sessions: Annotated[
        int | None,
        typer.Option(
            envvar="KOKORO_MAX_SESSIONS", help="Listeners at once; default: measured from the real-time factor."
        ),
    ] = None,
    simulate_rtf: Annotated[
        float,
        typer.Option(
            envvar="KOKORO_SIMULATE_RTF",
            help="Benchmarks only: synthesis takes at least this many seconds per second of audio synthesized, trimmed edge silence included (0 = off).",
        ),
    ] = 0.0,
    send_timeout: Annotated[
        float,
        typer.Option(
            envvar="KOKORO_SEND_TIMEOUT", help="End a session whose client reads nothing for this many seconds."
        ),
    ] = 20.0,
    header_timeout: Annotated[
        float, typer.Option(envvar="KOKORO_HEADER_TIMEOUT", help="Seconds a client has to send a request head.")
    ] = 10.0,
    max_connections: Annotated[
        int, typer.Option(envvar="KOKORO_MAX_CONNECTIONS", help="Open connections before requests get 503.")
    ] = 512,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            envvar="KOKORO_ALLOWED_HOSTS",
            help="A name besides localhost/127.0.0.1/[::1] that requests may give as Host (repeat; * = any).",
        ),
    ] = None,
    allow_origin: Annotated[
        list[str] | None,
        typer.Option(
            envvar="KOKORO_ALLOWED_ORIGINS",
            help="A web page origin (http://host:port) allowed to open the session or POST (repeat; * = any).",
        ),
    ] = None,
    log_level: Annotated[str, typer.Option(envvar="KOKORO_LOG_LEVEL")] = "info",
) -> None:
    """Serve GET /ping, POST /invocations and the WebSocket session on HOST:PORT."""
    offline_environment()
    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = ServerSettings(
            host=host,
            port=port,
            engine=engine,
            device=device,
            threads=threads,
            workers=workers,
            g2p_workers=g2p_workers,
            max_batch=max_batch,
            batch_wait_ms=batch_wait_ms,
            voice=voice,
            trim=trim,
            warm_up_text=warm_up_text,
            header_timeout_s=header_timeout,
            max_connections=max_connections,
            max_sessions=max_sessions,
            simulate_rtf=simulate_rtf,
            send_timeout_s=send_timeout,
            allowed_hosts=tuple(allow_host or ()),
            allowed_origins=tuple(allow_origin or ()),
        )
        sock = listener.bind(settings.host, settings.port)  # before the model: a busy port fails at once
        resolved = model_assets.resolve(
            settings.engine,
            onnx_model=onnx_model,
            torch_model=torch_model,
            voices_dir=voices_dir,
            config=config,
            assets_dir=assets_dir,
        )
    except (ValueError, model_assets.AssetError, listener.PortInUse) as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    # Imported once the options hold: the server brings in G2P (spaCy, misaki), seconds of loading that a
    # wrong option should not wait for.
    from kokoro_server.server import create_app

    if not listener.serve(create_app(settings, resolved), settings, sock, log_level.lower()):
        raise typer.Exit(3)  # uvicorn logged why the app did not start
    _exit_stopped()


def _exit_stopped() -> NoReturn:
    """Exit 0 after a stop, skipping the interpreter's finalization (decision 110).

    A stop during warm-up leaves the model's daemon thread inside onnxruntime; finalizing the interpreter
    under it aborted the process ("terminate called without an active exception", SIGABRT) in one run of
    four. Nothing is left to clean up once uvicorn has shut down, so the logs are flushed and the process
    ends at once.
    """
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def main() -> None:
    cli()
