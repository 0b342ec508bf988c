"""How the session's messages travel: the audio format, the session's path, and the one JSON parser.

Why a byte-stream format: on SageMaker, every frame the container sends reaches the client as a
"response part", and the platform may split one frame over several parts or merge several frames into
one, losing the TEXT/BINARY distinction. So every server frame is self-delimiting when the frames are
concatenated into one byte stream (:mod:`speech_protocol.server_events`), and every client frame, TEXT
or BINARY alike, holds JSON lines (:mod:`speech_protocol.client_messages`).

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
"""

from __future__ import annotations

import json
from typing import Any

from .errors import ProtocolError

SAMPLE_RATE = 24_000
SAMPLE_WIDTH = 2  # bytes per PCM16 sample
SESSION_PATH = "/invocations-bidirectional-stream"


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
