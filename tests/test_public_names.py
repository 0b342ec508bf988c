"""Each package names its public modules in its ``__init__``'s ``__all__`` and its docstring, every name there
resolves, and importing the package loads none of them (docs/decisions/119-public-names.md)."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

PACKAGES = [
    "speech_protocol",
    "speech_protocol.pieces",
    "speech_protocol.http",
    "speech_protocol.transports",
    "kokoro_server",
    "voice_agent",
    "voice_agent.conversation",
    "kokoro_processes",
]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_lists_and_the_docstring_names_every_public_module(name: str) -> None:
    package = importlib.import_module(name)
    found = {m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")}
    assert sorted(package.__all__) == sorted(found)
    doc = package.__doc__ or ""
    assert [m for m in found if f":mod:`{name}.{m}`" not in doc and f":mod:`~{name}.{m}`" not in doc] == []


@pytest.mark.parametrize("name", PACKAGES)
def test_every_public_name_resolves(name: str) -> None:
    for public in importlib.import_module(name).__all__:
        module = importlib.import_module(f"{name}.{public}")
        assert module.__doc__, f"{name}.{public} says nothing about what it holds"


@pytest.mark.parametrize("name", PACKAGES)
def test_importing_a_package_imports_none_of_its_modules(name: str) -> None:
    """The package is a map, not a loader: ``import kokoro_server`` loads no model library."""
    code = f"import sys, {name}; print(sorted(m for m in sys.modules if m.startswith('{name}.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"
