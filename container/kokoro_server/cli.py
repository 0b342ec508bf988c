"""``kokoro-serve``: start the model server (the container's ``serve`` runs the same code).

Every option, with its ``KOKORO_*`` variable, default and help, is a field of
:class:`~kokoro_server.environment.ServerEnvironment`. Asset problems are found before the socket opens and
reported as one line with the fix; the model itself loads in the background while ``/ping`` answers 503.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
import os
import sys
import typing
from typing import Annotated, Any, NoReturn

import typer

from kokoro_server import assets as model_assets
from kokoro_server import listener
from kokoro_server.environment import ServerEnvironment
from kokoro_server.settings import ServerSettings, offline_environment
from speech_protocol.environment import variables

cli = typer.Typer(add_completion=False, help=__doc__)
_TYPES = typing.get_type_hints(ServerEnvironment)
_REPEATED = frozenset(name for name, hint in _TYPES.items() if typing.get_origin(hint) is tuple)


def _option(field: dataclasses.Field[Any]) -> inspect.Parameter:
    """``kokoro-serve``'s option for one field of :class:`ServerEnvironment`: its name, variable, default
    and help are the field's; a tuple field is a repeatable option."""
    var, hint, default = variables(ServerEnvironment)[field.name], _TYPES[field.name], field.default
    if field.name in _REPEATED:
        hint, default = list[str] | None, None
    declared = (f"--{var.option}",) if var.option else ()
    option = typer.Option(*declared, envvar=var.name, help=var.help)
    return inspect.Parameter(
        field.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=Annotated[hint, option]
    )


def settings_of(options: dict[str, Any]) -> ServerSettings:
    """The settings that the parsed options (and so the variables) describe: a repeated option's values as a
    tuple. A :class:`ValueError` names what is wrong."""
    repeated = {name: tuple(values or ()) for name, values in options.items() if name in _REPEATED}
    return ServerSettings(**{**options, **repeated})


def serve(**options: Any) -> None:
    """Serve GET /ping, POST /invocations and the WebSocket session on HOST:PORT."""
    offline_environment()
    log_level = options["log_level"]
    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = settings_of(options)
        sock = listener.bind(settings.host, settings.port)  # before the model: a busy port fails at once
        resolved = model_assets.resolve(
            settings.engine,
            onnx_model=settings.onnx_model,
            torch_model=settings.torch_model,
            voices_dir=settings.voices_dir,
            config=settings.config,
            assets_dir=settings.assets_dir,
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


serve.__signature__ = inspect.Signature(  # type: ignore[attr-defined]  # what Typer reads the options from
    [_option(field) for field in dataclasses.fields(ServerEnvironment)]
)
cli.command()(serve)


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
