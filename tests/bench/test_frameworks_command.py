"""``kokoro_bench frameworks``: first audio inside LiveKit Agents, the plugin against the OpenAI route, on
the real server (LiveKit itself runs in .venv-clients)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_it_times_the_plugin_against_the_openai_route_in_livekit(tmp_path: Path, model_server_url: str) -> None:
    out = tmp_path / "frameworks.json"
    done = subprocess.run(
        [sys.executable, "-m", "kokoro_bench", "frameworks", "--repeats", "1", "--server-url", model_server_url]
        + ["--json", str(out)],
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(out.read_text())
    for name in ("plugin", "openai_route"):
        row = figures["livekit"][name]
        assert 0 < row["first_audio_s"] <= row["last_audio_s"] and row["audio_s"] > 10, (name, row)
    assert figures["plugin_over_openai_route"] > 0 and "OpenAI route" in done.stdout
