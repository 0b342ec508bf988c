"""The events the agent streams to its caller (one SSE ``data:`` line each), encoded and decoded here.

One frozen dataclass per kind, its wire name in the class attribute ``type``: the agent yields them,
:func:`to_wire` makes each the JSON object of its ``data:`` line, and the caller reads the stream back into
the same classes with :func:`read_stream` (the CLI's ``invoke``, ``local --prompt`` and ``smoke``).
Audio travels as base64 PCM16 little-endian mono with its sample rate, so a caller can play each chunk as
it arrives. Times (``t_s``) are seconds since the agent received the request. :func:`error_event` is the
one place errors become wire events.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar

from speech_protocol.errors import TtsError
from speech_protocol.server_events import WordSpan


@dataclass(frozen=True)
class TextDelta:
    type: ClassVar[str] = "text"

    text: str


@dataclass(frozen=True)
class PieceSent:
    """A piece of the answer went to speech."""

    type: ClassVar[str] = "piece"

    id: str
    text: str
    t_s: float


@dataclass(frozen=True)
class AudioChunk:
    type: ClassVar[str] = "audio"

    id: str
    seq: int
    pcm: bytes = field(repr=False)
    sample_rate: int


@dataclass(frozen=True)
class PieceDone:
    """A piece's audio is complete: when its first and last audio left, and the server's own timings."""

    type: ClassVar[str] = "piece_done"

    id: str
    t_first_audio_s: float | None
    t_s: float
    audio_s: float
    synth_s: float


@dataclass(frozen=True)
class SpokenWords:
    """One piece's written words and when each is heard, in seconds from the start of the ANSWER's audio
    (the server's :class:`WordSpan`, shifted from its utterance's start by :func:`word_spans`).

    Only the conversation socket asks for these (``speak_answer(..., with_words=True)``); the SSE stream of
    ``/invocations`` does not carry them.
    """

    type: ClassVar[str] = "words"

    id: str
    words: tuple[WordSpan, ...]


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

    type: ClassVar[str] = "summary"

    ttfa_s: float | None
    audio_s: float
    pieces: int
    text: str
    llm_s: float
    total_s: float


@dataclass(frozen=True)
class ErrorEvent:
    """Ends the stream: ``code`` is stable: the request's field error (``bad_payload``, ``missing_prompt``,
    ``bad_speed``, ...), ``session_busy``, ``llm_failed``, a ``tts_*`` code, or ``internal_error``."""

    type: ClassVar[str] = "error"

    code: str
    message: str
    piece_id: str | None = None


# The answer's events; all but SpokenWords (the conversation socket's) travel on the SSE stream.
AgentEvent = TextDelta | PieceSent | AudioChunk | SpokenWords | PieceDone | Summary | ErrorEvent
_TYPES: dict[str, type[TextDelta | PieceSent | AudioChunk | PieceDone | Summary | ErrorEvent]] = {
    cls.type: cls for cls in (TextDelta, PieceSent, AudioChunk, PieceDone, Summary, ErrorEvent)
}


MAX_STREAM_BYTES = 64 * 1024 * 1024  # ~20 minutes of base64 audio: far beyond one spoken answer


class AgentError(Exception):
    """An agent-side failure with a stable ``code`` (bad requests, LLM failures)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class EventDecodeError(ValueError):
    """A line of the agent's stream is not one of the events above."""


def to_wire(event: AgentEvent) -> dict[str, Any]:
    """The JSON object of the event's ``data:`` line: its fields, then ``type`` (audio: ``type`` first, PCM
    as ``pcm16``)."""
    if isinstance(event, AudioChunk):
        return {
            "type": event.type,
            "id": event.id,
            "seq": event.seq,
            "sample_rate": event.sample_rate,
            "pcm16": base64.b64encode(event.pcm).decode("ascii"),
        }
    return {**asdict(event), "type": event.type}


def from_wire(obj: Any) -> AgentEvent:
    """The inverse of :func:`to_wire`, for callers (the CLI); raises :class:`EventDecodeError`."""
    if not isinstance(obj, dict):
        raise EventDecodeError("an event must be a JSON object")
    name = obj.get("type")
    cls = _TYPES.get(name) if isinstance(name, str) else None  # a list or dict "type" is unknown, not a crash
    if cls is None:
        raise EventDecodeError(f"unknown event {str(obj)[:120]}")
    values = {f.name: obj[f.name] for f in fields(cls) if f.name in obj}
    try:
        if cls is AudioChunk:
            values["pcm"] = base64.b64decode(obj["pcm16"], validate=True)
        return cls(**values)
    except (KeyError, TypeError, binascii.Error) as err:
        raise EventDecodeError(f"malformed {cls.type} event: {err}") from err


def read_stream(lines: Iterable[str | bytes], max_bytes: int = MAX_STREAM_BYTES) -> Iterator[AgentEvent]:
    """The caller's side: the stream's SSE lines in, its events out, up to the first :class:`ErrorEvent`.

    Only ``data:`` lines carry events (comments, event names and the blank separators are skipped). What is
    not an event ends the stream as one made here: ``bad_event`` (not JSON, or no event of this module),
    ``agent_failed`` (BedrockAgentCoreApp's own report of an exception that escaped the handler) or
    ``answer_too_large`` (past ``max_bytes``), so a caller handles one kind of ending.
    """
    size = 0
    for raw in lines:
        line = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
        size += len(line)
        if size > max_bytes:
            yield ErrorEvent("answer_too_large", f"the answer stream passed {max_bytes} bytes")
            return
        if line.startswith("data:"):
            event = _data_event(line[5:])
            yield event
            if isinstance(event, ErrorEvent):
                return


def _data_event(data: str) -> AgentEvent:
    try:
        obj = json.loads(data)
    except json.JSONDecodeError as err:
        return ErrorEvent("bad_event", f"undecodable event {data[:120]!r}: not JSON: {err.msg}")
    try:
        return from_wire(obj)
    except EventDecodeError as err:
        # BedrockAgentCoreApp reports an exception escaping a handler as {"error": ..., "error_type": ...}.
        detail = obj.get("error") if isinstance(obj, dict) else None
        if detail:
            return ErrorEvent("agent_failed", str(detail)[:300])
        return ErrorEvent("bad_event", f"undecodable event {data[:120]!r}: {err}")


def error_event(error: BaseException) -> ErrorEvent:
    """The one mapping from an exception to the wire; unexpected ones reveal only their type."""
    if isinstance(error, TtsError):
        return ErrorEvent(code=error.code, message=error.message, piece_id=error.piece_id)
    if isinstance(error, AgentError):
        return ErrorEvent(code=error.code, message=error.message)
    return ErrorEvent(code="internal_error", message=f"unexpected {type(error).__name__}")
