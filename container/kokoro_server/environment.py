"""The model server's environment: every ``KOKORO_*`` variable, its default and its option's help, once.

:class:`ServerEnvironment` is a frozen dataclass whose fields are ``kokoro-serve``'s options in their order
(:mod:`~kokoro_server.cli` derives each option, its ``KOKORO_*`` name, default and help from it), and
:class:`~kokoro_server.settings.ServerSettings` is this class checked. It imports nothing that loads
(the standard library, the contract's :mod:`speech_protocol.environment` and the warm-up text), so the model
stack writes the container's variables through it without the engine's numpy
(docs/decisions/150-environments-written-once.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kokoro_server.engine.warm_up import WARM_UP_TEXT
from speech_protocol.environment import variable
from speech_protocol.voices import DEFAULT_VOICE


@dataclass(frozen=True)
class ServerEnvironment:
    """What a ``KOKORO_*`` variable (or its ``kokoro-serve`` option) sets; unchecked, see ServerSettings."""

    host: str = variable("KOKORO_HOST", "127.0.0.1", "Interface to bind.")
    port: int = variable("KOKORO_PORT", 8080, "Port (SageMaker uses 8080).")
    engine: str = variable("KOKORO_ENGINE", "onnx", "onnx (CPU) or torch.")  # onnx: the CPU default; torch: GPU image
    device: str = variable("KOKORO_DEVICE", "cpu", "cpu or cuda.")
    # Intra-op threads per inference (0 = the runtime's default: all cores); concurrent inferences, more only
    # helps on a GPU; G2P processes (0 = half the cores, 1 to 4: kokoro_server.text.g2p_pool.default_workers).
    threads: int = variable("KOKORO_THREADS", 0, "Threads per inference, 0 = all cores.")
    # Between operators, ONNX Runtime's idle threads spin (the lowest latency on cores of its own) or sleep
    # (less CPU where other processes share the cores: docs/decisions/158-onnx-threads-that-sleep.md).
    onnx_spin: bool = variable("KOKORO_ONNX_SPIN", True, "ONNX engine: idle threads spin; off where cores are shared.")
    workers: int = variable("KOKORO_WORKERS", 1, "Concurrent inferences.")
    g2p_workers: int = variable("KOKORO_G2P_WORKERS", 0, "G2P processes; 0 = half the cores, 1 to 4.")
    # Chunks of different sessions rendered in one forward pass (torch engine; 1 = each alone, as the ONNX
    # engine always does), and how long a batch waits to fill (docs/decisions/125-batched-synthesis.md).
    max_batch: int = variable("KOKORO_MAX_BATCH", 1, "Chunks per forward pass (torch engine); 1 = off.")
    batch_wait_ms: float = variable("KOKORO_BATCH_WAIT_MS", 2.0, "Milliseconds a batch waits to fill.")
    voice: str = variable("KOKORO_VOICE", DEFAULT_VOICE, "Default voice.")
    # Trim each chunk's leading/trailing silence (see kokoro_server.audio).
    trim: bool = variable("KOKORO_TRIM", True, "Trim silence at chunk edges.")
    # Where the model's files are, resolved by kokoro_server.assets before the socket opens.
    onnx_model: Path | None = variable("KOKORO_ONNX_MODEL", None)
    torch_model: Path | None = variable("KOKORO_TORCH_MODEL", None)
    voices_dir: Path | None = variable("KOKORO_VOICES_DIR", None)
    config: Path | None = variable("KOKORO_CONFIG", None, "Kokoro config.json.")
    assets_dir: Path | None = variable("KOKORO_ASSETS_DIR", None)
    # Spoken at start-up; its real-time factor goes into Ready.
    warm_up_text: str = variable("KOKORO_WARM_UP_TEXT", WARM_UP_TEXT, "Spoken at start-up to warm and time the model.")
    # Listeners at once; None = measured (kokoro_server.admission).
    max_sessions: int | None = variable(
        "KOKORO_MAX_SESSIONS", None, "Listeners at once; default: measured from the real-time factor."
    )
    # Synthesis takes at least this many seconds per second of audio synthesized, the edge silence it trims
    # included (0 = off): benchmarks only, the backend wrapped in kokoro_server.engine.slowed at load.
    simulate_rtf: float = variable(
        "KOKORO_SIMULATE_RTF",
        0.0,
        "Benchmarks only: synthesis takes at least this many seconds per second of audio synthesized, trimmed edge silence included (0 = off).",
    )
    # A session whose client reads nothing for this long is ended (its audio waits in bounded buffers).
    send_timeout_s: float = variable(
        "KOKORO_SEND_TIMEOUT",
        20.0,
        "End a session whose client reads nothing for this many seconds.",
        option="send-timeout",
    )
    # To send a complete request head (slow-header clients are closed).
    header_timeout_s: float = variable(
        "KOKORO_HEADER_TIMEOUT", 10.0, "Seconds a client has to send a request head.", option="header-timeout"
    )
    # Open connections; requests over it get 503 (see kokoro_server.listener).
    max_connections: int = variable("KOKORO_MAX_CONNECTIONS", 512, "Open connections before requests get 503.")
    # Names besides the loopback ones a loopback-bound server answers to, and the pages (origins) that may
    # open its session or POST to it; "*" turns a check off (100-browser-reachable-servers.md).
    allowed_hosts: tuple[str, ...] = variable(
        "KOKORO_ALLOWED_HOSTS",
        (),
        "A name besides localhost/127.0.0.1/[::1] that requests may give as Host (repeat; * = any).",
        option="allow-host",
    )
    allowed_origins: tuple[str, ...] = variable(
        "KOKORO_ALLOWED_ORIGINS",
        (),
        "A web page origin (http://host:port) allowed to open the session or POST (repeat; * = any).",
        option="allow-origin",
    )
    log_level: str = variable("KOKORO_LOG_LEVEL", "info")
