"""The turn every client speaks (speech_protocol.turn): its text is cut at the server's pace as it is when each
delta arrives, and its audio and words are placed on one timeline."""

from __future__ import annotations

import pytest

from speech_protocol.pieces.segmenter import Segmenter
from speech_protocol.server_events import Audio, End, Start, Words, WordSpan
from speech_protocol.turn import Pace, TurnAudio, TurnText

ANSWER = "Yes, of course, the museum is open every day, and tickets are sold at the door for ten euros."
SAMPLE_RATE = 24_000


class Recording(Segmenter):
    """The real segmenter, noting each pace it was sized for."""

    def __init__(self) -> None:
        super().__init__()
        self.sized_for: list[Pace] = []

    def adapt_to(self, rtf: float | None, piece_overhead_s: float | None = None) -> None:
        self.sized_for.append((rtf, piece_overhead_s))
        super().adapt_to(rtf, piece_overhead_s)


def first_piece(pace: Pace | None) -> str:
    text = TurnText(Segmenter(), lambda: pace)
    pieces = [piece for word in ANSWER.split(" ") for piece in text.feed(word + " ")] + text.flush()
    assert " ".join(pieces).split() == ANSWER.split()  # every word, once, in order
    return pieces[0]


def test_the_first_piece_is_as_short_as_the_servers_pace_allows():
    fast, slow = first_piece((0.1, 0.05)), first_piece((0.6, 0.3))
    assert len(fast.split()) < len(slow.split()), (fast, slow)


def test_the_segmenter_is_resized_each_time_the_pace_changes_and_only_then():
    paces: list[Pace | None] = [None, None, (0.4, 0.2), (0.4, 0.2), (0.3, 0.2), (0.3, 0.2), (0.3, 0.1)]
    segmenter = Recording()
    now = iter(paces)
    text = TurnText(segmenter, lambda: next(now))
    for word in ANSWER.split()[: len(paces)]:
        text.feed(word + " ")
    assert segmenter.sized_for == [(0.4, 0.2), (0.3, 0.2), (0.3, 0.1)]


def test_a_pace_never_known_keeps_the_segmenters_own_policy():
    segmenter = Recording()
    text = TurnText(segmenter, lambda: None)
    text.feed(ANSWER)
    text.flush()
    assert segmenter.sized_for == []


def audio(piece_id: str, seconds: float, seq: int = 0) -> Audio:
    return Audio(piece_id, seq, b"\0\0" * round(seconds * SAMPLE_RATE))


def end(piece_id: str, seconds: float) -> End:
    return End(piece_id, audio_s=seconds, first_audio_s=0.1, synth_s=0.2, queued_s=0.0)


def test_each_piece_starts_where_the_audio_before_its_start_ended():
    timeline = TurnAudio(SAMPLE_RATE)
    placed = [
        timeline.place(event)
        for event in (
            Start("a.0"),
            audio("a.0", 0.5),
            audio("a.0", 0.25, 1),
            Words("a.0", [WordSpan("Yes", 0.0, 0.3)]),
            end("a.0", 0.75),
            Start("a.1"),
            Words("a.1", [WordSpan("of", 0.1, 0.2)]),
            audio("a.1", 1.0),
            end("a.1", 1.0),
        )
    ]
    assert placed == [0.0, 0.0, 0.0, 0.0, 0.0, 0.75, 0.75, 0.75, 0.75]
    assert timeline.samples == round(1.75 * SAMPLE_RATE) and timeline.seconds == pytest.approx(1.75)


def test_a_piece_whose_start_was_not_seen_starts_where_the_audio_is():
    timeline = TurnAudio(SAMPLE_RATE)
    timeline.place(audio("a.0", 0.5))
    assert timeline.place(Words("a.1", [])) == pytest.approx(0.5)
