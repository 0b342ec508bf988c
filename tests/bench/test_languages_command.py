"""``kokoro_bench languages``: every language's G2P timed and weighed in a worker-like process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CODES = {"en-us", "en-gb", "es", "fr-fr", "hi", "it", "pt-br", "ja", "zh"}


def test_it_measures_all_nine_languages_and_what_loading_them_at_start_would_add(tmp_path: Path) -> None:
    out = tmp_path / "languages.json"
    done = subprocess.run(
        [sys.executable, "-m", "kokoro_bench", "languages", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(out.read_text())
    assert set(figures["languages"]) == CODES
    assert all(row["build_s"] > 0 and row["sentence_ms"] > 0 for row in figures["languages"].values())
    assert set(figures["lazy"]["first_use_s"]) == CODES - {"en-us", "en-gb"}
    assert figures["worker_memory_mib_all_nine"] > figures["worker_memory_mib_english"] > 0
    assert "would add" in done.stdout
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO)
    assert figures["commit"] == head.stdout.strip() and figures["date"].startswith("20")  # what it was measured at
    assert figures["machine"]["cores"] >= 1 and figures["machine"]["load_average_1m"] >= 0
