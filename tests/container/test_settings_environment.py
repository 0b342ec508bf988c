"""The model server's ``KOKORO_*`` variables are the fields of ServerEnvironment (decision 150): kokoro-serve's
options are derived from them, and what one side writes the other reads back, value for value."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import typer.main

from kokoro_server.cli import cli, settings_of
from kokoro_server.environment import ServerEnvironment
from kokoro_server.settings import ServerSettings
from speech_protocol.environment import VariableError, from_env, pinned, to_env, variables

# Every variable away from its default, of every type a field holds (str, int, float, bool, a path, an
# optional number, a repeated option).
CHANGED = ServerSettings(
    host="0.0.0.0",
    port=9090,
    engine="torch",
    device="cuda",
    threads=2,
    onnx_spin=False,
    workers=3,
    g2p_workers=2,
    max_batch=16,
    batch_wait_ms=2.5,
    voice="bf_emma",
    trim=False,
    onnx_model=Path("/m/kokoro.onnx"),
    torch_model=Path("/m/kokoro.pth"),
    voices_dir=Path("/m/voices"),
    config=Path("/m/config.json"),
    assets_dir=Path("/m"),
    warm_up_text="Good morning, and welcome.",
    max_sessions=12,
    simulate_rtf=0.25,
    send_timeout_s=7.5,
    header_timeout_s=3.0,
    max_connections=64,
    allowed_hosts=("box.lan", "tts.internal"),
    allowed_origins=("http://localhost:5173",),
    log_level="debug",
)


def served(environment: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> ServerSettings:
    """What ``kokoro-serve``, given no argument, makes of these variables alone."""
    for var in variables(ServerEnvironment).values():
        monkeypatch.delenv(var.name, raising=False)
    for key, value in environment.items():
        monkeypatch.setenv(key, value)
    return settings_of(typer.main.get_command(cli).make_context("kokoro-serve", []).params)


def test_every_option_is_a_variable_of_the_environment_with_its_default(monkeypatch: pytest.MonkeyPatch) -> None:
    command = typer.main.get_command(cli)
    options = {param.name: param for param in command.params if param.name != "help"}
    assert list(options) == [field.name for field in dataclasses.fields(ServerEnvironment)]
    for name, var in variables(ServerEnvironment).items():
        assert options[name].envvar == var.name
        monkeypatch.delenv(var.name, raising=False)  # the suite sets one for its servers (tests/conftest.py)
    assert settings_of(command.make_context("kokoro-serve", []).params) == ServerSettings()


def test_what_to_env_writes_kokoro_serve_reads_back(monkeypatch: pytest.MonkeyPatch) -> None:
    assert served(to_env(CHANGED), monkeypatch) == CHANGED
    assert served({}, monkeypatch) == ServerSettings()


def test_the_library_reader_agrees_with_kokoro_serve(monkeypatch: pytest.MonkeyPatch) -> None:
    environment = to_env(CHANGED)
    assert ServerSettings(**from_env(ServerEnvironment, environment)) == served(environment, monkeypatch)


def test_a_deployment_writes_only_what_it_pins() -> None:
    assert pinned(ServerEnvironment, voice="bf_emma", max_batch=16, batch_wait_ms=2.0) == {
        "KOKORO_VOICE": "bf_emma",
        "KOKORO_MAX_BATCH": "16",
        "KOKORO_BATCH_WAIT_MS": "2",
    }
    with pytest.raises(TypeError):
        pinned(ServerEnvironment, voices="bf_emma")  # a field the server does not have


def test_a_value_that_is_not_its_fields_type_names_the_variable() -> None:
    with pytest.raises(VariableError, match="KOKORO_PORT must be a number"):
        from_env(ServerEnvironment, {"KOKORO_PORT": "eighty"})
    with pytest.raises(VariableError, match="KOKORO_TRIM must be true or false"):
        from_env(ServerEnvironment, {"KOKORO_TRIM": "maybe"})
