"""The body of ``POST /v1/audio/speech`` checked field by field, each refusal naming its field (``param``).

OpenAI's bounds, not ``/invocations``' ones: ``input`` up to 4,096 characters and ``speed`` 0.25-4.0
(Kokoro's duration predictor takes any positive factor; docs/decisions/106-openai-speech-fields.md).
``model`` and ``voice`` may be left out (``kokoro``, the server's default voice); ``model`` may be any
string, since clients send OpenAI's names; ``instructions`` is accepted and ignored, as Kokoro has no
such control. Unknown fields are ignored, as OpenAI-compatible servers do, so a client's extras pass.
The error codes are the ones ``/invocations`` uses for the same faults (docs/errors.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kokoro_server.encoders import FORMATS
from kokoro_server.openai_api.voices import kokoro_voice
from speech_protocol.client_messages import Synthesize, validate_language
from speech_protocol.errors import ProtocolError

MAX_INPUT_CHARS = 4096
MIN_SPEED, MAX_SPEED = 0.25, 4.0
MODELS = ("kokoro", "tts-1", "tts-1-hd", "gpt-4o-mini-tts")
STREAM_FORMATS = ("audio", "sse")


class ParamError(ProtocolError):
    """A bad field of the body; ``param`` is its name, as OpenAI's errors carry it."""

    def __init__(self, code: str, message: str, param: str):
        super().__init__(code, message)
        self.param = param


@dataclass(frozen=True)
class SpeechRequest:
    input: str
    voice: str | None  # a Kokoro voice or blend; None: the server's default
    speed: float
    response_format: str
    stream_format: str
    model: str
    normalize: bool
    language: str | None  # None: the voice's own

    def synthesize(self) -> Synthesize:
        """The server's one synthesis request (``speech_protocol.client_messages.Synthesize``), from OpenAI's
        field names; the formats and the model name stay this route's."""
        return Synthesize(
            self.input, voice=self.voice, speed=self.speed, normalize=self.normalize, language=self.language
        )


def _text_field(body: dict[str, Any], field: str, code: str) -> str | None:
    """``body[field]`` if it is valid Unicode text (a lone surrogate can be neither spoken nor echoed)."""
    value = body.get(field)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ParamError(code, f"'{field}' must be a string", field)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ParamError(code, f"'{field}' holds {value[err.start]!r}, a lone surrogate", field) from None
    return value


def _input(body: dict[str, Any]) -> str:
    text = _text_field(body, "input", "bad_text")
    if text is None:
        raise ParamError("missing_text", "'input' is required: the text to speak", "input")
    if not text.strip():
        raise ParamError("empty_text", "'input' is empty", "input")
    if len(text) > MAX_INPUT_CHARS:
        raise ParamError(
            "text_too_long", f"'input' has {len(text)} characters; the limit is {MAX_INPUT_CHARS}", "input"
        )
    return text


def _voice(body: dict[str, Any]) -> str | None:
    """A name, an OpenAI name or a blend; OpenAI's custom-voice object ``{"id": name}`` names one too."""
    raw = body.get("voice")
    if isinstance(raw, dict) and set(raw) == {"id"}:
        raw = raw["id"]
    name = _text_field({"voice": raw}, "voice", "bad_voice")
    if name is not None and not name.strip():
        raise ParamError("bad_voice", "'voice' is empty", "voice")
    return None if name is None else kokoro_voice(name)


def _speed(body: dict[str, Any]) -> float:
    speed = body.get("speed")
    if speed is None:
        return 1.0
    if isinstance(speed, bool) or not isinstance(speed, (int, float)):
        raise ParamError("bad_speed", "'speed' must be a number", "speed")
    # compared before any float(): a 400-digit integer would overflow it; nan and inf fail the range
    if not MIN_SPEED <= speed <= MAX_SPEED:
        raise ParamError("bad_speed", f"'speed' must be between {MIN_SPEED} and {MAX_SPEED}", "speed")
    return float(speed)


def _one_of(body: dict[str, Any], field: str, choices: tuple[str, ...], code: str) -> str:
    value = body.get(field)
    if value is None:
        return choices[0]
    if not isinstance(value, str) or value not in choices:
        raise ParamError(code, f"'{field}' must be one of {', '.join(choices)}", field)
    return value


def parse_speech(body: dict[str, Any]) -> SpeechRequest:
    """The request, or :class:`ParamError` for the first bad field."""
    model = _text_field(body, "model", "bad_model")
    _text_field(body, "instructions", "bad_instructions")  # accepted and ignored
    normalize = body.get("normalize", True)
    if not isinstance(normalize, bool):
        raise ParamError("bad_normalize", "'normalize' must be true or false", "normalize")
    return SpeechRequest(
        input=_input(body),
        voice=_voice(body),
        speed=_speed(body),
        response_format=_one_of(body, "response_format", FORMATS, "bad_format"),
        stream_format=_one_of(body, "stream_format", STREAM_FORMATS, "bad_stream_format"),
        model=model or MODELS[0],
        normalize=normalize,
        language=_language(body),
    )


def _language(body: dict[str, Any]) -> str | None:
    """``language`` (or Kokoro-FastAPI's ``lang_code``): the language to read the input in."""
    field = "lang_code" if "language" not in body and "lang_code" in body else "language"
    try:
        return validate_language({"language": body.get(field)})
    except ProtocolError as err:
        raise ParamError(err.code, str(err).replace("'language'", f"'{field}'"), field) from None
