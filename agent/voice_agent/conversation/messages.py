"""The conversation protocol at ``/ws``: what a client may send (the events the agent sends back are
:mod:`voice_agent.conversation.events`).

Client TEXT frames hold one JSON object each::

    {"type": "prompt", "text": str, "voice"?: str, "speed"?: number, "played_s"?: number}
    {"type": "interrupt", "played_s": number}   # seconds of the current turn's audio the listener heard
    {"type": "bye"}

The agent sends TEXT frames of JSON (``ready`` once, then per turn ``turn_start``, ``text``, ``words``,
``turn_end``; ``error`` whenever a message is refused or a turn fails) and BINARY frames of raw PCM16
24 kHz mono audio, each at most :data:`MAX_AUDIO_FRAME_BYTES` (AgentCore's WebSocket frame limit,
docs/decisions/070-conversation-socket.md). Audio frames belong to the turn of the latest ``turn_start``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from speech_protocol.errors import ProtocolError
from speech_protocol.framing import loads

from ..events import AgentError
from ..request import MAX_PROMPT_CHARS, parse_invocation

# AgentCore's session header; a browser, which cannot set headers on a WebSocket, and a presigned URL carry
# it as a query parameter of the same name
SESSION_ID_HEADER = "X-Amzn-Bedrock-AgentCore-Runtime-Session-Id"
MAX_AUDIO_FRAME_BYTES = 32 * 1024
MAX_CLIENT_FRAME_CHARS = 16 * 1024  # a prompt of MAX_PROMPT_CHARS, escaped, with room to spare
# /invocations' codes for its 'prompt' field, renamed for this message's 'text' field
PROMPT_CODES = {
    "missing_prompt": "missing_text",
    "bad_prompt": "bad_text",
    "empty_prompt": "empty_text",
    "prompt_too_long": "text_too_long",
}


class BadMessage(AgentError):
    """A client frame the conversation refuses; it becomes an ``error`` event and the socket stays open."""


@dataclass(frozen=True)
class Prompt:
    text: str
    voice: str | None = None
    speed: float | None = None
    played_s: float | None = None  # how much of a turn still speaking was heard (default: all audio sent)


@dataclass(frozen=True)
class Interrupt:
    played_s: float


@dataclass(frozen=True)
class Bye:
    pass


ClientMessage = Prompt | Interrupt | Bye


def _played_s(obj: dict[str, Any]) -> float | None:
    value = obj.get("played_s")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise BadMessage("bad_played_s", "'played_s' must be a number of seconds")
    if value < 0:
        raise BadMessage("bad_played_s", "'played_s' must not be negative")
    return float(value)


def parse_client_frame(message: dict[str, Any]) -> ClientMessage:
    """One ASGI ``websocket.receive`` message -> a client message, or :class:`BadMessage`."""
    text = message.get("text")
    if text is None:
        raise BadMessage("bad_frame", "send JSON messages as TEXT frames; BINARY frames are not accepted")
    if len(text) > MAX_CLIENT_FRAME_CHARS:
        raise BadMessage("frame_too_large", f"a message may hold at most {MAX_CLIENT_FRAME_CHARS} characters")
    try:
        obj = loads(text)
    except ProtocolError as err:  # bad syntax, nesting past the recursion limit, a huge integer
        raise BadMessage("bad_json", err.message) from None
    if not isinstance(obj, dict):
        raise BadMessage("bad_message", "a message must be a JSON object with a 'type'")
    kind = obj.get("type")
    if kind == "prompt":
        fields = {"prompt": obj.get("text"), "voice": obj.get("voice"), "speed": obj.get("speed")}
        try:
            request = parse_invocation({k: v for k, v in fields.items() if v is not None})
        except AgentError as err:  # same checks as /invocations, named for this message's field
            code = PROMPT_CODES.get(err.code, err.code)
            raise BadMessage(code, err.message.replace("prompt", "text")) from None
        return Prompt(request.prompt, request.voice, request.speed, _played_s(obj))
    if kind == "interrupt":
        played_s = _played_s(obj)
        if played_s is None:
            raise BadMessage("missing_played_s", "an interrupt needs 'played_s': seconds of this turn's audio heard")
        return Interrupt(played_s)
    if kind == "bye":
        return Bye()
    raise BadMessage("unknown_type", f"unknown message type {str(kind)[:40]!r}; use prompt, interrupt or bye")


__all__ = ["MAX_PROMPT_CHARS", "BadMessage", "Bye", "Interrupt", "Prompt", "parse_client_frame"]
