"""The speech session wire protocol: the one module the server and every client import.

Why a byte-stream format: on SageMaker, every frame the container sends reaches the client as a
"response part", and the platform may split one frame over several parts or merge several frames into
one, losing the TEXT/BINARY distinction. So every server frame is self-delimiting when the frames are
concatenated into one byte stream:

* a control event is a TEXT frame holding one JSON object followed by ``\\n``;
* audio is an ``{"type": "audio", "id", "seq", "bytes": N}`` event followed by a BINARY frame of exactly
  N bytes of raw PCM16 little-endian mono at 24 kHz.

:class:`StreamDecoder` turns any split of that byte stream back into events.

Client to server: every frame (TEXT or BINARY alike: the SageMaker SDK sends BINARY unless told
``DataType="UTF8"``) holds one or more JSON objects separated by newlines:

* ``{"type": "synthesize", "id"?: str, "text": str, "voice"?: str, "speed"?: float, "normalize"?: bool}``
  (a bare ``{"text": ...}`` means the same; ``"normalize": false`` speaks the text as written, without
  reading "$3.50" or "2026-11-30" as words);
* ``{"type": "cancel", "id"?: str}``: drop that utterance (or every queued one), stop its audio;
* ``{"type": "close"}``: finish what is queued, then the server closes the session.

Example session (``>`` client, ``<`` server)::

    < {"type": "ready", "session": "5f0c", "sample_rate": 24000, "voices": 28, "rtf": 0.35,
       "piece_overhead_s": 0.2}
    > {"type": "synthesize", "id": "s1", "text": "Hello there."}
    > {"type": "synthesize", "id": "s2", "text": "How can I help"}
    < {"type": "start", "id": "s1", "sample_rate": 24000}
    < {"type": "audio", "id": "s1", "seq": 0, "bytes": 28800}
    < <28800 bytes of PCM16>
    < {"type": "words", "id": "s1", "words": [{"text": "Hello", "start_s": 0.02, "end_s": 0.31},
                                             {"text": "there.", "start_s": 0.31, "end_s": 0.62}]}
    < {"type": "end", "id": "s1", "audio_s": 1.1, "first_audio_s": 0.31, ...}
    < {"type": "start", "id": "s2", ...} ... {"type": "end", "id": "s2", ...}
    > {"type": "close"}
    (server closes the socket)

An ``end`` may carry ``rtf`` and ``piece_overhead_s`` too: the server's running pace, whenever it has
changed since the session was last told; a client sizes its next pieces by the latest.

``words`` comes once per utterance, after its audio and before its ``end``: each written word of the
utterance's text (split at whitespace, punctuation kept with its word; a word with nothing spoken, such as
a lone dash, has no entry), with its time span in seconds from the first sample of that utterance's audio.
Spans are in text order, do not overlap and lie inside the audio. A cancelled utterance's ``words`` covers
the audio that was sent.

A bad message gets ``{"type": "error", "code", "message", "id"?}`` and the session goes on. A server at
capacity answers a new session with ``{"type": "error", "code": "server_busy", "message",
"retry_after_s"}`` instead of ``ready`` and closes it with code 1013 (try again later).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

SAMPLE_RATE = 24_000
SAMPLE_WIDTH = 2  # bytes per PCM16 sample
MAX_TEXT_CHARS = 5_000  # per utterance; longer answers are sent as several utterances
MAX_ID_CHARS = 128
MAX_FRAME_BYTES = 64 * 1024  # one client frame; an utterance plus JSON fits with room to spare
MIN_SPEED, MAX_SPEED = 0.5, 2.0
SESSION_PATH = "/invocations-bidirectional-stream"
SERVER_BUSY = "server_busy"  # error code: at capacity, retry later (the one error that ends a session)


class ProtocolError(ValueError):
    """A message that breaks the protocol; ``code`` is the stable name clients branch on."""

    def __init__(self, code: str, message: str, id: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.id = id


# --------------------------------------------------------------------------- client -> server


@dataclass(frozen=True)
class Synthesize:
    text: str
    id: str | None = None
    voice: str | None = None
    speed: float = 1.0
    normalize: bool = True
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
        try:
            text, voice, speed = validate_synthesis_fields(obj)
            normalize = validate_normalize(obj)
        except ProtocolError as err:
            err.id = mid
            raise
        return Synthesize(text=text, id=mid, voice=voice, speed=speed, normalize=normalize)
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


JSON_MEDIA_TYPE = "application/json"


def declares_json(content_type: str) -> bool:
    """Whether a ``Content-Type`` header names JSON (parameters such as ``charset`` aside). Bodies are read
    as JSON only when declared so: a cross-site form or ``text/plain`` POST, which a browser sends without
    asking the server first, never is (docs/decisions/101-json-only-as-json.md)."""
    return content_type.split(";", 1)[0].strip().lower() == JSON_MEDIA_TYPE


def loads(document: str | bytes) -> Any:
    """``json.loads`` with every way a hostile document fails it as one ``bad_json`` error: bad syntax,
    bad UTF-8, nesting deep enough to exhaust the recursion limit, an integer over 4,300 digits."""
    try:
        return json.loads(document)
    except json.JSONDecodeError as err:
        raise ProtocolError("bad_json", f"not valid JSON: {err.msg}") from None
    except UnicodeDecodeError:
        raise ProtocolError("bad_json", "not valid JSON: the body is not UTF-8") from None
    except RecursionError:
        raise ProtocolError("bad_json", "not valid JSON: nested too deeply") from None
    except ValueError:  # int('1' * 4301): Python's limit on the digits of an integer
        raise ProtocolError("bad_json", "not valid JSON here: a number has over 4,300 digits") from None


def encode_client_message(msg: ClientMessage) -> str:
    """One client message as a TEXT frame payload (send it as bytes for a BINARY frame)."""
    body = {k: v for k, v in asdict(msg).items() if v is not None}
    return json.dumps(body, ensure_ascii=False)


# --------------------------------------------------------------------------- server -> client


@dataclass(frozen=True)
class Ready:
    """Opens every session. ``rtf``: the server's real-time factor (synthesis seconds per second of audio,
    on a sentence at warm-up, then scaled by how the server has run since), so a client can size its first
    piece to keep playback from starving.
    ``piece_overhead_s``: what one more utterance costs on top of that, measured on a short one: an
    utterance of ``a`` audio seconds is ready about ``piece_overhead_s + rtf * a`` seconds after it is
    sent. It weighs on short pieces (the engine also synthesizes the silence it trims from each edge)."""

    session: str
    sample_rate: int = SAMPLE_RATE
    voices: int = 0
    rtf: float | None = None
    piece_overhead_s: float | None = None
    type: str = "ready"


@dataclass(frozen=True)
class Start:
    id: str
    sample_rate: int = SAMPLE_RATE
    type: str = "start"


@dataclass(frozen=True)
class Audio:
    id: str
    seq: int
    pcm: bytes = field(repr=False)
    type: str = "audio"


@dataclass(frozen=True)
class WordSpan:
    """One written word and when it is heard, in seconds from the start of its utterance's audio."""

    text: str
    start_s: float
    end_s: float


