"""The HTTP around the session: where a server is, whether it is ready, and what a browser may reach.

* :mod:`speech_protocol.http.urls`: a server's HTTP base and session URL, from either form a user types;
* :mod:`speech_protocol.http.readiness`: whether a server is ready (``GET /ping``), and the wait for it;
* :mod:`speech_protocol.http.server_status`: what a model server's ``/ping`` says of itself, typed;
* :mod:`speech_protocol.http.browser_access`: which hosts and web pages a local server answers (an ASGI
  middleware the model server, the agent and the CLI's page server put first);
* :mod:`speech_protocol.http.content_type`: whether a request declares a JSON body.

Standard library only, and nothing is imported here.
"""

__all__ = ["browser_access", "content_type", "readiness", "server_status", "urls"]
