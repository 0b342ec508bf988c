"""Stand-ins for the base images the Dockerfiles name, made from Debian bookworm's packages.

No container registry is reachable here, so each ``FROM`` image is made locally once and tagged with the
exact name the Dockerfile uses; the Dockerfile then builds unchanged. Every stand-in starts from one root file
system (``debootstrap --variant=minbase bookworm``) and adds the interpreter its name promises:

* ``python:3.11-*``: Debian's own Python 3.11 (bookworm's is 3.11.2), ``python``/``pip`` on PATH as in the
  official image, its PEP 668 marker removed (the official image installs system-wide with pip too);
* ``python:3.12-*`` (bookworm has none): the Python 3.12 that ./setup.sh found for ``.venv312``, its
  interpreter, shared library and standard library copied in (so it must be built for bookworm's glibc or older);
* ``node:*``: Debian's Node.js and npm (18.x), which stand in for any Node image: the voices stage only runs
  ``npm pack``.

Each points pip (``PIP_CERT``) and Node (``NODE_EXTRA_CA_CERTS``) at the image's CA bundle, which the build
replaces with the host's (:meth:`.buildah.Buildah.build`): the registries may sit behind a TLS-intercepting proxy.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

from kokoro_devtools.images.buildah import INSTALL_HINT, Buildah, ImageError
from kokoro_devtools.local_python import NoSuchPython, local_python

ROOT_IMAGE = "localhost/kokoro-standin-bookworm"
REPO = Path(__file__).resolve().parents[3]
CA = "/etc/ssl/certs/ca-certificates.crt"
ROOT_DOCKERFILE = 'FROM scratch\nADD rootfs.tar /\nCMD ["bash"]\n'
PYTHON_FROM_DEBIAN = f"""FROM {ROOT_IMAGE}
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \\
        ca-certificates python3 python3-pip python3-venv \\
 && rm -rf /var/lib/apt/lists/* /usr/lib/python3*/EXTERNALLY-MANAGED \\
 && ln -s /usr/bin/python3 /usr/local/bin/python && ln -s /usr/bin/pip3 /usr/local/bin/pip \\
 && python -c "import sys; assert sys.version_info[:2] == ({{major}}, {{minor}}), sys.version"
