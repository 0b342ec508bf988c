"""What a server sends in a session, and the decoder that reads it back from any split of its bytes.

Every server frame is self-delimiting when the frames are concatenated into one byte stream (SageMaker may
split or merge them on the way, :mod:`speech_protocol.framing`):

* a control event is a TEXT frame holding one JSON object followed by ``\\n``;
* audio is an ``{"type": "audio", "id", "seq", "bytes": N}`` event followed by a BINARY frame of exactly
  N bytes of raw PCM16 little-endian mono at 24 kHz.

:class:`StreamDecoder` turns any split of that byte stream back into events.

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

from .errors import ProtocolError
from .framing import SAMPLE_RATE


@dataclass(frozen=True)
class Ready:
    """Opens every session. ``rtf``: the server's real-time factor (synthesis seconds per second of audio,
    on a sentence at warm-up, then scaled by how the server has run since), so a client can size its first
    piece to keep playback from starving.
    ``piece_overhead_s``: what one more utterance costs on top of that, measured on a short one: an
    utterance of ``a`` audio seconds is ready about ``piece_overhead_s + rtf * a`` seconds after it is
    sent. It weighs on short pieces (the engine also synthesizes the silence it trims from each edge).
    ``languages``: each voice the server speaks and its language's code (``"ef_dora": "es"``)."""

    session: str
    sample_rate: int = SAMPLE_RATE
    voices: int = 0
    rtf: float | None = None
    piece_overhead_s: float | None = None
    languages: dict[str, str] | None = None
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
