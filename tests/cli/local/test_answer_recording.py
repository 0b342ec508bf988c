"""The caller's recorder: SSE lines in, answer.wav + report.json out, whatever the stream holds."""

from __future__ import annotations

import itertools
import json
import wave
from dataclasses import asdict
from pathlib import Path

from agent_sse import sse
from hypothesis import given
from hypothesis import strategies as st

from kokoro_cli.local.answer_recording import record_answer, timeline, write_answer
from voice_agent.events import AudioChunk, ErrorEvent, PieceDone, PieceSent, Summary, TextDelta, read_stream

STREAM = [
    TextDelta("Hi there. "),
    PieceSent("p0", "Hi there.", 0.2),
    AudioChunk("p0", 0, b"\x10\x00" * 2400, 24_000),
    AudioChunk("p0", 1, b"\x20\x00" * 2400, 24_000),
    PieceDone("p0", 0.5, 0.6, 0.2, 0.1),
    Summary(0.5, 0.2, 1, "Hi there. ", 0.2, 0.7),
]


def test_recording_and_files(tmp_path: Path) -> None:
    ticks = itertools.count(start=10.0, step=0.5)
    answer = record_answer(read_stream(sse(*STREAM)), started=10.0, clock=lambda: next(ticks))
    assert answer.error is None and answer.summary == STREAM[-1]
    assert answer.text == "Hi there. " and answer.audio_s == 0.2 and answer.ttfa_s == 1.0
    piece = answer.pieces["p0"]
    assert (piece.sent_s, piece.first_audio_s, piece.done_s, piece.audio_s) == (0.5, 1.0, 2.0, 0.2)
    wav_path, report_path = write_answer(answer, tmp_path / "out")
    with wave.open(str(wav_path)) as wav:
        assert (wav.getframerate(), wav.getnchannels(), wav.getnframes()) == (24_000, 1, 4800)
    report = json.loads(report_path.read_text())
    assert report["ttfa_s"] == 1.0 and report["audio_s"] == 0.2 and report["pieces"][0]["id"] == "p0"
    assert report["agent"] == {**asdict(STREAM[-1]), "type": "summary"} and report["error"] is None
    assert "first audio" in timeline(answer)[0] and "Hi there." in timeline(answer)[1]


def test_error_event_ends_the_recording() -> None:
    events = [STREAM[0], ErrorEvent("tts_unreachable", "refused"), STREAM[2]]
    answer = record_answer(read_stream(sse(*events)), started=0.0)
    assert answer.error == ErrorEvent("tts_unreachable", "refused") and not answer.pcm
    assert "tts_unreachable" in timeline(answer)[-1]


def test_stream_without_summary_is_an_error() -> None:
    answer = record_answer(read_stream(sse(*STREAM[:3])), started=0.0)
    assert answer.error.code == "stream_ended" and len(answer.pcm) == 4800


@given(lines=st.lists(st.text(max_size=80) | st.binary(max_size=80), max_size=20))
def test_any_lines_give_a_recording(lines) -> None:
    answer = record_answer(read_stream(lines), started=0.0)
    assert answer.summary is not None or answer.error is not None
