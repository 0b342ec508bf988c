"""The events the agent sends on the conversation socket (TEXT frames of JSON), encoded and decoded here.

One frozen dataclass per kind, its wire name in the class attribute ``type``, as the SSE stream's events
(:mod:`voice_agent.events`) are: the connection and its turns send them through :func:`to_frame`, a
client reads a frame back with :func:`from_frame`. A frame is ``{"type": ..., <the fields in order>}``;
the fields a kind lists in ``omitted_when_none`` are left out rather than sent as ``null`` (``turn_end``'s
``llm_s`` when the answer has no summary, an ``error``'s ``turn`` for a refused message). The audio
travels beside them as BINARY frames of raw PCM16, which belong to the latest ``turn_start``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

from ..events import EventDecodeError, WordSpan


class _Event:
    """What every kind declares: its wire name, and the fields left out when ``None``."""

    type: ClassVar[str]
    omitted_when_none: ClassVar[frozenset[str]] = frozenset()


@dataclass(frozen=True)
class HistoryLine:
    """One message of the conversation so far, as the page shows it; ``interrupted``: cut off by the listener."""

    role: str
    text: str
    interrupted: bool


@dataclass(frozen=True)
class Ready(_Event):
    """Once per socket, first: the audio's format, the session and what was said before."""

    type: ClassVar[str] = "ready"

    sample_rate: int
    session: str | None
    max_audio_frame_bytes: int
    history: tuple[HistoryLine, ...]


@dataclass(frozen=True)
class TurnStart(_Event):
    """A prompt became turn ``turn``: the audio frames that follow are its answer."""

    type: ClassVar[str] = "turn_start"

    turn: str
    prompt: str


@dataclass(frozen=True)
class TurnText(_Event):
    """A delta of the answer's text, as the LLM wrote it."""

    type: ClassVar[str] = "text"

    turn: str
    text: str


@dataclass(frozen=True)
class TurnWords(_Event):
    """One piece's words, in seconds from the start of the TURN's audio."""

    type: ClassVar[str] = "words"

    turn: str
    words: tuple[WordSpan, ...]


@dataclass(frozen=True)
class TurnEnd(_Event):
    """The turn is over: ``heard_text`` is what the listener heard (all of it unless ``interrupted``);
    ``played_s`` is the interrupt's (``None`` after a whole answer). A later interrupt of the same turn
    sends a new one, which supersedes this."""

    type: ClassVar[str] = "turn_end"
    omitted_when_none: ClassVar[frozenset[str]] = frozenset({"llm_s"})

    turn: str
    interrupted: bool
    heard_text: str
    text: str
    audio_s: float
    played_s: float | None
    ttfa_s: float | None
    total_s: float
    llm_s: float | None = None


@dataclass(frozen=True)
class ErrorNotice(_Event):
    """A refused message (no ``turn``) or a failed turn; the socket stays open. The codes are listed in
    docs/errors.md."""

    type: ClassVar[str] = "error"
    omitted_when_none: ClassVar[frozenset[str]] = frozenset({"turn"})

    code: str
    message: str
    turn: str | None = None


ConversationEvent = Ready | TurnStart | TurnText | TurnWords | TurnEnd | ErrorNotice
_KINDS: dict[str, type[ConversationEvent]] = {
    cls.type: cls for cls in (Ready, TurnStart, TurnText, TurnWords, TurnEnd, ErrorNotice)
}
# The fields that hold dataclasses: rebuilt from their JSON objects on the way in.
_NESTED: dict[str, type[HistoryLine] | type[WordSpan]] = {"history": HistoryLine, "words": WordSpan}


def to_frame(event: ConversationEvent) -> str:
    """The event as the TEXT frame the agent sends."""
    values = {k: v for k, v in asdict(event).items() if v is not None or k not in event.omitted_when_none}
    return json.dumps({"type": event.type, **values}, ensure_ascii=False)


def from_frame(text: str) -> ConversationEvent:
    """The inverse of :func:`to_frame`, for clients; raises :class:`EventDecodeError`."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        raise EventDecodeError(f"not JSON: {err.msg}") from None
    name = obj.get("type") if isinstance(obj, dict) else None
    cls = _KINDS.get(name) if isinstance(name, str) else None
    if cls is None:
        raise EventDecodeError(f"unknown event {text[:120]}")
    try:
        values: dict[str, Any] = {f.name: obj[f.name] for f in fields(cls) if f.name in obj}
        for name, nested in _NESTED.items():
            if name in values:
                values[name] = tuple(nested(**item) for item in values[name])
        return cls(**values)
    except TypeError as err:  # a field missing, unknown or of the wrong shape
        raise EventDecodeError(f"malformed {cls.type} event: {err}") from None
