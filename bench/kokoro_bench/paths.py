"""Where the benchmark reads and writes: the repository it documents, its results files, its own data."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
REPO = PACKAGE.parents[1]
RESULTS = REPO / "bench" / "results"  # the committed results files the pages are generated from
DATA = PACKAGE / "data"  # what the benchmark reads: instance prices with their source and date
