"""Where the deployables' sources live in this repository; ``app.py`` builds this from its own location."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProjectPaths:
    root: Path

    @property
    def container_dir(self) -> Path:
        """Build context of the model image (its ``Dockerfile`` takes the ``ENGINE`` build argument)."""
        return self.root / "container"

    @property
    def agent_dir(self) -> Path:
        """The agent's code: ``main.py`` (entrypoint), ``voice_agent/``, ``requirements.txt``."""
        return self.root / "agent"

    @property
    def protocol_module(self) -> Path:
        """The session protocol (stdlib only), shipped with the agent as ``kokoro_server.protocol``."""
        return self.root / "container" / "kokoro_server" / "protocol.py"

    @property
    def agent_dockerfile(self) -> str:
        """The agent image's Dockerfile, relative to :attr:`root` (its build context)."""
        return "agent/Dockerfile"
