"""buildah, with the project's own image storage, as this machine allows it to run.

The storage is a folder of its own (``~/.cache/kokoro-images`` unless ``KOKORO_IMAGES_ROOT`` says otherwise),
so the layer cache outlives checkouts and never mixes with a user's own containers. Builds and runs use chroot
isolation (no runc, no user namespaces needed) and the host's network: a server inside listens on the host.
"""

from __future__ import annotations

import os
import shutil
import ssl
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

DEFAULT_ROOT = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kokoro-images"
INSTALL_HINT = (
    "install buildah and debootstrap (Debian/Ubuntu: apt-get install buildah debootstrap), or rerun ./setup.sh"
)


class ImageError(Exception):
    """A build or run that cannot go on; the message says what and how to fix it."""


def storage_root() -> Path:
    return Path(os.environ.get("KOKORO_IMAGES_ROOT") or DEFAULT_ROOT)


def storage_driver() -> str:
    """overlay where the kernel has it (layers share files); vfs, which copies every layer whole, elsewhere."""
    filesystems = Path("/proc/filesystems")
    has_overlay = filesystems.exists() and "overlay" in filesystems.read_text().split()
    return "overlay" if has_overlay else "vfs"


def host_ca_bundle() -> Path | None:
    """The CA bundle this machine trusts: the one a build's pip and npm must trust too when the registries are
    reached through a TLS-intercepting proxy (the stand-in bases point PIP_CERT and NODE_EXTRA_CA_CERTS at it)."""
    for candidate in (os.environ.get("SSL_CERT_FILE"), ssl.get_default_verify_paths().cafile):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


@dataclass(frozen=True)
class Buildah:
    root: Path

    def command(self, *args: str) -> list[str]:
        """The buildah command line for ``args``, on this storage."""
        if shutil.which("buildah") is None:
            raise ImageError(f"buildah is not installed: {INSTALL_HINT}")
        return [
            "buildah",
            "--root",
            str(self.root / "storage"),
            "--runroot",
            str(self.root / "run"),
            "--storage-driver",
            storage_driver(),
            *args,
        ]

    def output(self, *args: str) -> str:
        """What buildah prints for ``args``; an :class:`ImageError` with its error output if it fails."""
        result = subprocess.run(self.command(*args), capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if result.returncode != 0:
            raise ImageError(f"buildah {args[0]} failed: {result.stderr.strip()[-2000:]}")
        return result.stdout.strip()

    def has_image(self, name: str) -> bool:
        result = subprocess.run(
            self.command("inspect", "--type", "image", "--format", "{{.FromImageID}}", name),
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        return result.returncode == 0

    def build(
        self,
        dockerfile: Path,
        context: Path,
        tag: str,
        build_args: Sequence[str] = (),
        *,
        host_ca: bool = True,
        quiet: bool = False,
    ) -> None:
        """``buildah bud`` with the layer cache, in Docker's format (which keeps HEALTHCHECK); with ``host_ca``, the
        host's CA bundle mounted over the image's for every RUN (a stand-in base, which installs that bundle's
        package over plain-HTTP apt, goes without). buildah's own output streams to this process's."""
        mounts = []
        if host_ca and (bundle := host_ca_bundle()) is not None:
            mounts = ["--volume", f"{bundle}:/etc/ssl/certs/ca-certificates.crt:ro"]
        args = [f"--build-arg={arg}" for arg in build_args]
        command = self.command(
            "bud", "--layers", "--force-rm", "--format", "docker", "--isolation", "chroot", *mounts, *args,
            "--file", str(dockerfile), "--tag", tag, *(["--quiet"] if quiet else []), str(context),
        )  # fmt: skip
        if subprocess.run(command, stdin=subprocess.DEVNULL).returncode != 0:
            raise ImageError(f"building {tag} from {dockerfile} failed (buildah's output above)")
