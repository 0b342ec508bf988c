"""An image's size, and the part of it its own Dockerfile adds, from the layers of its manifest."""

from __future__ import annotations

import json
from dataclasses import dataclass

from kokoro_devtools.images.buildah import Buildah


def layers(buildah: Buildah, tag: str) -> list[tuple[str, int]]:
    """(digest, uncompressed bytes) of each of the image's layers, base first."""
    manifest = json.loads(buildah.output("inspect", "--type", "image", "--format", "{{.Manifest}}", tag))
    return [(layer["digest"], layer["size"]) for layer in manifest["layers"]]


@dataclass(frozen=True)
class Size:
    image: str
    bytes: int
    base: str  # the base image its last stage grows from ("" if none of those named is)
    base_bytes: int
    own_bytes: int


def sizes(buildah: Buildah, tag: str, base_names: list[str]) -> Size:
    """The image's size, and its own part: what its Dockerfile adds to the base image its last stage grows from
    (here a stand-in, whose size says nothing of the official base)."""
    own = layers(buildah, tag)
    base, base_layers = "", []
    for name in base_names:
        candidate = layers(buildah, name)
        if own[: len(candidate)] == candidate:
            base, base_layers = name, candidate
    total = sum(size for _, size in own)
    base_bytes = sum(size for _, size in base_layers)
    return Size(tag, total, base, base_bytes, total - base_bytes)
