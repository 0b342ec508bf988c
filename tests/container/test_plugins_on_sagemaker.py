"""Both framework plugins on a SageMaker endpoint: LiveKit's ``kokoro.TTS`` and pipecat's
``KokoroServerTTSService``, given ``SageMakerConnector`` in place of a model server's URL, speak through AWS's
bidirectional client (real, in .venv-clients on Python 3.12) -> the SageMaker emulator -> the real model server
(tests/frameworks/sagemaker_turns.py)."""

from __future__ import annotations

import json
import os
import subprocess

from emulator import sagemaker_emulator
from framework_clients import ANSWER, CLIENT_TIMEOUT_S, MAX_WER, SCRIPTS, clients
from speech import transcribe, wer, words


def test_both_plugins_speak_through_a_sagemaker_endpoint(model_server_url, tmp_path):
    with sagemaker_emulator(model_server_url) as emulator:
        done = subprocess.run(
            [clients(), str(SCRIPTS / "sagemaker_turns.py"), emulator.endpoint_url, ANSWER, str(tmp_path)],
            env={
                **os.environ,
                "SSL_CERT_FILE": str(emulator.ca_file),
                "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
                "AWS_SECRET_ACCESS_KEY": "not-a-secret",
            },
            capture_output=True,
            text=True,
            timeout=CLIENT_TIMEOUT_S,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["errors"] == [], report
    for plugin in ("livekit", "pipecat"):
        assert wer(ANSWER, transcribe((tmp_path / f"{plugin}.pcm").read_bytes(), 24_000)) <= MAX_WER, plugin
        assert report[f"{plugin}_words"] == len(words(ANSWER)), report  # every word timed, over SageMaker too
