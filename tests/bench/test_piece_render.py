"""``python -m kokoro_bench pieces`` on the real engine: each piece's render, and the edge silence decoded with it,
counted from the model's own output (the figures in docs/benchmark.md come from this code)."""

from __future__ import annotations

import pytest

from kokoro_bench.measuring.piece_render import PIECES, measure, render_once
from kokoro_bench.reporting.pace_report import pieces_markdown
from kokoro_server.engine.synthesizer import Synthesizer
from kokoro_server.text.phonemes import Phonemizer
from kokoro_server.text.reading import Reading


def test_heard_is_what_the_server_sends_and_the_rest_was_decoded_for_nothing(
    synth: Synthesizer, phonemizer: Phonemizer
) -> None:
    _, decoded, heard = render_once(synth, phonemizer.read, PIECES[1], "af_heart")
    sent = sum(
        len(synth.render(chunk).audio)
        for chunk in Reading(PIECES[1], synth.voice("af_heart"), 1.0, phonemizer.read).whole()
    )
    assert heard == sent and 0 < heard < decoded


def test_one_row_per_piece_in_order_of_length(synth: Synthesizer, phonemizer: Phonemizer) -> None:
    rows = measure(synth, phonemizer.read, "af_heart", repeats=1)
    assert [r["words"] for r in rows] == [1, 3, 12, 19]
    for r in rows:
        assert 0 < r["unheard_share"] < 1 and r["heard_s"] < r["decoded_s"], r
        assert r["rtf"] == pytest.approx(r["render_s"] / r["heard_s"], rel=0.01), r
    # a short piece carries as much edge silence as a long one, so a larger share of it is unheard
    assert rows[0]["unheard_share"] > rows[-1]["unheard_share"]
    table = pieces_markdown({"command": "python -m kokoro_bench pieces", "rows": rows})
    assert sum(line.startswith("| ") for line in table) == 1 + len(PIECES)  # the header, a row per piece
