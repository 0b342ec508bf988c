"""The ``/invocations`` payload, validated before anything reaches the LLM or the speech session."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from speech_protocol.client_messages import parse_speed
from speech_protocol.errors import ProtocolError

from .events import AgentError

MAX_PROMPT_CHARS = 4_000  # a spoken question; anything longer is a paste, not a turn
_VOICE = re.compile(r"[A-Za-z0-9_]{1,64}")
_SESSION = re.compile(r"[A-Za-z0-9_.:-]{1,128}")
_FIELDS = {"prompt", "voice", "speed", "session"}


class BadRequest(AgentError):
    """The payload is malformed; the caller gets it as an error event, before any work starts."""


@dataclass(frozen=True)
class Invocation:
    prompt: str
    voice: str | None = None
    speed: float | None = None
    session_id: str | None = None  # the JSON field "session": AgentCore's session id, or the caller's


def parse_invocation(payload: Any) -> Invocation:
    """``{"prompt": str, "voice"?: str, "speed"?: number, "session"?: str}``, or :class:`BadRequest`."""
    if not isinstance(payload, dict):
        raise BadRequest("bad_payload", "the payload must be a JSON object with a 'prompt'")
    unknown = sorted(str(k)[:40] for k in payload.keys() - _FIELDS)
    if unknown:
        # repr: a hostile name (a NEL, a line separator) is echoed escaped, never as a raw line break in
        # the event stream, which clients that split on every Unicode line break would tear apart.
        raise BadRequest("bad_payload", f"unknown fields: {', '.join(repr(k) for k in unknown[:5])}")
    prompt = payload.get("prompt")
    if prompt is None:
        raise BadRequest("missing_prompt", "field 'prompt' is required")
    if not isinstance(prompt, str):
        raise BadRequest("bad_prompt", "field 'prompt' must be a string")
    if not prompt.strip():
        raise BadRequest("empty_prompt", "field 'prompt' is empty")
    if len(prompt) > MAX_PROMPT_CHARS:
        raise BadRequest("prompt_too_long", f"prompt has {len(prompt)} characters; the limit is {MAX_PROMPT_CHARS}")
    voice = payload.get("voice")
    if voice is not None and not (isinstance(voice, str) and _VOICE.fullmatch(voice)):
        raise BadRequest("bad_voice", "field 'voice' must be a voice name such as af_heart")
    speed = payload.get("speed")
    if speed is not None:
        try:
            speed = parse_speed(speed)
        except ProtocolError as err:
            raise BadRequest(err.code, err.message) from None
    session = payload.get("session")
    if session is not None and not (isinstance(session, str) and _SESSION.fullmatch(session)):
        raise BadRequest("bad_session", "field 'session' must be 1-128 letters, digits or _ . : -")
    return Invocation(prompt=prompt, voice=voice, speed=speed, session_id=session)
