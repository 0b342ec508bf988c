"""What a client sends in a session, and the checks every server applies to it.

Client to server: every frame (TEXT or BINARY alike: the SageMaker SDK sends BINARY unless told
``DataType="UTF8"``) holds one or more JSON objects separated by newlines:

* ``{"type": "synthesize", "id"?: str, "text": str, "voice"?: str, "speed"?: float, "normalize"?: bool,
  "language"?: str}`` (a bare ``{"text": ...}`` means the same; ``"normalize": false`` speaks the text as
  written, without reading "$3.50" or "2026-11-30" as words; ``language`` reads the text in another
  language than the voice's own, as a code such as ``es`` or ``pt-br``, or Kokoro's letter ``e``);
* ``{"type": "cancel", "id"?: str}``: drop that utterance (or every queued one), stop its audio;
* ``{"type": "close"}``: finish what is queued, then the server closes the session.

A bad message gets an ``error`` event (:mod:`speech_protocol.server_events`) and the session goes on.
:class:`Synthesize` is the one synthesis request of every front door (:func:`parse_synthesize`); the field
checks (:func:`validate_synthesis_fields`, :func:`parse_speed`, :func:`validate_normalize`,
:func:`validate_language`) are the same for the model server's HTTP requests and the agent's settings.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from .errors import ProtocolError
from .framing import loads

MAX_TEXT_CHARS = 5_000  # per utterance; longer answers are sent as several utterances
MAX_ID_CHARS = 128
MAX_FRAME_BYTES = 64 * 1024  # one client frame; an utterance plus JSON fits with room to spare
MIN_SPEED, MAX_SPEED = 0.5, 2.0
MAX_LANGUAGE_CHARS = 16  # "pt-br"; which codes exist is the server's to say (unknown_language)


@dataclass(frozen=True)
class Synthesize:
    text: str
    id: str | None = None
    voice: str | None = None
    speed: float = 1.0
    normalize: bool = True
    language: str | None = None
    type: str = "synthesize"


@dataclass(frozen=True)
class Cancel:
    id: str | None = None
    type: str = "cancel"


@dataclass(frozen=True)
class Close:
    type: str = "close"


ClientMessage = Synthesize | Cancel | Close


def _check_unicode(name: str, value: str, code: str) -> None:
    """A lone surrogate (JSON allows ``"\\ud800"``) is not a character: it can be neither read aloud nor
    echoed back in UTF-8, so it is refused here rather than failing deep inside a handler."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ProtocolError(
            code, f"field '{name}' holds {value[err.start]!r}, a lone surrogate; send text as valid Unicode"
        ) from None


def validate_synthesis_fields(obj: dict[str, Any]) -> tuple[str, str | None, float]:
    """Check text, voice and speed of a request (session or HTTP); returns them normalised."""
    text = obj.get("text")
    if text is None:
        raise ProtocolError("missing_text", "field 'text' is required")
    if not isinstance(text, str):
        raise ProtocolError("bad_text", "field 'text' must be a string")
    _check_unicode("text", text, "bad_text")
    if not text.strip():
        raise ProtocolError("empty_text", "field 'text' is empty")
    if len(text) > MAX_TEXT_CHARS:
        raise ProtocolError("text_too_long", f"text has {len(text)} characters; the limit is {MAX_TEXT_CHARS}")
    voice = obj.get("voice")
    if voice is not None and (not isinstance(voice, str) or not voice.strip()):
        raise ProtocolError("bad_voice", "field 'voice' must be a non-empty string")
    if voice is not None:
        _check_unicode("voice", voice, "bad_voice")
    speed = obj.get("speed", 1.0)
    return text, voice, parse_speed(1.0 if speed is None else speed)


def parse_speed(speed: Any) -> float:
    """A speaking speed every interface accepts (session, model HTTP, agent request and settings)."""
    if isinstance(speed, bool) or not isinstance(speed, (int, float)):
        raise ProtocolError("bad_speed", "field 'speed' must be a number")
    # compared before any float(): a 400-digit integer would overflow it; nan and inf fail the range
    if not MIN_SPEED <= speed <= MAX_SPEED:
        raise ProtocolError("bad_speed", f"speed must be between {MIN_SPEED} and {MAX_SPEED}")
    return float(speed)


