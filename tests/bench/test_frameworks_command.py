"""``kokoro_bench frameworks``: first and last audio and the server's CPU inside LiveKit Agents and pipecat, each
plugin against the framework's OpenAI TTS on the OpenAI route, on the real server (the frameworks run in
.venv-clients)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_it_times_each_plugin_against_the_openai_route_in_its_framework(tmp_path: Path, model_server_url: str) -> None:
    out = tmp_path / "frameworks.json"
    try:  # within the test's own time limit, so that a hang shows what the run printed
        done = subprocess.run(
            [sys.executable, "-m", "kokoro_bench", "frameworks", "--repeats", "1", "--server-url", model_server_url]
            + ["--json", str(out)],
            env={**os.environ, "HF_HUB_OFFLINE": "1"},
            capture_output=True,
            text=True,
            timeout=240,
        )
    except subprocess.TimeoutExpired as hung:
        raise AssertionError(f"the run did not end in {hung.timeout} s: {str(hung.stderr)[-3000:]}") from None
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(out.read_text())
    for framework in ("livekit", "pipecat"):
        for name in ("plugin", "openai_route"):
            row = figures[framework][name]
            assert 0 < row["first_audio_s"] <= row["last_audio_s"] and row["audio_s"] > 10, (framework, name, row)
            assert row["server_cpu_s"] > 0, (framework, name, row)  # the server's process was found and read
        ratios = figures["plugin_over_openai_route"][framework]
        assert set(ratios) == {"first_audio", "last_audio", "server_cpu"} and min(ratios.values()) > 0, ratios
    assert "LiveKit, plugin / OpenAI route" in done.stdout and "pipecat, plugin / OpenAI route" in done.stdout
