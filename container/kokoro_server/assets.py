"""Find and verify the model's files (weights, voices, config); never download anything.

Resolution order, first hit wins, per file:
1. explicit paths: ``kokoro-serve`` options, or ``KOKORO_ONNX_MODEL`` / ``KOKORO_TORCH_MODEL`` /
   ``KOKORO_VOICES_DIR`` / ``KOKORO_CONFIG`` (fields of :mod:`kokoro_server.environment`, read once by the CLI);
2. the offline set that ``./setup.sh`` assembles from registry packages: ``<repo>/assets`` or
   ``KOKORO_ASSETS_DIR`` (int8 ONNX weights, 54 ``.bin`` voices);
3. the GPU image's set, fetched at image build time, pinned by revision and sha256: ``/opt/kokoro``
   (``kokoro-v1_0.pth`` and the voices converted to ``.bin``).

A missing or corrupt file raises :class:`AssetError`, which names the file, the expected hash and the
command that fixes it.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

PACKAGE_DATA = Path(__file__).parent / "data"
PACKAGE_DATA_CONFIG = PACKAGE_DATA / "kokoro-82m-config.json"
REPO_ASSETS = Path(__file__).resolve().parents[2] / "assets"
IMAGE_ASSETS = Path("/opt/kokoro")
ONNX_FILE = "kokoro-v1.0.int8.onnx"
TIMED_ONNX_FILE = "kokoro-v1.0.int8.timed.onnx"  # the same graph with its durations as an output
TORCH_FILE = "kokoro-v1_0.pth"
TORCH_SHA256 = "496dba118d1a58f5f3db2efc88dbdc216e0483fc89fe6e47ee1f2c53f18ad1e4"
VOICE_SHAPE = (510, 1, 256)  # one style row per phoneme count
STYLE_DIM = VOICE_SHAPE[-1]
FIX_OFFLINE = "./setup.sh (or: .venv/bin/python -m kokoro_server.offline_assets build --dest assets)"
FIX_IMAGE = "rebuild the image (container/Dockerfile fetches the weights at build time)"
# Outside the image the official .pth cannot be fetched; the torch engine runs on weights rebuilt from the
# int8 ONNX export (docs/decisions/086-torch-weights-from-onnx.md), named explicitly: they are not the
# pinned file, so they never take its place under assets/.
FIX_TORCH = (
    ".venv/bin/python -m kokoro_devtools.torch_weights --out kokoro-v1_0.pth, then pass "
    "--torch-model kokoro-v1_0.pth (or KOKORO_TORCH_MODEL=$PWD/kokoro-v1_0.pth)"
)


def fix_offline(base: Path) -> str:
    """The command that (re)builds the offline set in ``base``, the folder the error is about."""
    if base == REPO_ASSETS:
        return FIX_OFFLINE
    return f".venv/bin/python -m kokoro_server.offline_assets build --dest {shlex.quote(str(base))}"


def fix_explicit(option: str, env: str) -> str:
    """An explicit path is the user's: the fix is to correct it, or to drop it for the offline set."""
    return f"correct {option} ({env}), or leave it unset to use the offline set in assets/ that ./setup.sh builds"


class AssetError(RuntimeError):
    """A model file is missing or does not match its pinned hash."""

    def __init__(self, path: Path | str, problem: str, expected_sha256: str | None, fix: str):
        detail = f" (expected sha256 {expected_sha256})" if expected_sha256 else ""
        super().__init__(f"{path}: {problem}{detail}. Fix: {fix}")
        self.path = Path(path)


@lru_cache(maxsize=1)
def manifest() -> dict:
    """Pinned hashes of the offline asset set (committed beside this module)."""
    return json.loads((PACKAGE_DATA / "offline_assets.json").read_text())


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify(path: Path, expected: str | None, fix: str) -> Path:
    """Return ``path`` if it exists and (when ``expected`` is given) has that sha256."""
    if not path.is_file():
        raise AssetError(path, "file is missing", expected, fix)
    if expected and sha256_of(path) != expected:
        raise AssetError(path, "file is corrupt (sha256 mismatch)", expected, fix)
    return path


