"""The speech session contract that the model server and every client install (never copy).

* :mod:`speech_protocol.messages`: message and event types, their encoding, the server stream decoder;
* :mod:`speech_protocol.urls`: a server's HTTP base and session URL, from either form;
* :mod:`speech_protocol.transport`: the part-stream seam a transport implements, and the client errors;
* :mod:`speech_protocol.tts_session`: the client session (send pieces, receive audio in order);
* :mod:`speech_protocol.pace`: how fast a server speaks, the one model server, agent and benchmark share;
* :mod:`speech_protocol.readiness`: whether a server is ready (``GET /ping``), and the wait for it;
* :mod:`speech_protocol.browser_access`: which hosts and web pages a local server answers (an ASGI middleware);
* :mod:`speech_protocol.websocket`: the WebSocket transport (needs the ``websocket`` extra).

Only the last imports anything outside the standard library, and nothing is imported here
(docs/decisions/119-public-names.md).
"""

__all__ = ["browser_access", "messages", "pace", "readiness", "transport", "tts_session", "urls", "websocket"]
