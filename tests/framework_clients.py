"""The voice-agent frameworks' own processes, run by the tests: scripts in tests/frameworks/, each run with
.venv-clients' Python (LiveKit Agents and pipecat as released, with this project's plugins; setup.sh builds
it), reporting one JSON line on stdout.

* ``run_client(script, *args)``: run a script to its end, its report
* ``run_client_across_restart(script, text, out)``: a script that speaks TEXT, prints ``spoken`` and waits,
  while a model server is killed and a new one started on the same address; then its report
* ``ANSWER``, ``ABORTED``, ``NEXT``: the turns the plugins' tests speak, interrupt and speak next
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from servers import QUICK_WARM_UP, SERVER_START_S, model_server_child

REPO = Path(__file__).resolve().parents[1]
CLIENTS = REPO / ".venv-clients" / "bin" / "python"
SCRIPTS = REPO / "tests" / "frameworks"
MAX_WER = 0.15
CLIENT_TIMEOUT_S = 600

ANSWER = "Sure! The museum opens at nine every morning, and tickets are sold at the door."
# Ten sentences, so ten pieces at least (a sentence end is always a cut): spoken on, they would all be rendered
# before the next turn's piece on the server's one worker.
ABORTED = (
    "Let me tell you about the old harbour. It began as a fishing village. Then traders came. The railway "
    "followed. Warehouses rose. The city grew around it. Ships got bigger. The docks moved away. The quays "
    "fell quiet. Now it is a park."
)
NEXT = "The next bus leaves at noon."


def clients() -> str:
    """The clients' Python; set-up installs it, so its absence is a failure with its fix, never a skip."""
    if not CLIENTS.exists():
        pytest.fail(".venv-clients is missing: run ./setup.sh (it installs tests/frameworks/requirements.txt)")
    return str(CLIENTS)


def run_client(script: str, *args: str) -> dict:
    done = subprocess.run(
        [clients(), str(SCRIPTS / script), *args], capture_output=True, text=True, timeout=CLIENT_TIMEOUT_S
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_client_across_restart(script: str, text: str, out: Path) -> dict:
    """The script speaks once on a model server of its own; once it says ``spoken``, that server is killed
    and a new one is started on the same address, and the script is told to go on (a line on its stdin)."""
    with model_server_child("onnx", *QUICK_WARM_UP, timeout_s=SERVER_START_S) as (url, proc):
        client = subprocess.Popen(
            [clients(), str(SCRIPTS / script), url, text, str(out)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert client.stdout is not None and client.stdin is not None
            assert client.stdout.readline().strip() == "spoken"
            proc.kill()
            proc.wait(timeout=60)
            with model_server_child("onnx", *QUICK_WARM_UP, timeout_s=SERVER_START_S, port=urlsplit(url).port):
                client.stdin.write("go\n")
                client.stdin.flush()
                report, _ = client.communicate(timeout=CLIENT_TIMEOUT_S)
        finally:
            if client.poll() is None:
                client.kill()
    assert client.returncode == 0
    return json.loads(report.strip().splitlines()[-1])
