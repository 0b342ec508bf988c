"""The pieces a first-piece cut before a function word, after a one-word opener, or at a weak cut inside a
clause makes are each spoken intelligibly on their own (a listening-quality proxy: the recognizer's word error rate on each piece,
synthesized separately)."""

from __future__ import annotations

import httpx
import pytest
from speech import assert_heard, transcribe, words

from kokoro_bench.texts import LONG, SHORT, TYPICAL
from speech_protocol.pieces.first_piece import adaptive_policy
from speech_protocol.pieces.segmenter import Segmenter


def pieces_of(text: str, rtf: float, piece_overhead_s: float | None = None) -> list[str]:
    segmenter = Segmenter(adaptive_policy(rtf, piece_overhead_s=piece_overhead_s))
    return segmenter.feed(text) + segmenter.flush()


def heard_as_written(url: str, piece: str) -> None:
    reply = httpx.post(f"{url}/invocations", json={"text": piece, "format": "pcm"}, timeout=120)
    assert_heard(reply.content, 24_000, piece)


@pytest.mark.slow
@pytest.mark.parametrize("text", [LONG, SHORT], ids=["long", "short"])
def test_each_piece_of_a_function_word_cut_is_heard_as_written(model_server_url: str, text: str) -> None:
    pieces = pieces_of(text, 0.33)[:2]
    assert pieces[1].split()[0] in ("for", "at")  # the cut this test is about
    for piece in pieces:
        heard_as_written(model_server_url, piece)


@pytest.mark.slow
def test_the_short_pieces_of_a_slow_servers_ramp_are_heard_as_written(model_server_url: str) -> None:
    """At rtf 0.7 the long answer's ramp cuts five short pieces, each where a phrase starts."""
    pieces = pieces_of(LONG, 0.7)[:5]
    assert pieces == [
        "Here is a plan",
        "for your first day",
        "in the city,",
        "with a few options depending",
        "on the weather.",
    ]
    for piece in pieces:
        heard_as_written(model_server_url, piece)


@pytest.mark.slow
def test_the_pieces_either_side_of_a_weak_cut_are_heard_as_written(model_server_url: str) -> None:
    """With a CPU server's cost per piece at rtf 0.35 and 0.4 (kokoro_bench policy), the typical answer's
    clause is cut before a determiner, and its first piece before a verb (decision 165)."""
    at_035, at_04 = pieces_of(TYPICAL, 0.35, 0.274)[:3], pieces_of(TYPICAL, 0.4, 0.306)[:2]
    assert at_035 == ["Yes, of course,", "the museum is open", "every day, except on Mondays,"]
    assert at_04 == ["Yes, of course, the museum", "is open every day,"]
    for piece in at_035[1:] + at_04:  # the pieces that meet at a weak cut
        heard_as_written(model_server_url, piece)


@pytest.mark.slow
def test_a_one_word_opener_cut_by_a_fast_server_is_heard_alone(model_server_url: str) -> None:
    """At rtf 0.2 the short and typical answers start with a piece of one word (decision 138)."""
    openers = [pieces_of(text, 0.2)[0] for text in (SHORT, TYPICAL)]
    assert openers == ["Sure,", "Yes,"]
    for opener, other in zip(openers, reversed(openers), strict=True):
        reply = httpx.post(f"{model_server_url}/invocations", json={"text": opener, "format": "pcm"}, timeout=120)
        heard = words(transcribe(reply.content, 24_000))
        assert heard == words(opener), (opener, heard)
        assert heard != words(other)  # the control: the comparison tells one opener from the other
