"""``python -m kokoro_devtools.torch_weights --out kokoro-v1_0.pth``: write KModel weights rebuilt from the ONNX."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import onnx
import torch

from kokoro_devtools.torch_weights import PARTS, state_dicts


def fresh_model(config: Path):
    """A randomly initialised KModel (its state dicts give the keys and shapes to fill)."""
    from kokoro import KModel

    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty.pth"
        torch.save({}, empty)
        return KModel(repo_id="hexgrad/Kokoro-82M", config=str(config), model=str(empty))


def convert(onnx_path: Path, config: Path) -> dict[str, dict[str, torch.Tensor]]:
    model = fresh_model(config)
    return state_dicts(onnx.load(str(onnx_path)), {p: getattr(model, p).state_dict() for p in PARTS})


def main(argv: list[str] | None = None) -> int:
    repo = Path(__file__).resolve().parents[3]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--onnx", type=Path, default=repo / "assets" / "kokoro-v1.0.int8.onnx")
    parser.add_argument(
        "--config", type=Path, default=repo / "container" / "kokoro_server" / "data" / "kokoro-82m-config.json"
    )
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        parts = convert(args.onnx, args.config)
    except (KeyError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    torch.save(parts, args.out)
    print(f"{args.out}: {sum(t.numel() for sd in parts.values() for t in sd.values())} parameters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
