"""LiveKit Agents' and pipecat's OpenAI TTS classes, as released on PyPI, pointed at the real server: each
runs in its own environment (.venv-clients: both need openai>=3, the project pins 2.x) and the audio it
hands its pipeline is heard by the recognizer."""

from __future__ import annotations

import pytest
from framework_clients import MAX_WER, run_client
from speech import transcribe, wer

TEXT = "The museum opens at nine every morning. Tickets are sold at the door."


@pytest.mark.parametrize("fmt", ["wav", "mp3", "pcm"])
def test_livekit_openai_tts_speaks(model_server_url, tmp_path, fmt):
    out = tmp_path / "livekit.pcm"
    report = run_client("livekit_tts.py", f"{model_server_url}/v1", fmt, TEXT, str(out))
    assert report["sample_rate"] == 24_000 and report["frames"] > 1
    heard = transcribe(out.read_bytes(), 24_000)
    assert wer(TEXT, heard) <= MAX_WER, heard


def test_pipecat_openai_tts_service_speaks(model_server_url, tmp_path):
    out = tmp_path / "pipecat.pcm"
    report = run_client("pipecat_tts.py", f"{model_server_url}/v1", TEXT, str(out))
    assert report == {"sample_rates": [24_000], "errors": []}
    heard = transcribe(out.read_bytes(), 24_000)
    assert wer(TEXT, heard) <= MAX_WER, heard
