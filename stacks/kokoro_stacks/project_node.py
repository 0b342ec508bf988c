"""The Node.js that jsii runs the CDK's JavaScript on: the project's pinned one, not the machine's.

``setup.sh`` installs Node.js 22 from the npm registry (package ``node``, pinned in package.json) into
``node_modules/.bin/node``; jsii picks its node from ``JSII_NODE``, so pointing that there before
``aws_cdk`` is imported removes the end-of-life banner an old system node brings to every synth
(docs/decisions/021-supported-node.md). A ``JSII_NODE`` the user set wins.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from pathlib import Path

PROJECT_NODE = Path(__file__).resolve().parents[2] / "node_modules" / ".bin" / "node"


def use_project_node(env: MutableMapping[str, str], node: Path = PROJECT_NODE) -> None:
    """Set ``JSII_NODE`` to the pinned node when it is installed and the user chose none."""
    if "JSII_NODE" not in env and node.is_file():
        env["JSII_NODE"] = str(node)
