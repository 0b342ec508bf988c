"""``kokoro-serve``: bad options and missing assets stop it at once with one clear line, no traceback; a
stop asked for by SIGINT or SIGTERM ends with exit code 0 (decision 110)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import httpx
import pytest
from servers import free_port


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


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_the_server_with_exit_code_0(sig: signal.Signals) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kokoro_server", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal starts it
    )
    try:
        while not _answers(f"http://127.0.0.1:{port}/ping"):  # 503 while the model loads is enough
            assert proc.poll() is None, proc.communicate()[1]
            time.sleep(0.2)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err


def _answers(url: str) -> bool:
    try:
        httpx.get(url, timeout=2)
    except httpx.HTTPError:
        return False
    return True
