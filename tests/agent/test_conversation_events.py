"""The conversation socket's events: the exact TEXT frames docs/conversation.md documents, and back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voice_agent.conversation.events import (
    ErrorNotice,
    HistoryLine,
    Ready,
    TurnEnd,
    TurnStart,
    TurnText,
    TurnWords,
    from_frame,
    to_frame,
)
from voice_agent.events import EventDecodeError, WordSpan

FRAMES = [
    (
        Ready(24000, None, 32768, (HistoryLine("user", "Hé", interrupted=False),)),
        '{"type": "ready", "sample_rate": 24000, "session": null, "max_audio_frame_bytes": 32768, '
        '"history": [{"role": "user", "text": "Hé", "interrupted": false}]}',
    ),
    (TurnStart("t1", "What should I do?"), '{"type": "turn_start", "turn": "t1", "prompt": "What should I do?"}'),
    (TurnText("t1", "Go ✓"), '{"type": "text", "turn": "t1", "text": "Go ✓"}'),
    (
        TurnWords("t1", (WordSpan("Go", 0.0, 0.25),)),
        '{"type": "words", "turn": "t1", "words": [{"text": "Go", "start_s": 0.0, "end_s": 0.25}]}',
    ),
    (
        TurnEnd("t1", False, "Go.", "Go.", 0.5, None, 0.31, 0.9, 0.2),
        '{"type": "turn_end", "turn": "t1", "interrupted": false, "heard_text": "Go.", "text": "Go.", '
        '"audio_s": 0.5, "played_s": null, "ttfa_s": 0.31, "total_s": 0.9, "llm_s": 0.2}',
    ),
    (  # no summary (the turn was cut before its answer ended): no llm_s at all
        TurnEnd("t2", True, "", "Go", 0.0, 0.0, None, 0.1),
        '{"type": "turn_end", "turn": "t2", "interrupted": true, "heard_text": "", "text": "Go", '
        '"audio_s": 0.0, "played_s": 0.0, "ttfa_s": null, "total_s": 0.1}',
    ),
    (ErrorNotice("bad_json", "nope"), '{"type": "error", "code": "bad_json", "message": "nope"}'),
    (
        ErrorNotice("tts_timeout", "slow", "t2"),
        '{"type": "error", "code": "tts_timeout", "message": "slow", "turn": "t2"}',
    ),
]


@pytest.mark.parametrize(("event", "frame"), FRAMES, ids=lambda x: getattr(x, "type", ""))
def test_each_event_is_its_documented_frame_and_back(event, frame: str) -> None:
    assert to_frame(event) == frame
    assert from_frame(frame) == event


@given(text=st.text(max_size=40), start=st.floats(0, 60), turn=st.sampled_from(["t1", "t22"]))
def test_any_words_round_trip(text: str, start: float, turn: str) -> None:
    event = TurnWords(turn, (WordSpan(text, start, start + 0.1),))
    assert from_frame(to_frame(event)) == event


@pytest.mark.parametrize(
    "frame",
    [
        "{nope",
        "[]",
        '"ready"',
        '{"type": "audio"}',
        '{"type": ["text"]}',
        '{"type": "text", "turn": "t1"}',
        '{"type": "words", "turn": "t1", "words": 3}',
        '{"type": "words", "turn": "t1", "words": [{"text": "a"}]}',
        '{"type": "ready", "sample_rate": 24000, "session": null, "max_audio_frame_bytes": 1, "history": ["x"]}',
    ],
)
def test_what_is_no_event_is_refused(frame: str) -> None:
    with pytest.raises(EventDecodeError):
        from_frame(frame)
