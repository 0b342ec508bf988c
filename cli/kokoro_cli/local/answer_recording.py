"""The caller's side of the agent's event stream: one answer recorded as audio, text and timings.

Used by ``deploy-agent local`` and ``deploy-agent invoke`` (and usable by any client; it lives with the
CLI so the agent's bundle does not carry it): the agent's events (decoded by
:func:`voice_agent.events.read_stream`) in, an :class:`AnswerRecording` out, written as
``answer.wav`` + ``report.json``. ``ttfa_s`` is measured here, from the moment the request was sent to
the first audio byte received: what a listener waits.
"""

from __future__ import annotations

import json
import time
import wave
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from speech_protocol.framing import SAMPLE_RATE, SAMPLE_WIDTH
from voice_agent.events import AgentEvent, AudioChunk, ErrorEvent, PieceDone, PieceSent, Summary, TextDelta, to_wire


@dataclass
class PieceTimes:
    """One piece as the caller saw it; times in seconds since the request was sent."""

    id: str
    text: str
    sent_s: float | None = None
    first_audio_s: float | None = None
    done_s: float | None = None
    audio_s: float = 0.0


@dataclass
class AnswerRecording:
    text: str = ""
    pcm: bytearray = field(default_factory=bytearray, repr=False)
    sample_rate: int = SAMPLE_RATE
    ttfa_s: float | None = None
    total_s: float | None = None
    pieces: dict[str, PieceTimes] = field(default_factory=dict)
    summary: Summary | None = None
    error: ErrorEvent | None = None

    @property
    def audio_s(self) -> float:
        return round(len(self.pcm) / SAMPLE_WIDTH / self.sample_rate, 3)

    def report(self) -> dict:
        return {
            "ttfa_s": self.ttfa_s,
            "audio_s": self.audio_s,
            "total_s": self.total_s,
            "text": self.text,
            "sample_rate": self.sample_rate,
            "pieces": [asdict(piece) for piece in self.pieces.values()],
            "agent": to_wire(self.summary) if self.summary else None,
            "error": to_wire(self.error) if self.error else None,
        }


def record_answer(
    events: Iterable[AgentEvent], started: float, clock: Callable[[], float] = time.monotonic
) -> AnswerRecording:
    """Consume events until a summary or an error (or the stream's end)."""
    answer = AnswerRecording()

    def now() -> float:
        return round(clock() - started, 4)

    for event in events:
        t = now()  # one instant per event: the answer's first audio is also its piece's first audio
        if isinstance(event, TextDelta):
            answer.text += event.text
        elif isinstance(event, PieceSent):
            answer.pieces[event.id] = PieceTimes(event.id, event.text, sent_s=t)
        elif isinstance(event, AudioChunk):
            answer.ttfa_s = t if answer.ttfa_s is None else answer.ttfa_s
            answer.sample_rate = event.sample_rate
            answer.pcm += event.pcm
            piece = answer.pieces.setdefault(event.id, PieceTimes(event.id, ""))
            piece.first_audio_s = t if piece.first_audio_s is None else piece.first_audio_s
            piece.audio_s = round(piece.audio_s + len(event.pcm) / SAMPLE_WIDTH / event.sample_rate, 3)
        elif isinstance(event, PieceDone):
            answer.pieces.setdefault(event.id, PieceTimes(event.id, "")).done_s = t
        elif isinstance(event, Summary):
            answer.summary = event
            break
        elif isinstance(event, ErrorEvent):
            answer.error = event
            break
    else:
        answer.error = ErrorEvent("stream_ended", "the answer stream ended without a summary")
    answer.total_s = now()
    return answer


def write_answer(answer: AnswerRecording, out_dir: Path) -> tuple[Path, Path]:
    """``out_dir/answer.wav`` (PCM16 mono) and ``out_dir/report.json``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    wav_path, report_path = out_dir / "answer.wav", out_dir / "report.json"
    with wave.open(str(wav_path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(SAMPLE_WIDTH)
        wav.setframerate(answer.sample_rate)
        wav.writeframes(bytes(answer.pcm))
    report_path.write_text(json.dumps(answer.report(), indent=2, ensure_ascii=False) + "\n")
    return wav_path, report_path


def timeline(answer: AnswerRecording) -> list[str]:
    """A few lines a person reads: when each piece went out, started sounding and finished."""

    def t(value: float | None) -> str:
        return "   -   " if value is None else f"{value:6.2f}s"

    lines = [f"first audio {t(answer.ttfa_s)}   audio {answer.audio_s:.2f}s   total {t(answer.total_s)}"]
    for piece in answer.pieces.values():
        text = piece.text if len(piece.text) <= 48 else piece.text[:45] + "..."
        lines.append(
            f"  {piece.id:>4} sent {t(piece.sent_s)} audio {t(piece.first_audio_s)} "
            f"done {t(piece.done_s)} {piece.audio_s:5.2f}s  {text}"
        )
    if answer.error:
        lines.append(f"error {answer.error.code}: {answer.error.message}")
    return lines
