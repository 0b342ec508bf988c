"""``kokoro-serve``: bad options and missing assets stop it at once with one clear line, no traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest


def serve(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kokoro_server", *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--engine", "tensorflow"], "engine: 'tensorflow' is not one of onnx, torch"),
        (["--device", "tpu"], "device: 'tpu' is not one of cpu, cuda"),
        (["--port", "70000"], "port: 70000 is out of range"),
        (["--workers", "0"], "workers and max_pending must be >= 1"),
        (["--g2p-workers", "-1"], "g2p_workers must be >= 1"),
        (["--warm-up-text", "  "], "warm_up_text: must hold words"),
        (["--onnx-model", "/nonexistent/model.onnx"], "/nonexistent/model.onnx: file is missing"),
        (["--voices-dir", "/nonexistent"], "no voice files"),
    ],
)
def test_bad_settings_exit_2_with_one_line(args, message):
    result = serve(*args)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_unknown_option_is_a_usage_error():
    result = serve("--colour", "blue")
    assert result.returncode == 2 and "No such option" in result.stderr
