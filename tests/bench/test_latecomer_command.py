"""``kokoro_bench latecomer``: "Hello." arriving while other texts are being read, on the real server."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kokoro_bench.studies.latecomer import HOSTILE, LONG_READ
from speech_protocol.http.server_status import read_status


def bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kokoro_bench", "latecomer", *args],
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_the_texts_being_read_are_the_ones_the_issue_names() -> None:
    assert [len(text) for text in HOSTILE] == [4000, 3000] and " " not in "".join(HOSTILE)  # one token each
    assert len(re.findall(r"[.:](?: |$)", LONG_READ)) == 44  # "two long ordinary texts (40 sentences each)"


def test_it_times_the_latecomer_against_itself_alone_and_the_others_hang_up(tmp_path: Path, model_server_url) -> None:
    out = tmp_path / "latecomer.json"
    listeners = read_status(model_server_url).listeners
    done = bench(
        *("--kinds", "long", "--others", "1", "--repeats", "1", "--delay", "0.5"),
        *("--server-url", model_server_url, "--json", str(out)),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(out.read_text())
    assert figures["alone_s"] > 0 and figures["engine"] == "onnx" and figures["commit"]
    assert figures["alone_runs"] == 2  # one before the loaded rounds, one before the one round
    [row] = figures["rows"]
    assert row["kind"] == "long" and row["others"] == 1 and row["refused"] == 0 and row["preempted"] >= 0, row
    assert 0 < row["latecomer_s"] <= row["latecomer_max_s"] and row["ratio"] > 0, row
    assert "| 1 long text |" in done.stdout
    # It says how it goes as it goes: first once it is past its start (a reader, and the documented-commands
    # test, wait for that line), then after each row, minutes apart on a real run.
    said = done.stderr.splitlines()
    assert said[0].startswith('"Hello." alone, its first answer:') and said[1].startswith("1 long being read: "), said
    # The reader of the long text hung up once "Hello." was answered, and the server let it go.
    assert read_status(model_server_url).listeners == listeners


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--others", "0", "--others: whole numbers from 1 to 16"),
        ("--others", "1,x", "--others: expected comma-separated whole numbers"),
        ("--kinds", "evil", "--kinds: use hostile and/or long"),
        ("--kinds", ",", "--kinds: use hostile and/or long"),
    ],
)
def test_a_bad_option_is_one_line_and_exit_2(option: str, value: str, message: str) -> None:
    done = bench(option, value, "--server-url", "http://127.0.0.1:9")
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_no_server_at_the_url_is_one_line_and_exit_2() -> None:
    done = bench("--server-url", "http://127.0.0.1:9")
    assert done.returncode == 2 and "no warm model server at http://127.0.0.1:9" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
