"""The Kokoro-82M model server: the SageMaker container contract (``/ping``, ``/invocations``) and the
bidirectional speech session, on one loaded model. Its public modules, by layer:

* :mod:`~kokoro_server.cli` (``kokoro-serve``), :mod:`~kokoro_server.settings`, :mod:`~kokoro_server.listener`:
  start-up, settings parsed once, the socket and its limits;
* :mod:`~kokoro_server.server`, :mod:`~kokoro_server.synthesis_session`, :mod:`~kokoro_server.errors`: the HTTP routes, the
  speech session, the typed errors on the wire;
* :mod:`~kokoro_server.openai_api`, :mod:`~kokoro_server.encoders`: the OpenAI speech API on the same pipeline, and
  the streaming encoders of its formats;
* :mod:`~kokoro_server.runtime`, :mod:`~kokoro_server.scheduler`, :mod:`~kokoro_server.admission`,
  :mod:`~kokoro_server.g2p_pool`, :mod:`~kokoro_server.g2p_worker`: the loaded model, its worker threads, how many
  listeners it takes, the G2P processes;
* :mod:`~kokoro_server.engine`: text to audio (G2P, normalization, voices, backends);
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
    "errors",
    "g2p_pool",
    "g2p_worker",
    "listener",
    "offline_assets",
    "openai_api",
    "runtime",
    "scheduler",
    "server",
    "settings",
    "synthesis_session",
]
