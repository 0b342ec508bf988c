"""Whether pip's package index answers: told apart from a real dependency conflict when bundling fails.

Bundling the agent downloads its arm64 wheels, so ``cdk synth`` of the agent stack needs the index
(docs/decisions/111-what-offline-means.md). Without it pip reports ``ResolutionImpossible ... conflicting
dependencies``, which names the wrong cause; after a failed pip run this probe names the right one.
Standard library only, like :mod:`kokoro_stacks.bundling_pip`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping

DEFAULT_INDEX = "https://pypi.org/simple/"
PROBE_TIMEOUT_S = 10


def index_url(env: Mapping[str, str] = os.environ) -> str:
    """The index pip uses: ``PIP_INDEX_URL``, else pip's configured ``index-url``, else PyPI."""
    if env.get("PIP_INDEX_URL"):
        return env["PIP_INDEX_URL"]
    configured = subprocess.run(
        [sys.executable, "-m", "pip", "config", "get", "global.index-url"], capture_output=True, text=True, check=False
    )
    return configured.stdout.strip() if configured.returncode == 0 and configured.stdout.strip() else DEFAULT_INDEX


def unreachable(url: str, timeout_s: float = PROBE_TIMEOUT_S) -> str | None:
    """Why ``url`` cannot be read (refused, no such host, timed out), or ``None`` if it answers at all."""
    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}/pip/", timeout=timeout_s):  # noqa: S310 - pip's own index
            return None
    except urllib.error.HTTPError:
        return None  # it answered: the index is there, whatever it thinks of this path
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        return str(reason)[:200] or type(err).__name__
