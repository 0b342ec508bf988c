"""The model server's settings: one frozen object, parsed once by the CLI, passed down from there.

It imports neither G2P nor a model (of the engine, only its registry's and the warm-up text's light
modules), so that the CLI checks its options before the seconds of loading G2P.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from kokoro_server.engine.registry import ENGINES
from kokoro_server.engine.slowed import MAX_SIMULATED_RTF
from kokoro_server.engine.warm_up import WARM_UP_TEXT
from speech_protocol.browser_access import (
    AccessListError,
    BrowserAccess,
    access_list,
    host_name,
    is_loopback,
    origin,
    server_hosts,
)

DEFAULT_VOICE = "af_heart"
MAX_BATCH = 64
MAX_BATCH_WAIT_MS = 100.0  # a batch that waits longer delays every first piece in it


@dataclass(frozen=True)
class ServerSettings:
    host: str = "127.0.0.1"
    port: int = 8080
    engine: str = "onnx"  # onnx (CPU default) | torch (GPU image)
    device: str = "cpu"  # cpu | cuda
    threads: int = 0  # intra-op threads per inference; 0 = the runtime's default (all cores)
    workers: int = 1  # concurrent inferences; more only helps on a GPU
    g2p_workers: int = 0  # G2P processes; 0 = half the cores, 1 to 4 (kokoro_server.g2p_pool.default_workers)
    # Pieces of different sessions spoken in one forward pass (torch engine; 1 = each alone, as the ONNX
    # engine always does), and how long a batch waits to fill (docs/decisions/125-batched-synthesis.md).
    max_batch: int = 1
    batch_wait_ms: float = 2.0
    voice: str = DEFAULT_VOICE
    trim: bool = True  # trim each piece's leading/trailing silence (see kokoro_server.audio)
    max_pending: int = 64  # queued utterances per session before the server pushes back
    max_sessions: int | None = None  # listeners at once; None = measured (kokoro_server.admission)
    # Synthesis takes at least this many seconds per second of audio synthesized, the edge silence it trims
    # included (0 = off): benchmarks only, the backend wrapped in kokoro_server.engine.slowed at load.
    simulate_rtf: float = 0.0
    # A session whose client reads nothing for this long is ended (its audio waits in bounded buffers).
    send_timeout_s: float = 20.0
    warm_up_text: str = WARM_UP_TEXT  # spoken at start-up; its real-time factor goes into Ready
    header_timeout_s: float = 10.0  # to send a complete request head (slow-header clients are closed)
    max_connections: int = 512  # open connections; requests over it get 503 (see kokoro_server.listener)
    # Names besides the loopback ones a loopback-bound server answers to, and the pages (origins) that may
    # open its session or POST to it; "*" turns a check off (100-browser-reachable-servers.md).
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise ValueError(f"engine: {self.engine!r} is not one of {', '.join(ENGINES)}")
        if self.device not in ("cpu", "cuda"):
            raise ValueError(f"device: {self.device!r} is not one of cpu, cuda")
        if not 0 < self.port < 65536:
            raise ValueError(f"port: {self.port} is out of range")
        if self.workers < 1 or self.threads < 0 or self.max_pending < 1:
            raise ValueError("workers and max_pending must be >= 1, threads >= 0")
        if self.g2p_workers < 0:
            raise ValueError("g2p_workers must be >= 1 (or 0: sized to the machine)")
        if not 1 <= self.max_batch <= MAX_BATCH or not 0 <= self.batch_wait_ms <= MAX_BATCH_WAIT_MS:
            raise ValueError(f"max_batch must be 1..{MAX_BATCH} and batch_wait_ms 0..{MAX_BATCH_WAIT_MS:g}")
        if self.max_sessions is not None and self.max_sessions < 1:
            raise ValueError("max_sessions must be >= 1 (leave it unset to measure the capacity)")
        if not 0 <= self.simulate_rtf <= MAX_SIMULATED_RTF:
            raise ValueError(f"simulate_rtf must be between 0 (off) and {MAX_SIMULATED_RTF:g}")
        if not self.send_timeout_s > 0:
            raise ValueError("send_timeout_s must be > 0")
        if not self.header_timeout_s > 0 or self.max_connections < 1:
            raise ValueError("header_timeout must be > 0 and max_connections >= 1")
        if not self.warm_up_text.strip():
            raise ValueError("warm_up_text: must hold words to speak")
        try:
            self.access  # noqa: B018 - parsed here so that a malformed name fails at start-up, not per request
        except AccessListError as err:
            raise ValueError(f"allowed hosts and origins: {err}") from None

    @property
    def access(self) -> BrowserAccess:
        """Bound to loopback: its own names and the allowed origins only (none by default), so no web page
        can drive it; bound elsewhere (SageMaker's 0.0.0.0) only the lists given, else no check."""
        hosts = access_list(self.allowed_hosts, host_name)
        origins = access_list(self.allowed_origins, origin)
        strict = self.allowed_origins or is_loopback(self.host)
        return BrowserAccess(hosts=server_hosts(self.host, hosts), origins=origins if strict else None)


def offline_environment() -> None:
    """Every process the project starts runs with the Hugging Face hub switched off."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
