"""The events the agent streams to its caller (one SSE ``data:`` line each), encoded in one place.

Every event is a JSON object with a ``type``. Audio travels as base64 PCM16 little-endian mono with
its sample rate, so a caller can play each chunk as it arrives. Times (``t_s``) are seconds since the
agent received the request. :func:`error_event` is the one place errors become wire events.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import asdict, dataclass, field
from typing import Any

from speech_protocol.messages import WordSpan
from speech_protocol.transport import TtsError


@dataclass(frozen=True)
class TextDelta:
    text: str
    type: str = "text"


@dataclass(frozen=True)
class PieceSent:
    """A piece of the answer went to speech."""

    id: str
    text: str
    t_s: float
    type: str = "piece"


@dataclass(frozen=True)
class AudioChunk:
    id: str
    seq: int
    pcm: bytes = field(repr=False)
    sample_rate: int
    type: str = "audio"


@dataclass(frozen=True)
class PieceDone:
    """A piece's audio is complete: when its first and last audio left, and the server's own timings."""

    id: str
    t_first_audio_s: float | None
    t_s: float
    audio_s: float
    synth_s: float
    type: str = "piece_done"


@dataclass(frozen=True)
class SpokenWords:
    """One piece's written words and when each is heard, in seconds from the start of the ANSWER's audio
    (the server's :class:`WordSpan`, shifted from its utterance's start by :func:`word_spans`).

    Only the conversation socket asks for these (``speak_answer(..., with_words=True)``); the SSE stream of
    ``/invocations`` does not carry them.
    """

    id: str
    words: tuple[WordSpan, ...]
    type: str = "words"


def word_spans(raw: object, offset_s: float) -> tuple[WordSpan, ...]:
    """The server's word spans (decoded objects or plain dicts) shifted by ``offset_s``; entries that are
    not well-formed are skipped."""
    spans = []
    for word in raw if isinstance(raw, (list, tuple)) else ():
        fields = word if isinstance(word, dict) else vars(word) if hasattr(word, "__dict__") else {}
        text, start, end = fields.get("text"), _seconds(fields.get("start_s")), _seconds(fields.get("end_s"))
        if isinstance(text, str) and start is not None and end is not None:
            spans.append(WordSpan(text, round(offset_s + start, 4), round(offset_s + end, 4)))
    return tuple(spans)


def _seconds(value: object) -> float | None:
    """A JSON number as seconds; ``None`` for anything else (a boolean is not a number here)."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class Summary:
    """The answer is complete. ``ttfa_s``: request to first audio byte; ``None`` when nothing was said."""

    ttfa_s: float | None
    audio_s: float
    pieces: int
    text: str
    llm_s: float
    total_s: float
    type: str = "summary"


@dataclass(frozen=True)
class ErrorEvent:
    """Ends the stream: ``code`` is stable: the request's field error (``bad_payload``, ``missing_prompt``,
    ``bad_speed``, ...), ``session_busy``, ``llm_failed``, a ``tts_*`` code, or ``internal_error``."""

    code: str
    message: str
    piece_id: str | None = None
    type: str = "error"


AgentEvent = TextDelta | PieceSent | AudioChunk | SpokenWords | PieceDone | Summary | ErrorEvent
_TYPES: dict[str, type[TextDelta | PieceSent | AudioChunk | PieceDone | Summary | ErrorEvent]] = {
    cls.type: cls for cls in (TextDelta, PieceSent, AudioChunk, PieceDone, Summary, ErrorEvent)
}


class AgentError(Exception):
    """An agent-side failure with a stable ``code`` (bad requests, LLM failures)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class EventDecodeError(ValueError):
    """A line of the agent's stream is not one of the events above."""


def to_wire(event: AgentEvent) -> dict[str, Any]:
    if isinstance(event, AudioChunk):
        return {
            "type": event.type,
            "id": event.id,
            "seq": event.seq,
            "sample_rate": event.sample_rate,
            "pcm16": base64.b64encode(event.pcm).decode("ascii"),
        }
    return asdict(event)


def from_wire(obj: Any) -> AgentEvent:
    """The inverse of :func:`to_wire`, for callers (the CLI); raises :class:`EventDecodeError`."""
    if not isinstance(obj, dict):
        raise EventDecodeError("an event must be a JSON object")
    name = obj.get("type")
    cls = _TYPES.get(name) if isinstance(name, str) else None  # a list or dict "type" is unknown, not a crash
    if cls is None:
        raise EventDecodeError(f"unknown event {str(obj)[:120]}")
    fields = {k: v for k, v in obj.items() if k in cls.__dataclass_fields__}
    try:
        if cls is AudioChunk:
            fields["pcm"] = base64.b64decode(obj["pcm16"], validate=True)
        return cls(**fields)
    except (KeyError, TypeError, binascii.Error) as err:
        raise EventDecodeError(f"malformed {cls.type} event: {err}") from err


def error_event(error: BaseException) -> ErrorEvent:
    """The one mapping from an exception to the wire; unexpected ones reveal only their type."""
    if isinstance(error, TtsError):
        return ErrorEvent(code=error.code, message=error.message, piece_id=error.piece_id)
    if isinstance(error, AgentError):
        return ErrorEvent(code=error.code, message=error.message)
    return ErrorEvent(code="internal_error", message=f"unexpected {type(error).__name__}")