ENV PIP_CERT={CA}
"""
# The shared libraries a CPython build's extension modules load (ssl, ctypes, sqlite3, lzma, bz2, readline ...).
PYTHON_COPIED = f"""FROM {ROOT_IMAGE}
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \\
        ca-certificates libssl3 libffi8 libsqlite3-0 zlib1g libbz2-1.0 liblzma5 libreadline8 libncursesw6 \\
        libgdbm6 libuuid1 libexpat1 \\
 && rm -rf /var/lib/apt/lists/*
COPY python /usr/local/
RUN ldconfig && ln -s python{{major}}.{{minor}} /usr/local/bin/python3 && ln -s python3 /usr/local/bin/python \\
 && python -m ensurepip --default-pip \\
 && python -c "import sys, ssl, ctypes, sqlite3, lzma, bz2, zlib, hashlib, uuid; \\
assert sys.version_info[:2] == ({{major}}, {{minor}}), sys.version"
ENV PIP_CERT={CA}
"""
NODE_FROM_DEBIAN = f"""FROM {ROOT_IMAGE}
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \\
        ca-certificates nodejs npm \\
 && rm -rf /var/lib/apt/lists/*
ENV NODE_EXTRA_CA_CERTS={CA}
"""
DEBIAN_PYTHON = (3, 11)
# Standard-library folders no service imports: left out of a copied Python.
NOT_COPIED = ("site-packages", "dist-packages", "test", "idlelib", "tkinter", "turtledemo", "__pycache__")


def base_names(dockerfile: Path) -> list[str]:
    """The images ``dockerfile``'s ``FROM`` lines pull (not its own stages), as Docker names them in full."""
    names: list[str] = []
    stages: set[str] = set()
    for line in dockerfile.read_text().splitlines():
        words = [w for w in line.split() if not w.startswith("--")]
        if not words or words[0].upper() != "FROM":
            continue
        image = words[1]
        if len(words) >= 4 and words[2].upper() == "AS":
            stages.add(words[3])
        if image in stages or "$" in image or image == "scratch":
            continue
        names.append(full_name(image))
    return names


def full_name(image: str) -> str:
    """Docker's reading of a short name: ``python:3.11`` is ``docker.io/library/python:3.11``."""
    first, _, rest = image.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        return image
    return f"docker.io/{image}" if rest else f"docker.io/library/{image}"


def ensure(buildah: Buildah, names: Iterable[str]) -> None:
    """Each base image in ``names`` present in the storage: those missing are made now."""
    for name in names:
        if not buildah.has_image(name):
            make(buildah, name)


def make(buildah: Buildah, name: str) -> None:
    repository, _, tag = name.rpartition("/")[2].partition(":")
    with tempfile.TemporaryDirectory(prefix="standin-") as folder:
        context = Path(folder)
        if repository == "node":
            dockerfile = NODE_FROM_DEBIAN
        elif repository == "python" and (version := re.match(r"(\d+)\.(\d+)", tag)):
            major, minor = int(version[1]), int(version[2])
            if (major, minor) == DEBIAN_PYTHON:
                dockerfile = PYTHON_FROM_DEBIAN
            else:
                try:
                    python = local_python(major, minor)
                except NoSuchPython as err:
                    raise ImageError(f"cannot stand in for the base image {name}: {err}") from None
                copy_python(python, context / "python")
                dockerfile = PYTHON_COPIED
            dockerfile = dockerfile.format(major=major, minor=minor)
        else:
            raise ImageError(f"no stand-in is known for the base image {name} (kokoro_devtools/images/bases.py)")
        ensure_root(buildah)
        print(f"==> making a stand-in for {name} from Debian bookworm", flush=True)
        (context / "Dockerfile").write_text(dockerfile)
        buildah.build(context / "Dockerfile", context, name, host_ca=False)


def ensure_root(buildah: Buildah) -> None:
    """The stand-ins' common root: Debian bookworm's minimal base system, by debootstrap, as an image."""
    if buildah.has_image(ROOT_IMAGE):
        return
    if shutil.which("debootstrap") is None:
        raise ImageError(f"debootstrap is not installed: {INSTALL_HINT}")
    if os.geteuid() != 0:
        raise ImageError("making the stand-in base images needs root (debootstrap and buildah's chroot)")
    print("==> debootstrap --variant=minbase bookworm (the stand-in bases' root, once)", flush=True)
    with tempfile.TemporaryDirectory(prefix="standin-root-") as folder:
        rootfs, context = Path(folder) / "rootfs", Path(folder) / "context"
        context.mkdir()
        done = subprocess.run(
            ["debootstrap", "--variant=minbase", "bookworm", str(rootfs)],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        if done.returncode != 0:
            raise ImageError(f"debootstrap failed: {(done.stdout + done.stderr).strip()[-2000:]}")
        subprocess.run(["tar", "-C", str(rootfs), "-cf", str(context / "rootfs.tar"), "."], check=True)
        (context / "Dockerfile").write_text(ROOT_DOCKERFILE)
        buildah.build(context / "Dockerfile", context, ROOT_IMAGE, host_ca=False, quiet=True)


def copy_python(python: Path, dest: Path) -> None:
    """The interpreter behind ``python`` (through a venv to its base), laid out as under ``/usr/local``."""
    probe = (
        "import json, sys, sysconfig; v = sysconfig.get_config_var; print(json.dumps({"
        "'executable': sys._base_executable, 'stdlib': sysconfig.get_path('stdlib'), "
        "'libdir': v('LIBDIR'), 'soname': v('INSTSONAME') if v('Py_ENABLE_SHARED') else None, "
        "'version': '%d.%d' % sys.version_info[:2]}))"
    )
    found = json.loads(subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=True).stdout)
    version = found["version"]
    (dest / "bin").mkdir(parents=True)
    shutil.copy2(Path(found["executable"]).resolve(), dest / "bin" / f"python{version}")
    shutil.copytree(found["stdlib"], dest / "lib" / f"python{version}", ignore=shutil.ignore_patterns(*NOT_COPIED))
    if found["soname"]:
        shutil.copy2(Path(found["libdir"], found["soname"]).resolve(), dest / "lib" / found["soname"])
    print(f"==> Python {version} for the stand-in: {found['executable']}", flush=True)
