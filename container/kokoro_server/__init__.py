"""The Kokoro-82M model server: the SageMaker container contract (``/ping``, ``/invocations``) and the
bidirectional speech session, on one loaded model. Its public modules, by layer:

* :mod:`~kokoro_server.cli` (``kokoro-serve``), :mod:`~kokoro_server.environment`, :mod:`~kokoro_server.settings`,
  :mod:`~kokoro_server.listener`: start-up, its ``KOKORO_*`` variables, settings parsed once, the socket and
  its limits;
* :mod:`~kokoro_server.server`, :mod:`~kokoro_server.http_requests`, :mod:`~kokoro_server.front_door`,
  :mod:`~kokoro_server.synthesis_session`: the HTTP routes, what both HTTP doors do with a request and to speak
  its text (read, admit, stream, always release), the speech session;
* :mod:`~kokoro_server.refusals`, :mod:`~kokoro_server.errors`: the root of every refusal (its status and code),
  and refusals on the wire;
* :mod:`~kokoro_server.openai_api`, :mod:`~kokoro_server.encoders`: the OpenAI speech API on the same pipeline, and
  the streaming encoders of its formats;
* :mod:`~kokoro_server.runtime`, :mod:`~kokoro_server.scheduler`, :mod:`~kokoro_server.admission`: the loaded
  model and its warm-up, its worker threads, how many listeners it takes;
* :mod:`~kokoro_server.text`: text to chunks (normalization, G2P on its processes, the plan of a text);
* :mod:`~kokoro_server.engine`: chunks to audio (voices, backends, batching, word timing);
* :mod:`~kokoro_server.audio`, :mod:`~kokoro_server.assets`, :mod:`~kokoro_server.offline_assets`: PCM and WAV,
  the model's files and their offline assembly.

Nothing is imported here: ``import kokoro_server`` loads no model library (docs/decisions/119-public-names.md).
"""

__all__ = [
    "admission",
    "assets",
    "audio",
    "cli",
    "encoders",
    "engine",
    "environment",
    "errors",
    "front_door",
    "http_requests",
    "listener",
    "offline_assets",
    "openai_api",
    "refusals",
    "runtime",
    "scheduler",
    "server",
    "settings",
    "synthesis_session",
    "text",
]
