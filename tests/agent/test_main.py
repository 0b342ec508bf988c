"""The image's entrypoint fails at start-up, naming the variable, when the configuration is wrong."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

AGENT_MAIN = Path(__file__).resolve().parents[2] / "agent" / "main.py"


def test_bad_configuration_exits_with_the_variable_named() -> None:
    env = {"PATH": "/usr/bin:/bin", "TTS_TRANSPORT": "websocket", "TTS_URL": "gopher://x"}
    result = subprocess.run([sys.executable, str(AGENT_MAIN)], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "TTS_URL" in result.stderr and "Traceback" not in result.stderr
