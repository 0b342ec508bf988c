"""The model server's settings: one frozen object, parsed once by the CLI, passed down from there.

Its fields and their variables are :class:`~kokoro_server.environment.ServerEnvironment`'s; this module adds
the checks, which need the engine's registry (and so numpy, which the stacks that write the variables do
without). It imports neither G2P nor a model, so that the CLI checks its options before the seconds of
loading G2P.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from kokoro_server.engine.registry import ENGINES
from kokoro_server.engine.slowed import MAX_SIMULATED_RTF
from kokoro_server.environment import ServerEnvironment
from speech_protocol.http.browser_access import (
    AccessListError,
    BrowserAccess,
    access_list,
    host_name,
    is_loopback,
    origin,
    server_hosts,
)

MAX_BATCH = 64
MAX_BATCH_WAIT_MS = 100.0  # a batch that waits longer delays every first piece in it


@dataclass(frozen=True)
class ServerSettings(ServerEnvironment):
    """The server's variables (:class:`~kokoro_server.environment.ServerEnvironment`), checked at start-up,
    and what only code sets."""

    max_pending: int = 64  # queued utterances per session before the server pushes back

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
