"""Where the deployables' sources live in this repository; ``app.py`` builds this from its own location."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProjectPaths:
    root: Path

    @property
    def model_dockerfile(self) -> str:
        """The model image's Dockerfile (it takes the ``ENGINE`` build argument), relative to :attr:`root`,
        its build context."""
        return "container/Dockerfile"

    @property
    def agent_dir(self) -> Path:
        """The agent's code: ``main.py`` (entrypoint), ``voice_agent/``, ``requirements.txt``."""
        return self.root / "agent"

    @property
    def protocol_package(self) -> Path:
        """The ``speech_protocol`` project folder (stdlib only), installed into both images and the
        agent's bundle."""
        return self.root / "speech_protocol"

    @property
    def constraints(self) -> Path:
        """The pins of every Python dependency (``constraints.txt``); the agent's bundle resolves under them."""
        return self.root / "constraints.txt"

    @property
    def agent_dockerfile(self) -> str:
        """The agent image's Dockerfile, relative to :attr:`root` (its build context)."""
        return "agent/Dockerfile"
