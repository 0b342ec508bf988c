"""Finished agent bundles kept by what they were built from, so that a synth into a new ``cdk.out`` (or the
AgentCore emulator starting a runtime) copies one instead of running pip again.

CDK already reuses a bundle within one ``cdk.out`` (docs/decisions/139-the-agent-bundle-hash.md); this reuses it
across them. Only when ``KOKORO_AGENT_BUNDLE_CACHE`` names a folder: a bundle is 100+ MB and every edit of the
agent makes a new one, so nothing is kept unasked. A CI job can keep the folder between runs; the test suite
shares one across its workers (docs/decisions/164-agent-bundles-kept-across-cdk-outs.md).

An entry appears whole or not at all: it is copied into a hidden folder beside it and renamed into place, and
a process that finds the name taken (another one stored the same bundle first) drops its copy. Storing is
best effort: a full disk leaves the bundle built, uncached. Standard library only, as the bundle's build is.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

CACHE_VARIABLE = "KOKORO_AGENT_BUNDLE_CACHE"


@dataclass(frozen=True)
class BundleCache:
    folder: Path

    @classmethod
    def configured(cls, env: Mapping[str, str] = os.environ) -> BundleCache | None:
        """The cache ``KOKORO_AGENT_BUNDLE_CACHE`` names, or ``None`` when it is unset or empty."""
        folder = env.get(CACHE_VARIABLE, "").strip()
        return cls(Path(folder).expanduser()) if folder else None

    def restore(self, key: str, output_dir: Path) -> bool:
        """Copy the bundle stored under ``key`` into ``output_dir``: ``False`` if there is none."""
        entry = self.folder / key
        if not entry.is_dir():
            return False
        shutil.copytree(entry, output_dir, dirs_exist_ok=True)
        return True

    def store(self, key: str, bundle: Path) -> None:
        """Keep a copy of the finished ``bundle`` under ``key``, unless another process already has."""
        staging: Path | None = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{key[:16]}-", dir=self.folder))
            shutil.copytree(bundle, staging, dirs_exist_ok=True)
            staging.rename(self.folder / key)  # atomic; refused when the name is taken
            staging = None
        except OSError:
            pass  # taken, or no room: the bundle itself is built
        finally:
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
