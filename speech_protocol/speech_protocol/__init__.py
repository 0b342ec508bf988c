"""The speech session contract that the model server and every client install (never copy).

The wire, by direction:

* :mod:`speech_protocol.framing`: the audio format, the session's path, the one JSON parser;
* :mod:`speech_protocol.client_messages`: what a client sends (synthesize, cancel, close) and its checks;
* :mod:`speech_protocol.server_events`: what a server sends (ready, start, audio, words, end, error) and
  the decoder of its byte stream;
* :mod:`speech_protocol.errors`: a message that breaks the protocol, and a client session that failed.

The client, and what both sides share:

* :mod:`speech_protocol.tts_session`: the client session (send pieces, receive audio in order);
* :mod:`speech_protocol.turn`: one turn of streamed speech, as every client speaks it (text cut by the
  server's running pace, audio and words placed on the turn's timeline);
* :mod:`speech_protocol.shared_session`: one client session shared by a framework plugin's turns, each
  routed by its pieces' ids and cancelled on its own;
* :mod:`speech_protocol.transports`: how a client reaches a server (WebSocket, SageMaker), behind one seam;
* :mod:`speech_protocol.pace`: how fast a server speaks, the one model server, agent and benchmark share;
* :mod:`speech_protocol.pieces`: an LLM's streamed text cut into speakable pieces (the segmenter);
* :mod:`speech_protocol.http`: a server's URLs, its readiness, its browser guard, its JSON bodies.
* :mod:`speech_protocol.voices`: the voice spoken when none is named.
* :mod:`speech_protocol.environment`: settings that name their environment variables, so that the part
  reading them and the stack writing them agree.

Only the transports import anything outside the standard library (each behind its extra), and nothing is
imported here (docs/decisions/119-public-names.md).
"""

__all__ = [
    "client_messages",
    "environment",
    "errors",
    "framing",
    "http",
    "pace",
    "pieces",
    "server_events",
    "shared_session",
    "transports",
    "tts_session",
    "turn",
    "voices",
]
