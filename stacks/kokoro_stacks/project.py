"""Where the deployables' sources live in this repository, and the Node.js that jsii runs the CDK on.

``app.py`` builds :class:`ProjectPaths` from its own location. Standard library only: ``app.py`` calls
:func:`use_project_node` before it imports ``aws_cdk``.

The node: ``setup.sh`` installs Node.js 22 from the npm registry (package ``node``, pinned in package.json)
into ``node_modules/.bin/node``; jsii picks its node from ``JSII_NODE``, so pointing that there before
``aws_cdk`` is imported removes the end-of-life banner an old system node brings to every synth
(docs/decisions/021-supported-node.md). A ``JSII_NODE`` the user set wins.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass
from pathlib import Path

PROJECT_NODE = Path(__file__).resolve().parents[2] / "node_modules" / ".bin" / "node"


def use_project_node(env: MutableMapping[str, str], node: Path = PROJECT_NODE) -> None:
    """Set ``JSII_NODE`` to the pinned node when it is installed and the user chose none."""
    if "JSII_NODE" not in env and node.is_file():
        env["JSII_NODE"] = str(node)


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
