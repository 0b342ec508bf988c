"""``kokoro_bench language-answers``: first audio of the typical answer per language, on the real server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from kokoro_bench.studies.language_answers import answers

FIELDS = ("pipelined_first_audio_s", "whole_first_audio_s", "pipelined_stall_s", "whole_stall_s", "audio_s", "ratio")


def test_a_typical_answer_is_written_for_one_voice_of_each_of_the_nine_languages() -> None:
    assert sorted(voice[0] for voice in answers()) == sorted("abefhipjz")


def test_it_times_the_pipeline_against_the_whole_answer(tmp_path: Path, model_server_url: str) -> None:
    out = tmp_path / "language_answers.json"
    done = subprocess.run(
        [sys.executable, "-m", "kokoro_bench", "language-answers", "--voice", "zf_xiaobei", "--repeats", "1"]
        + ["--server-url", model_server_url, "--json", str(out)],
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    row = json.loads(out.read_text())["voices"]["zf_xiaobei"]
    assert all(isinstance(row[key], (int, float)) and row[key] >= 0 for key in FIELDS), row
    assert row["audio_s"] > 5 and "rtf" in done.stdout


def test_a_voice_without_an_answer_is_a_usage_error_that_names_the_written_ones() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kokoro_bench", "language-answers", "--voice", "xx_nobody"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "xx_nobody" in done.stderr and "ef_dora" in done.stderr, done.stderr