def validate_normalize(obj: dict[str, Any]) -> bool:
    """The optional ``normalize`` flag of a request (session or HTTP): true unless sent as false."""
    flag = obj.get("normalize", True)
    if not isinstance(flag, bool):
        raise ProtocolError("bad_normalize", "field 'normalize' must be true or false")
    return flag


def validate_language(obj: dict[str, Any]) -> str | None:
    """The optional ``language`` of a request (session or HTTP): a short string, or None for the voice's own."""
    language = obj.get("language")
    if language is None:
        return None
    if not isinstance(language, str) or not language.strip() or len(language) > MAX_LANGUAGE_CHARS:
        raise ProtocolError(
            "bad_language",
            f"field 'language' must be a language code like 'es' (at most {MAX_LANGUAGE_CHARS} characters)",
        )
    _check_unicode("language", language, "bad_language")
    return language.strip()


def parse_synthesize(obj: dict[str, Any], mid: str | None = None) -> Synthesize:
    """The one synthesis request every front door speaks (a session's message, ``POST /invocations``'s body;
    the OpenAI route maps its own fields onto it): its fields checked, or a :class:`ProtocolError` for
    utterance ``mid``. Other keys of ``obj`` (``type``, ``id``, ``format``) are the caller's."""
    try:
        text, voice, speed = validate_synthesis_fields(obj)
        normalize = validate_normalize(obj)
        language = validate_language(obj)
    except ProtocolError as err:
        err.id = mid
        raise
    return Synthesize(text=text, id=mid, voice=voice, speed=speed, normalize=normalize, language=language)


def _parse_id(obj: dict[str, Any]) -> str | None:
    mid = obj.get("id")
    if mid is None:
        return None
    if isinstance(mid, bool) or not isinstance(mid, (str, int)):
        raise ProtocolError("bad_id", "field 'id' must be a string or an integer")
    mid = str(mid)
    if len(mid) > MAX_ID_CHARS:
        raise ProtocolError("bad_id", f"field 'id' is longer than {MAX_ID_CHARS} characters")
    _check_unicode("id", mid, "bad_id")
    return mid


def parse_client_message(obj: Any) -> ClientMessage:
    """Turn one decoded JSON value into a client message, or raise :class:`ProtocolError`."""
    if not isinstance(obj, dict):
        raise ProtocolError("bad_message", "a message must be a JSON object")
    kind = obj.get("type", "synthesize" if "text" in obj else None)
    if kind is None:
        raise ProtocolError("bad_message", "a message needs a 'type' (synthesize, cancel, close)")
    mid = _parse_id(obj)
    if kind == "synthesize":
        return parse_synthesize(obj, mid)
    if kind == "cancel":
        return Cancel(id=mid)
    if kind == "close":
        return Close()
    raise ProtocolError("unknown_type", f"unknown message type {str(kind)[:40]!r}", mid)


def decode_client_frame(frame: str | bytes) -> list[ClientMessage | ProtocolError]:
    """Decode one client frame (TEXT or BINARY) into messages; a bad line becomes its error."""
    if isinstance(frame, bytes):
        if len(frame) > MAX_FRAME_BYTES:
            return [ProtocolError("frame_too_large", f"frame over {MAX_FRAME_BYTES} bytes")]
        try:
            frame = frame.decode("utf-8")
        except UnicodeDecodeError:
            return [ProtocolError("bad_encoding", "a binary frame must hold UTF-8 JSON")]
    elif len(frame) > MAX_FRAME_BYTES:
        return [ProtocolError("frame_too_large", f"frame over {MAX_FRAME_BYTES} bytes")]
    out: list[ClientMessage | ProtocolError] = []
    lines = [line for line in frame.split("\n") if line.strip()]
    if not lines:
        return [ProtocolError("bad_json", "empty frame")]
    for line in lines:
        try:
            out.append(parse_client_message(loads(line)))
        except ProtocolError as err:
            out.append(err)
    return out


def encode_client_message(msg: ClientMessage) -> str:
    """One client message as a TEXT frame payload (send it as bytes for a BINARY frame)."""
    body = {k: v for k, v in asdict(msg).items() if v is not None}
    return json.dumps(body, ensure_ascii=False)
