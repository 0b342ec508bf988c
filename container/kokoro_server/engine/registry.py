"""The one place that picks a backend by name; each is imported only when picked (torch is heavy, and absent
from the CPU image)."""

from __future__ import annotations

from collections.abc import Callable

from kokoro_server.assets import ModelAssets
from kokoro_server.engine.backend import Backend
from kokoro_server.engine.slowed import SlowedBackend


def _onnx(assets: ModelAssets, device: str, threads: int, spin: bool) -> Backend:
    from kokoro_server.engine.onnx_backend import OnnxBackend

    return OnnxBackend(assets, device=device, threads=threads, spin=spin)


def _torch(assets: ModelAssets, device: str, threads: int, spin: bool) -> Backend:
    from kokoro_server.engine.torch_backend import TorchBackend

    return TorchBackend(assets, device=device, threads=threads)  # torch's threads: OMP_WAIT_POLICY


_LOADERS: dict[str, Callable[[ModelAssets, str, int, bool], Backend]] = {"onnx": _onnx, "torch": _torch}
ENGINES = tuple(_LOADERS)


def load_backend(
    engine: str, assets: ModelAssets, device: str, threads: int, *, simulate_rtf: float = 0.0, spin: bool = True
) -> Backend:
    """Build the backend named ``engine``; ``simulate_rtf`` > 0 wraps it in :class:`SlowedBackend` (benchmarks);
    ``spin`` False makes the ONNX engine's idle threads sleep."""
    loader = _LOADERS.get(engine)
    if loader is None:
        raise ValueError(f"unknown engine {engine!r}: use {' or '.join(repr(name) for name in ENGINES)}")
    backend = loader(assets, device, threads, spin)
    return SlowedBackend(backend, simulate_rtf) if simulate_rtf else backend