@dataclass(frozen=True)
class Words:
    """The word spans of one utterance's audio, sent before its ``end`` (word highlighting, barge-in)."""

    id: str
    words: list[WordSpan]
    type: str = "words"

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Words:
        try:
            spans = [WordSpan(w["text"], w["start_s"], w["end_s"]) for w in obj["words"]]
            return cls(id=obj["id"], words=spans)
        except (KeyError, TypeError) as err:
            raise ProtocolError("bad_event", f"malformed words event: {err!r}"[:200]) from err


@dataclass(frozen=True)
class End:
    """Closes one utterance; the timings are the server's own, measured from the message's arrival.

    ``rtf`` and ``piece_overhead_s``: the server's running pace, as in :class:`Ready`, sent only when it
    has changed since this session was last told (absent otherwise): a client sizes its next pieces by
    the latest. Optional fields, so a client that predates them ignores them (the decoder keeps only the
    fields it knows; an unknown *event* type, by contrast, is a ``bad_event`` error to it)."""

    id: str
    audio_s: float
    first_audio_s: float
    synth_s: float
    queued_s: float
    cancelled: bool = False
    rtf: float | None = None
    piece_overhead_s: float | None = None
    type: str = "end"


@dataclass(frozen=True)
class Error:
    """``retry_after_s``: set with ``server_busy`` (the server is at capacity; the session is closed with
    1013): when trying again may succeed."""

    code: str
    message: str
    id: str | None = None
    retry_after_s: float | None = None
    type: str = "error"


ServerEvent = Ready | Start | Audio | Words | End | Error
_EVENT_TYPES: dict[str, type[Ready | Start | End | Error]] = {
    "ready": Ready,
    "start": Start,
    "end": End,
    "error": Error,
}


def encode_event(event: ServerEvent) -> list[str | bytes]:
    """The frames for one server event, in order: TEXT frames are ``str``, BINARY ``bytes``."""
    if isinstance(event, Audio):
        header = {"type": "audio", "id": event.id, "seq": event.seq, "bytes": len(event.pcm)}
        return [json.dumps(header) + "\n", event.pcm]
    body = {k: v for k, v in asdict(event).items() if v is not None}
    return [json.dumps(body, ensure_ascii=False) + "\n"]


class StreamDecoder:
    """Reassembles server events from response parts split or merged at any byte boundary."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._audio: dict[str, Any] | None = None  # header waiting for its PCM bytes

    def feed(self, part: str | bytes) -> list[ServerEvent]:
        self._buf += part.encode("utf-8") if isinstance(part, str) else part
        events: list[ServerEvent] = []
        while True:
            if self._audio is not None:
                need = self._audio["bytes"]
                if len(self._buf) < need:
                    return events
                pcm = bytes(self._buf[:need])
                del self._buf[:need]
                events.append(Audio(id=self._audio["id"], seq=self._audio["seq"], pcm=pcm))
                self._audio = None
                continue
            newline = self._buf.find(b"\n")
            if newline < 0:
                return events
            line = bytes(self._buf[:newline])
            del self._buf[: newline + 1]
            if not line.strip():
                continue
            obj = json.loads(line)
            if obj.get("type") == "audio":
                self._audio = obj
                continue
            if obj.get("type") == "words":
                events.append(Words.from_json(obj))
                continue
            cls = _EVENT_TYPES.get(obj.get("type"))
            if cls is None:
                raise ProtocolError("bad_event", f"unknown server event {obj.get('type')!r}")
            obj.pop("type")
            events.append(cls(**{k: v for k, v in obj.items() if k in cls.__dataclass_fields__}))

    @property
    def pending(self) -> int:
        """Bytes held back waiting for the rest of an event (non-zero at end of stream = truncated)."""
        return len(self._buf)