@dataclass(frozen=True)
class ModelAssets:
    """Where each file of one model set lives; ``voices`` maps a voice name to its ``.bin`` file."""

    config: Path
    voices: dict[str, Path]
    onnx_model: Path | None = None
    torch_model: Path | None = None

    def vocab(self) -> dict[str, int]:
        return json.loads(self.config.read_text())["vocab"]

    def load_voice(self, name: str) -> np.ndarray:
        """One voice as float32 ``[510, 1, 256]``: one style row per phoneme count."""
        path = self.voices[name]
        data = np.fromfile(path, dtype="<f4")
        if data.size != int(np.prod(VOICE_SHAPE)):
            raise AssetError(
                path, f"voice file has {data.size} floats, not {int(np.prod(VOICE_SHAPE))}", None, FIX_OFFLINE
            )
        return data.reshape(VOICE_SHAPE)


def _first_dir(*candidates: Path | None) -> Path | None:
    return next((c for c in candidates if c is not None and c.is_dir()), None)


def _voice_files(voices_dir: Path, pinned: dict[str, str] | None, fix: str) -> dict[str, Path]:
    if pinned:
        return {name: verify(voices_dir / f"{name}.bin", sha, fix) for name, sha in pinned.items()}
    found = {p.stem: p for p in sorted(voices_dir.glob("*.bin"))}
    if not found:
        raise AssetError(voices_dir, "no voice files (*.bin) in this folder", None, fix)
    return found


def resolve(
    engine: str,
    *,
    onnx_model: Path | None = None,
    torch_model: Path | None = None,
    voices_dir: Path | None = None,
    config: Path | None = None,
    assets_dir: Path | None = None,
) -> ModelAssets:
    """Resolve and verify what ``engine`` ("onnx" or "torch") needs, in the documented order.

    Every error's fix repairs the file it names: a path the user gave is theirs to correct, and a file of
    a set is rebuilt in that set's own folder (``--assets-dir`` given is that folder, present or not).
    """
    base = assets_dir if assets_dir is not None else _first_dir(REPO_ASSETS, IMAGE_ASSETS)
    in_image = base == IMAGE_ASSETS
    set_fix = FIX_IMAGE if in_image else fix_offline(base or REPO_ASSETS)
    offline = manifest()
    cfg = verify(config, None, fix_explicit("--config", "KOKORO_CONFIG")) if config else PACKAGE_DATA_CONFIG

    if voices_dir is not None:
        voices = _voice_files(voices_dir, None, fix_explicit("--voices-dir", "KOKORO_VOICES_DIR"))
    elif base is None:
        raise AssetError(REPO_ASSETS, "no model assets found", None, FIX_OFFLINE)
    else:
        # The offline set's voices are pinned one by one; the image's are taken as found.
        voices = _voice_files(base / "voices", None if in_image else offline["voices"], set_fix)

    if engine == "onnx":
        if onnx_model is not None:
            return ModelAssets(
                cfg, voices, onnx_model=verify(onnx_model, None, fix_explicit("--onnx-model", "KOKORO_ONNX_MODEL"))
            )
        if base is None:
            raise AssetError(REPO_ASSETS / TIMED_ONNX_FILE, "no ONNX weights found", None, FIX_OFFLINE)
        path = verify(base / TIMED_ONNX_FILE, offline["onnx_timed"]["sha256"], set_fix)
        return ModelAssets(cfg, voices, onnx_model=path)
    if engine == "torch":
        if torch_model is not None:
            return ModelAssets(
                cfg, voices, torch_model=verify(torch_model, None, fix_explicit("--torch-model", "KOKORO_TORCH_MODEL"))
            )
        where = base if base is not None else IMAGE_ASSETS
        path = verify(where / TORCH_FILE, TORCH_SHA256, FIX_IMAGE if where == IMAGE_ASSETS else FIX_TORCH)
        return ModelAssets(cfg, voices, torch_model=path)
    raise ValueError(f"unknown engine {engine!r}: use 'onnx' or 'torch'")
