"""``python -m kokoro_bench batching``: how it groups pieces, and what it refuses before loading a model."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from kokoro_bench.app import app
from kokoro_bench.studies.batching import batches
from kokoro_server.engine.batch import BatchRow, token_bucket


def row(phonemes: int) -> BatchRow:
    return BatchRow("a" * phonemes, np.zeros((1, 256), dtype=np.float32), 1.0)


def test_pieces_are_batched_by_length_bucket_and_bounded_in_size():
    rows = [row(n) for n in (10, 20, 30, 25, 60, 12, 14)]
    grouped = batches(rows, 2)
    assert sorted(len(b) for b in grouped) == [1, 1, 1, 2, 2]
    assert all(len({token_bucket(len(r.phonemes)) for r in b}) == 1 for b in grouped)
    assert [len(b) for b in batches(rows, 1)] == [1] * len(rows)


@pytest.mark.parametrize("args", [["--max-batch", "0"], ["--max-batch", "x"], ["--pieces", "0"], ["--rounds", "0"]])
def test_bad_options_exit_2_before_any_model_loads(args: list[str]):
    result = CliRunner().invoke(app, ["batching", *args])
    assert result.exit_code == 2, result.output
